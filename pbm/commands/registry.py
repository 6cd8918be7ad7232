"""The command table: every verb with its usage line, aliases, argument count and password
positions -- the one place the help pages (pbm.commands.help_pages) and the error messages take
their usage lines from.  Each verb's handler is named by its module and imported when the verb
runs (pbm.Later): a process started for one message loads that command's code, not all fifty's."""
from __future__ import annotations

from pbm import Later, catalogue
from pbm.commands.base import Command, CommandError
from pbm.commands.parse import SAFE_WORDS, Request
from pbm.i18n import N_, _, ngettext


# Help pages that are not about one command: mail_templates/help_TOPIC.j2.
TOPICS = ("multiple", "reply")
ADMIN = ("adjudicate", "forfeit", "cancel")

COMMANDS: list[Command] = [
    Command("help", "[TOPIC]", N_("this page, or help on a command, a game, multiple or reply"),
            Later("pbm.commands.help_pages:server_help"), game=False, max_args=2),
    Command("signup", "USERID PASSWORD [ADDRESS...] [NAME=VALUE...]",
            N_("register; mail goes to the first address (default: the one you write from)"),
            Later("pbm.commands.accounts.account:signup"),
            game=False, min_args=2, max_args=2 + 5 + 4, passwords=(1,),
            checks_password=False,
            details=N_("A user id is 2 to 16 letters, digits or underscores, starting with a letter. "
                    "A password is 8 to 64 characters without spaces, not all digits and not the "
                    "user id; it is case-sensitive, and it "
                    "is stored only as a salted hash. Up to 5 addresses: game mail goes to the "
                    "first, commands are accepted from all. Preferences may follow, as in "
                    "set (for example lang=zh-Hans notation=chinese); without lang=, the mails "
                    "are in the language your sign-up mail names in its Content-Language "
                    "(English, Chinese or Korean), else English.")),
    Command("change password", "USERID OLD NEW", N_("set a new password"),
            Later("pbm.commands.accounts.account:change_password"),
            game=False, min_args=3, max_args=3, passwords=(1, 2)),
    Command("password reset", "USERID", N_("forgot your password? a one-time code is mailed to your "
            "addresses"), Later("pbm.commands.accounts.account:reset_password"),
            game=False, min_args=1, max_args=1),
    Command("password set", "USERID CODE NEWPASSWORD", N_("set a new password with the code "
            "\"password reset\" mailed you"), Later("pbm.commands.accounts.account:set_forgotten_password"),
            game=False, min_args=3,
            max_args=3, passwords=(1, 2), checks_password=False),
    Command("set", "USERID PASSWORD NAME=VALUE...", N_("preferences: board=own|red|off|svg, "
            "notation=..., lang=en|zh-Hans|zh-Hant|ko, board_faces=hanja|hangul, autoleave=off|on, "
            "digest=off|daily, subscribed=on|off"),
            Later("pbm.commands.accounts.account:set_preferences"),
            game=False, min_args=3, max_args=2 + 7, passwords=(1,),
            details=N_("board=own (the default) draws every board from your own side, Black's "
                    "turned; board=red always from the first player's side; board=off leaves the "
                    "board out of game mails; board=svg draws it from your side in SVG, for a mail "
                    "client that shows SVG (not Gmail or Outlook). notation=both (the default) lists moves in "
                    "coordinates and, where the game has it, WXF; coordinates or wxf only one; "
                    "chinese, chinese-traditional (Xiangqi) or korean (Janggi) names the moves "
                    "so in the games that have that notation (the others as both). lang=en "
                    "(the default), zh-Hans, zh-Hant or ko: the language of your mails. "
                    "board_faces=hangul: Janggi's pieces in Hangul in the drawn board (hanja, "
                    "the default: as on the pieces). autoleave=on: when your time runs out and "
                    "you have a vacation day left this year, one is spent instead of the game. "
                    "digest=daily: one mail a day listing the games waiting for your move, the "
                    "least time first. Moves may be written in any notation the "
                    "game reads, whatever you choose here. subscribed=off: none of the mail you "
                    "subscribed to (digests, reminders, end-of-game notices, the games you observe, "
                    "tournament news); the mail of your own games goes on.")),
    Command("change address", "USERID PASSWORD ADDRESS...", N_("replace your addresses (the first gets the mail)"),
            Later("pbm.commands.accounts.account:change_address"),
            game=False, min_args=3, max_args=2 + 5, passwords=(1,)),
    Command("vacation", "USERID PASSWORD DAYS|off", N_("stop all your clocks for up to DAYS days "
            "(off: come back early)"), Later("pbm.commands.timing.away:vacation"),
            game=False, min_args=3, max_args=3, passwords=(1,),
            details=N_("While you are on vacation your clocks stand: no time-outs, no reminders; your "
                    "opponents are told, and it shows in their mails and in status. You may still "
                    "move. Each player has 30 days a year (the server may set another allowance); "
                    "days you do not use (coming back early with off) are given back.")),
    Command("signoff", "USERID PASSWORD", N_("close your account (finish or resign your games first)"),
            Later("pbm.commands.accounts.account:signoff"), game=False, min_args=2, max_args=2, passwords=(1,)),
    Command("list", "", N_("the games this server plays"), Later("pbm.commands.games.queries:list_games"),
            game=False),
    Command("all show", "USERID [next|active|inactive]", N_("boards of a user in every game"),
            Later("pbm.commands.games.queries:all_show"), game=False, min_args=1, max_args=2),

    Command("challenge", "[-param...] [--option=DAYS...] USER1 USER2 [PASSWORD]",
            N_("start a game at once; USER1 moves first"), Later("pbm.commands.games.play:challenge"),
            game=True, min_args=2,
            max_args=3, params=True, passwords=(2,),
            details=N_("Accepted only from an address registered to USER1 or USER2 (with the "
                    "challenger's PASSWORD where the server asks for it). Both players get the "
                    "board. The game counts for the other player only from their first move: until "
                    "then their clock does not run, it is not rated, and either player may call it "
                    "off by resigning (it is then deleted); if they do not move within the server's "
                    "time (14 days by default), it lapses. Parameters: -fen=FEN starts from a "
                    "position (write the FEN's spaces as _, or give the placement alone; USER1 plays "
                    "the side to move); -unrated. Games from a -fen position are not rated.")),
    Command("move", "BOARD USERID PASSWORD MOVE[#N]", N_("play a move (or pass, resign, propose, "
            "accept, reject, undo)"), Later("pbm.commands.games.play:move"),
            game=True, min_args=4, max_args=4, passwords=(2,),
            aliases=("board", "mvoe"), passless=N_("play a move (or resign, propose, accept, reject, undo)"),
            details=N_("MOVE is written in coordinates (h2e2, h2-e2, h2xe2) or, for Xiangqi, in WXF "
                    "(C2=5). With #N (h2e2#7) the move is refused unless it is move number N, so a "
                    "move written for an old position is never played by mistake. Instead of a move: "
                    "resign; propose (a draw); accept or reject (the opponent's draw offer or request "
                    "to take back a move); undo (ask to take back your last move); pass (Janggi).")),
    Command("resign", "BOARD USERID PASSWORD", N_("give up (before your first move: decline the game)"),
            Later("pbm.commands.games.play:resign"), game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("queue", "BOARD USERID PASSWORD MOVE|clear", N_("a premove, played when your turn comes "
            "if it is legal then"), Later("pbm.commands.games.play:queue"),
            game=True, min_args=4, max_args=4, passwords=(2,),
            aliases=("qmove", "moveq"),
            details=N_("Queued moves are played one per turn, shown as (Auto). If a queued move is not "
                    "legal when its turn comes, it and the rest of your queue are dropped, and your "
                    "next board mail says so. Taking back moves clears the queues. `clear` "
                    "empties yours. Up to 10 moves.")),
    Command("setup", "BOARD USERID PASSWORD ARRANGEMENT", N_("choose how your pieces stand, before "
            "your first move (Janggi)"), Later("pbm.commands.games.setups:setup"),
            game=True, min_args=4, max_args=6, passwords=(2,),
            details=N_("In Janggi each side picks one of four arrangements of its horses and elephants "
                    "before its own first move (\"janggi help\" lists them; the default is the "
                    "standard one). You may change your mind until you make your first move (a pass "
                    "counts as one); the choice is not a move and does not use your turn. A "
                    "challenger can choose at once with -setup=ARRANGEMENT in the challenge.")),
    Command("preview", "BOARD MOVE... | BOARD USERID PASSWORD MOVE... save",
            N_("the board after some moves; nothing is saved (with save: kept as your note)"),
            Later("pbm.commands.games.queries:preview"),
            game=True, min_args=2, max_args=43, passwords=(2,), password_if="save",
            details=N_("With your user id and password first and save last, the moves are kept as a "
                       "line in your private notes on the game, with the body of your mail as the "
                       "note (see note).")),
    Command("note", "BOARD USERID PASSWORD", N_("keep the body of your mail as your private note on "
            "the game"), Later("pbm.commands.games.notebook:note"),
            game=True, min_args=3, max_args=3, passwords=(2,),
            details=N_("Only you see your notes while the game runs: the latest in your board mails, "
                       "all of them with notes and on your page of the game. A reply to a game mail "
                       "whose first line starts with note: keeps the rest as a note too. Once the game "
                       "has ended, notes ... share (or set ... notes=share for every game) puts your "
                       "notes and lines into the game's record, for everyone.")),
    Command("notes", "BOARD USERID PASSWORD [share]", N_("your notes on the game; share: into its "
            "record once it has ended"), Later("pbm.commands.games.notebook:list_notes"),
            game=True, min_args=3, max_args=4,
            passwords=(2,)),
    Command("show", "BOARD[#N]... | USERID... [active|inactive|next]",
            N_("the board now (or after move N), or the boards of some players"),
            Later("pbm.commands.games.queries:show"),
            game=True, min_args=1, max_args=20),
    Command("status", "BOARD", N_("the summary of a game without the board"),
            Later("pbm.commands.games.queries:status"),
            game=True, min_args=1, max_args=1),
    Command("seek", "USERID PASSWORD [-param...] [--option=N...] [rated|unrated]",
            N_("post an open challenge anyone may take"), Later("pbm.commands.games.seeking:seek"),
            game=True, min_args=2, max_args=3,
            passwords=(1,), params=True,
            details=N_("Your seek is listed by GAME seeks until someone takes it with GAME accept-seek "
                    "or it expires (7 days unless the server says otherwise). You play the side that "
                    "moves first. A new seek of yours replaces the old one. The -parameters and "
                    "--options are those of challenge.")),
    Command("seeks", "", N_("the open challenges (seeks) of this game"),
            Later("pbm.commands.games.seeking:list_seeks"),
            game=True),
    Command("accept-seek", "N USERID PASSWORD", N_("take seek N: the game starts at once"),
            Later("pbm.commands.games.seeking:accept_seek"), game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("player", "USERID", N_("rating and its history, results by opponent, running games"),
            Later("pbm.commands.games.queries:player"), game=True, min_args=1, max_args=1),
    Command("record", "BOARD [pgn|zh|dhtmlxq|gib] [utf-8]", N_("the game's record, also attached as a file"),
            Later("pbm.commands.games.record_mail:record"), game=True, min_args=1, max_args=3,
            details=N_("PGN is what game databases and analysis sites read (pychess-variants reads "
                    "Xiangqi's and Janggi's). Moves are in the game's notation (WXF for Xiangqi), "
                    "the players' comments and chat are PGN comments, and the last comment gives the "
                    "result's reason. The final mails of a game carry it too. For Xiangqi, zh is PGN "
                    "with the moves in Chinese (as xqbase keeps it), in GBK (Big5 for traditional "
                    "characters), and dhtmlxq the forums' [DhtmlXQ] block; for Janggi, gib is the "
                    "Korean programs' file, in CP949. Add utf-8 after the format for the file in "
                    "UTF-8.")),
    Command("review", "BOARD [USERID PASSWORD]", N_("an engine's review of a finished game, mailed to you"),
            Later("pbm.review.command:review"), game=True, min_args=1, max_args=3, passwords=(2,),
            details=N_("Only after the end, never during play. The engine marks each move that loses "
                    "winning chances (?! inaccuracy, ? mistake, ?? blunder), gives each side's "
                    "accuracy, draws the winning chances move by move and shows the three turning "
                    "points with its own move; the annotated record is attached. Without USERID "
                    "PASSWORD it goes to the user of your address. set USERID PASSWORD review=on: a "
                    "review after each of your finished games. Xiangqi and Janggi only.")),
    Command("games", "[USERID...] [active|inactive|next]", N_("the list of games"),
            Later("pbm.commands.games.queries:games_list"),
            game=True, max_args=20),
    Command("history", "[USERID]", N_("finished games, newest first"), Later("pbm.commands.games.queries:history"),
            game=True,
            max_args=1),
    Command("standings", "", N_("every rating of this game, sure or not (Glicko-2)"),
            Later("pbm.commands.games.queries:standings"),
            game=True),
    Command("ratings", "", N_("the rating list: sure ratings only"),
            Later("pbm.commands.games.queries:rating_list"),
            game=True),
    Command("chat", "BOARD USERID PASSWORD", N_("send the body of your mail to the players and observers"),
            Later("pbm.commands.games.play:chat"), game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("subscribe", "BOARD USERID PASSWORD", N_("observe a game: get its mail after every move"),
            Later("pbm.commands.games.play:subscribe"), game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("unsubscribe", "BOARD USERID PASSWORD", N_("stop observing a game"),
            Later("pbm.commands.games.play:unsubscribe"),
            game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("help", "", N_("the rules of the game and these commands"), Later("pbm.commands.help_pages:game_help"),
            game=True),
    Command("conditional", "BOARD USERID PASSWORD [clear]", N_("moves played for you if your opponent "
            "plays what you foresaw"), Later("pbm.commands.games.conditional:conditional"), game=True,
            min_args=3, max_args=4, passwords=(2,),
            details=N_("Each line of the body is a branch: your opponent's move, your reply, then maybe "
                    "their next move and your reply to it (h10g8 h1g3 i10h10 i1h1), in any notation "
                    "the game reads. Every line is checked at once; one that cannot be played refuses "
                    "the whole tree. When your opponent moves, the branch that begins with that move "
                    "is played for you at once (Auto), and the rest of it kept; every other branch "
                    "is dropped. Only you see your tree (in status). It wins over your queue. A new "
                    "tree replaces the old; clear drops it. Or reply to a game mail with conditional "
                    "on the first line and the branches below.")),
    Command("submit", "BOARD USERID PASSWORD MOVE", N_("see your move on the board before you "
            "play it (then confirm)"), Later("pbm.commands.games.submit:submit"),
            game=True, min_args=4, max_args=4, passwords=(2,),
            details=N_("Nothing is played: the answer, headed Preview, shows the board after the move. "
                    "Play it with confirm, which is refused if the position has changed since.")),
    Command("confirm", "BOARD USERID PASSWORD", N_("play the move you submitted"),
            Later("pbm.commands.games.submit:confirm"),
            game=True, min_args=3, max_args=3, passwords=(2,)),
    Command("notify", "USERID PASSWORD [BOARD...|off]", N_("a notice when these games end (no BOARD: "
            "every game of yours)"), Later("pbm.commands.mails.notices:notify"),
            game=True, min_args=2, max_args=2 + 20,
            passwords=(1,),
            details=N_("With BOARDs: one short mail, with the result and the PGN record, when each of "
                    "those running games ends (anyone's game). Without a BOARD: such a notice at the "
                    "end of every game of yours of this kind, now and later. off drops them all.")),
    Command("replay", "BOARD MOVENO [MOVE...]", N_("the board after move MOVENO, with moves tried on "
            "it; nothing is saved"), Later("pbm.commands.games.queries:replay"),
            game=True, min_args=2, max_args=40),
    Command("tournament", "ACTION NAME [USERID PASSWORD] [...]",
            N_("ACTION: create, join, leave, start, show, record, withdraw, cancel, bye, correct"),
            Later("pbm.commands.tournaments.tournament:tournament"),
            game=True, min_args=2, max_args=6, params=True, passwords=(3,),
            details=N_("create NAME USERID PASSWORD --system=roundrobin|swiss|knockout [--rounds=N] "
                    "[--double] [--tiebreaks=LIST] [--band=MIN-MAX] [--sure] [--theme=MOVES] "
                    "[--timeout=DAYS] [-params] [unrated]: you direct it (--rounds for a Swiss, "
                    "--double for a double round robin, --tiebreaks: FIDE's abbreviations in order, "
                    "such as BH-C1,BH,SB, --band: the ratings that may join, --sure: sure ratings "
                    "only, --theme: the moves every game starts after). "
                    "join NAME USERID PASSWORD enters "
                    "it, leave takes the entry back (after the start: you forfeit the rest). start "
                    "NAME USERID PASSWORD (the director) pairs round 1 and starts its games; each "
                    "next round starts by itself when the last game of a round ends. show NAME: "
                    "standings, crosstable and the round's boards; record NAME: the tournament as a "
                    "FIDE TRF file. The director may also withdraw NAME USERID PASSWORD PLAYER, and "
                    "cancel NAME USERID PASSWORD. A name is 2 to 24 letters, digits and hyphens. "
                    "A Swiss may be created --accelerated (FIDE's Baku acceleration), --late=N "
                    "(entries until round N is paired) and --byes=N (each player may ask for N "
                    "half-point byes: bye NAME USERID PASSWORD ROUND, before that round is paired); "
                    "the director corrects a decided result with correct NAME USERID PASSWORD BOARD "
                    "RESULT (such as 1/2-1/2). Any system may be --paired: every pairing is two "
                    "games, colours reversed (a knockout's tied pair plays another pair, or with "
                    "--decider=seed the higher seed goes through). --teams=N makes a tournament of "
                    "teams of N boards: join NAME USERID PASSWORD --team=TEAM [--board=K]; after the "
                    "start, that join brings a substitute for board K from the next round.")),
    Command("tournaments", "", N_("the tournaments of this game"),
            Later("pbm.commands.tournaments.tournament:list_tournaments"),
            game=True),
    Command("ruling", "BOARD", N_("the ruling that decided a game (by repetition, or on points), "
                                  "sent again"), Later("pbm.commands.games.appeals:ruling"),
            game=True, min_args=1, max_args=1),
    Command("appeal", "BOARD USERID PASSWORD [dismiss APPELLANT]",
            N_("appeal against a game's ruling (the mail's body says why)"),
            Later("pbm.commands.games.appeals:appeal"),
            game=True,
            min_args=3, max_args=5, passwords=(2,),
            details=N_("A player of the game may appeal once, within 7 days of the ruling: the arbiters "
                       "get the ruling, the player's words and the game's record, and the opponent is "
                       "told. The result stands until an arbiter adjudicates the game again or "
                       "dismisses the appeal (appeal BOARD ADMINID PASSWORD dismiss APPELLANT). A "
                       "server without an arbiter refuses an appeal.")),
    Command("adjudicate", "BOARD ADMINID PASSWORD WINNER|draw [REASON...]",
            N_("admin: decide a game (WINNER is a user id or a side)"),
            Later("pbm.commands.games.admin:adjudicate"),
            game=True,
            min_args=4, max_args=None, passwords=(2,)),
    Command("forfeit", "BOARD ADMINID PASSWORD USERID [REASON...]", N_("admin: USERID loses the game"),
            Later("pbm.commands.games.admin:forfeit"), game=True, min_args=4, max_args=None, passwords=(2,)),
    Command("cancel", "BOARD ADMINID PASSWORD [REASON...]", N_("admin: end a game without result"),
            Later("pbm.commands.games.admin:cancel"), game=True, min_args=3, max_args=None, passwords=(2,)),
    Command("accept", "USERID PASSWORD", N_("take up every challenge of this game waiting for you"),
            Later("pbm.commands.games.pending:accept"), game=True, min_args=2, max_args=2, passwords=(1,)),
    Command("reject", "USERID PASSWORD", N_("decline every challenge of this game waiting for you"),
            Later("pbm.commands.games.pending:reject"), game=True, min_args=2, max_args=2, passwords=(1,)),
    Command("limit", "USERID PASSWORD N|off", N_("play at most N running games of this game at once"),
            Later("pbm.commands.games.pending:limit"), game=True, min_args=3, max_args=3, passwords=(1,),
            details=N_("A challenge that would give you (or the challenger) more running games of this "
                    "game than your limit is refused. off removes the limit.")),
]

GAME_VERBS = {name: c for c in COMMANDS if c.game for name in (c.verb, *c.aliases)}
SERVER_VERBS = {c.verb: c for c in COMMANDS if not c.game}
SERVER_FIRST_WORDS = {verb.split()[0] for verb in SERVER_VERBS}
# the words a stored message keeps of a line the server did not read as a command (pbm.intake)
VOCABULARY = frozenset({*GAME_VERBS, *(w for verb in SERVER_VERBS for w in verb.split()), *catalogue.GAMES,
                        *SAFE_WORDS, "multiple"})


def resolve(req: Request) -> Command:
    """Fill in req.game, req.verb and req.args from req.words, or CommandError.

    Until the command is known, its quote shows only the words that name it."""
    words = req.words
    req.distrust([])
    if not words:
        raise CommandError(_("There was no command. Send the subject \"help\" for the list of commands."))
    first = words[0].lower()
    if first in catalogue.GAMES:
        req.safe.add(words[0])
        if first not in catalogue.served():
            raise CommandError(_("{title} is not played on this server yet. Send \"list\" for the games "
                                 "that are.").format(title=catalogue.title(first)))
        req.game = first
        if len(words) < 2:
            raise CommandError(_("A game command needs a verb after the game name, for example "
                                 "\"{game} help\" or \"{game} show 101\".").format(game=first))
        command = GAME_VERBS.get(words[1].lower())
        if command is None:  # the second word may be a password put in the wrong place: not quoted
            import difflib  # only for this mistake: every `pbm deliver` would pay its import
            near = difflib.get_close_matches(words[1].lower(), {c.verb for c in COMMANDS if c.game}, n=1)
            verbs = ", ".join(sorted({c.verb for c in GAME_VERBS.values()}))
            raise CommandError((_("The second word of a {game} command is its verb, and that word is not "
                                  "one (did you mean {near}?). The commands are: {verbs}.") if near else
                                _("The second word of a {game} command is its verb, and that word is not "
                                  "one. The commands are: {verbs}.")).format(
                game=first, near=near[0] if near else "", verbs=verbs))
        req.safe.add(words[1])
        req.args = words[2:]
    else:
        two = " ".join(w.lower() for w in words[:2])
        command = SERVER_VERBS.get(two) or SERVER_VERBS.get(first)
        if command is None:  # an unknown first word may be a password sent alone: not quoted
            if first in GAME_VERBS:
                req.safe.add(words[0])
                raise CommandError(_("There is no command \"{word}\". Game commands start with the game's "
                                     "name, for example \"xiangqi {verb} ...\". Send the subject \"help\" "
                                     "for the list of commands.").format(word=words[0], verb=first))
            raise CommandError(_("The first word is neither a command nor a game's name. Send the subject "
                                 "\"help\" for the list of commands."))
        size = len(command.verb.split())
        req.safe.update(words[:size])
        req.args = words[size:]
    req.verb = command.verb
    return command


def check_shape(req: Request, command: Command) -> None:
    """Argument count and parameters; marks the password words for masking."""
    count = len(req.args)
    fits = count >= command.min_args and (command.max_args is None or count <= command.max_args)
    passwords = command.password_positions(req.args)
    if passwords:
        if fits:
            req.secrets.update(req.args[i] for i in passwords if i < len(req.args))
        if not fits or (command.checks_password and any(i < count for i in passwords)):
            req.distrust([])
    if not fits:
        raise CommandError(_("{verb} takes {count}, and your command has {n}.").format(
            verb=command.verb, count=_count(command), n=count))
    if (req.params or req.options) and not command.params:
        raise CommandError(_("{verb} takes no -parameters or --options; only challenge and seek do.").format(
            verb=command.verb))
    if req.repeated:
        raise CommandError(_("{option} repeats an option given before it in the command: give each "
                             "--option once.").format(option=req.repeated[0]))


def _count(command: Command) -> str:
    low, high = command.min_args, command.max_args
    if high is None:
        return ngettext("at least {n} word after the verb", "at least {n} words after the verb", low).format(
            n=low)
    if low == high:
        return ngettext("{n} word after the verb", "{n} words after the verb", low).format(n=low)
    return _("{low} to {high} words after the verb").format(low=low, high=high)
