"""What every command handler works with: the Context of one inbound message, the Command table
entry, CommandError, and the checks most commands start with (password, board, player)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from pbm import catalogue
from pbm.commands import parse, wording
from pbm.commands.parse import MASK, Request
from pbm.config import Config
from pbm.i18n import N_, _
from pbm.mail.messages import Incoming, Outgoing
from pbm.model.play import games
from pbm.model.players import accounts, guard
from pbm.model.db import Database
from pbm.model.play.games import Board
from pbm.outbox import compose

MAX_LISTED = 100        # lines of any listing (games, history, seeks): one cap for all


class CommandError(Exception):
    """The command cannot be carried out.  The text says what was wrong and what would be right;
    it is mailed to the player, so it must never contain a password."""


class Unanswered(CommandError):
    """The command is refused without an answer: a password attempt while the guessing limit holds
    (pbm.model.players.guard), whose answer would be backscatter to a possibly forged From."""


@dataclass
class Context:
    """One inbound message being answered (inbound is None for the timers)."""

    db: Database
    config: Config
    incoming: Incoming | None
    now: datetime
    out: list[Outgoing] = field(default_factory=list)
    request: Request | None = None
    failures: list[str] = field(default_factory=list)   # wrong passwords to count (pbm.model.players.guard)
    regardless: list[Callable[[], None]] = field(default_factory=list)  # done even if refused
    quoted: dict[str, str] = field(default_factory=dict)    # command line -> as it may be kept
    secrets: set[str] = field(default_factory=set)          # every password word seen
    published: set[str] = field(default_factory=set)        # lines shown to others (`publish`)
    comment: str = ""                   # the body text shown to the others under "alice writes:"
    board: Board | None = None          # the game the current command is about, once known
    actor: str | None = None            # the user the current command acts for, once proven
    challenges: int = 0                 # challenges this mail made or tried past the limit
    from_own: bool | None = None        # whether the sender is an address of the user a password
                                        # was given for (None: no password checked)
    later: list[Callable[[], None]] = field(default_factory=list)   # `after`

    def after(self, work: Callable[[], None]) -> None:
        """Do `work` once what is being done now has written its mails (`settle`): a tournament
        game's end is mailed before the round it completes starts the next one."""
        self.later.append(work)

    def settle(self) -> None:
        """Do what was put off with `after`, in order."""
        while self.later:
            self.later.pop(0)()

    def answer(self, subject: str, template: str, /, **values: object) -> None:
        """Mail a rendered template back to the sender."""
        assert self.incoming is not None
        self.out.append(compose.answer(self.incoming, subject, compose.render(template, **values)))

    def mask(self, text: str) -> str:
        return self.request.mask(text) if self.request else text

    def heard(self, req: Request) -> None:
        """Note how a command line may be kept once it has been carried out or refused: quoted as
        its answer quoted it (passwords, and before a password was checked anything that may be
        one, masked)."""
        self.quoted[req.text] = req.quoted()
        self.secrets |= req.secrets

    def publish(self, text: str) -> str:
        """`text` (a comment, chat or appeal) masked and cut to `[server] comment_chars`, as it is
        shown to the other players; its lines may then be kept in the stored message (see
        `redact`).  The note on a cut is in the writer's language: it is part of what they sent."""
        shown = self.mask(_capped(text.strip(), self.config.server.comment_chars))
        self.published.update(line.strip() for line in shown.splitlines())
        return shown

    def redact(self, text: str, vocabulary: frozenset[str]) -> str:
        """`text` (the subject or body of the message) as it may be kept once processed: command
        lines as `heard`, lines shown to the others as shown, every password seen masked, and of
        any other line (never read, or refused) only the words of `vocabulary`: it may hold a
        password the server never learnt was one."""
        kept = []
        for line in text.split("\n"):
            read = parse.strip_reply_prefix(line)
            if read in self.quoted:
                line = line.replace(read, self.quoted[read])
            line = parse.masked(line, self.secrets)
            if read not in self.quoted and line.strip() not in self.published:
                line = " ".join(word if word.lower() in vocabulary else MASK for word in line.split())
            kept.append(line)
        return "\n".join(kept)


def _capped(text: str, most: int) -> str:
    """`text` cut to `most` characters, with a note saying how much was cut."""
    if len(text) <= most:
        return text
    return text[:most].rstrip() + "\n" + _("[{n} more characters cut: this server passes on at most "
                                           "{most} characters of a comment]").format(n=len(text) - most,
                                                                                    most=most)


@dataclass(frozen=True)
class Command:
    """One verb of the command table (pbm.commands.registry): its usage, handler and arguments."""
    verb: str                           # canonical name, as in the usage line
    usage: str                          # arguments after the verb, as shown in help and errors
    summary: str                        # one line for the help page
    run: Callable[[Context, Request], None]
    game: bool                          # "GAME verb ..." rather than a server command
    min_args: int = 0
    max_args: int | None = 0            # None: any number
    passwords: tuple[int, ...] = ()     # argument positions that hold a password
    aliases: tuple[str, ...] = ()
    params: bool = False                # takes -parameters and --options
    details: str = ""                   # more for "help VERB"
    checks_password: bool = True        # False: the password is a new one (signup), not checked
    passless: str = ""                  # the summary in the help of a game without a pass, if other
    password_if: str = ""               # the last word without which `passwords` hold none (preview's save)

    def password_positions(self, args: list[str]) -> tuple[int, ...]:
        """Where the command's words `args` hold a password."""
        if self.password_if and not (args and args[-1].lower() == self.password_if):
            return ()
        return self.passwords

    def usage_line(self, game: str | None = None) -> str:
        prefix = f"{game or 'GAME'} " if self.game else ""
        return f"{prefix}{self.verb} {self.usage}".rstrip()


