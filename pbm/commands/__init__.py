"""The command layer: what each pbmserv verb does, from a decoded message to the reply mails.

`dispatch` takes one decoded message inside the caller's transaction and runs its commands;
`registry` is the table of every verb (usage line, aliases, arguments, password); one module per
family of verbs (`play`, `queries`, `account`, `admin`, `away`, `seeking`, `setups`, `tournament`);
`turns` records moves and ends games; `rounds` goes on with a tournament when one of its games
ends; `notify` writes the game mails (`next_steps`: what a reader can do next); `timers` runs
time-outs and reminders.
"""

# Loaded with the package, so that every process that can end a game (a command, the timers) goes on
# with its tournament: pbm.commands.rounds hooks itself into pbm.commands.turns.
from pbm.commands import rounds  # noqa: E402,F401
