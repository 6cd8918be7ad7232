"""The command layer: what each pbmserv verb does, from a decoded message to the reply mails.

Here: `dispatch` takes one decoded message inside the caller's transaction and runs its commands
(`precheck`: passwords before the transaction); `registry` is the table of every verb (usage line,
aliases, arguments, password); `parse` reads a command line, `base` holds what every command shares,
`wording` turns the rules core's and the database's English into the reader's language.  The verbs
themselves, by family:

- `games`: playing (`play`, `turns` records moves and ends games, `setups`, `conditional`,
  `pending`, `submit`, `queries`, `seeking`, `imports` of records, `admin`, `appeals`);
- `timing`: clocks and time (`clocks`, `timeouts`, `outages`, `away`, `digest`, and `timers`,
  which runs them);
- `accounts`: signup and settings (`account`, `confirming` an address, `flood` limits);
- `tournaments`: `tournament` and its `tournament_choices`, and `rounds`, which goes on with a
  tournament when one of its games ends;
- `mails`: what the game mails say (`notify`, `next_steps`, `notices`, `movelist`, `ruling_words`).
"""

# What must follow the end of any game, in every process that can end one (a command, the timers):
# pbm.commands.games.turns calls each once the game has its status and result (before it is saved).
# Named, not imported (pbm.Later): they are loaded when a game ends, so a process that
# ends none loads no tournament or review code; and turns cannot import what imports it.
ENDED = ("pbm.commands.tournaments.rounds:game_ended",   # its tournament goes on
         "pbm.review.command:game_ended")                # the reviews its players asked for