def authenticate(ctx: Context, user_word: str, password: str) -> str:
    """The user id, once `password` is right for it; else CommandError (Unanswered while the
    guessing limit holds: see pbm.model.players.guard)."""
    return prove(ctx, user_word, lambda user: accounts.verify_password(password, user.password),
                 N_("Invalid password for {user}. Passwords are case-sensitive. If you have "
                    "forgotten it, send: password reset {user}"))


def prove(ctx: Context, user_word: str, right: Callable[[accounts.User], bool], wrong: str) -> str:
    """The user id, once `right(user)` says the password sent for it is right; else
    CommandError(`wrong`, translated, with {user} filled in), every failure counted by the guessing
    limit (pbm.model.players.guard), which refuses unanswered while it holds: from every sender, the user's
    own addresses too (a From is forged at no cost), unless the MTA vouched for it.  A right
    password sent during a lock is refused too, but not counted."""
    user, ctx.from_own = accounts.claimed(ctx.db, user_word, ctx.incoming.standing if ctx.incoming else "")
    user_id = user.id if user else ""
    counted = guard.subjects(user_id, ctx.incoming)
    if guard.locked_until(ctx.db, ctx.config, guard.blocking(user_id, ctx.incoming, ctx.from_own), ctx.now):
        if user is None or not right(user):
            ctx.failures += counted
        raise Unanswered("too many wrong passwords")
    if user is None:
        ctx.failures += counted
        raise unregistered()
    if ctx.request:
        ctx.request.safe.add(user_word)
    if user.closed:
        raise CommandError(_("{user} has signed off; that account can no longer be used.").format(
            user=user.id))
    if not right(user):
        ctx.failures += counted
        until = guard.locked_until(ctx.db, ctx.config, counted, ctx.now, failing=True)
        later = " " + _("There have been too many wrong passwords for {user} or from your address: "
                        "commands with a password are refused, unanswered, until {time} UTC, from "
                        "every address. {user} can still answer a game mail (its reply address needs "
                        "no password) or send: password reset {user}").format(
            user=user.id, time=f"{until:%Y-%m-%d %H:%M}") if until else ""
        raise CommandError(_(wrong).format(user=user.id) + later)
    return proven(ctx, user)


def unregistered() -> CommandError:
    """The error for a user id nobody registered.  The word may be a password written in the wrong
    place, so it is not quoted."""
    return CommandError(_("The user id in your command is not registered here (check the order of the "
                          "words against the usage line below; to register, send: signup USERID "
                          "PASSWORD)."))


def proven(ctx: Context, user: accounts.User) -> str:
    """Note that the command acts for `user`, who proved to be who the command says."""
    if ctx.request:
        ctx.request.trusted = True
    ctx.actor = user.id
    return user.id


def board_number(word: str) -> tuple[int, int | None]:
    """'101' -> (101, None); '101#7' -> (101, 7)."""
    number, sep, ply = word.partition("#")
    if not number.isdigit() or (sep and not ply.isdigit()):
        raise CommandError(_("{word} is not a board number: write the number the server gave the "
                             "game, such as 101 (or 101#7 for the position after move 7).").format(
            word=word))
    return int(number), int(ply) if sep else None


def board_and_user(ctx: Context, req: Request) -> tuple[Board, str]:
    """The game of a `GAME VERB BOARD USERID PASSWORD ...` command and its user, once the password
    is right (the board first: a wrong number is said before any password is tried)."""
    board = load_board(ctx, req.game, req.args[0])
    return board, authenticate(ctx, req.args[1], req.args[2])


def load_board(ctx: Context, variant: str, word: str) -> Board:
    """The game numbered `word`, or CommandError.  Sets ctx.board (for the error subject)."""
    number, ply = board_number(word)
    if ply is not None:
        raise CommandError(_("Give the board number alone here ({number}, not {word}).").format(
            number=number, word=word))
    return find_board(ctx, variant, number)


def find_board(ctx: Context, variant: str, number: int) -> Board:
    board = games.load(ctx.db, variant, number)
    title = catalogue.title(variant)
    if board is None or board.status == games.DECLINED:
        gone = (_("There is no {title} Board {number} (it was declined and deleted).") if board else
                _("There is no {title} Board {number}.")).format(title=title, number=number)
        raise CommandError(gone + " " + _("Send \"{command}\" for the list of running games.").format(
            command=f"{variant} games"))
    ctx.board = board
    return board


def require_player(board: Board, user: str) -> None:
    if user not in board.players:
        raise CommandError(_("{user} does not play on {title} Board {number} ({first} and {second} "
                             "do).").format(user=user, title=board.title, number=board.number,
                                            first=board.player1, second=board.player2))


def require_active(board: Board) -> None:
    if board.status != games.ACTIVE:
        raise CommandError(_("{title} Board {number} is over ({how}); it takes no more moves.").format(
            title=board.title, number=board.number, how=describe_end(board)))


def describe_end(board: Board) -> str:
    """How a game ended, as the summary says it."""
    why = wording.reason(board.reason or "", board.variant)
    if board.status == games.CANCELLED:
        return _("cancelled: {why}").format(why=why)
    if board.status == games.DECLINED:
        return _("declined: {why}").format(why=why)
    if board.winner:
        return _("won by {user}: {why}").format(user=board.winner, why=why)
    return _("drawn: {why}").format(why=why)
