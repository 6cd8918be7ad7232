"""A ruling asked for again, and an appeal against it.

`GAME ruling BOARD` sends anyone the ruling of a game the rules decided by repetition (or, in
Janggi, by bikjang or on points): the game mail with the cycle, the verdict and the rule (pbm.commands.
ruling_words), without the players' comments.  `GAME appeal BOARD USERID PASSWORD` lets a player of
the game object once, within APPEAL_DAYS of the ruling: the arbiters (`[admins] users`) get the
ruling, the player's words (the mail's body) and the game's record; the opponent is told; the result
stands until an arbiter adjudicates the game again (pbm.commands.games.admin) or dismisses the appeal
(`GAME appeal BOARD ADMINID PASSWORD dismiss USERID`, one appeal by its appellant's name); both
players are told either way.  A server without an arbiter (no `[admins] users` with an address)
refuses an appeal, saying why, as nobody could hear it (pbm doctor notes that too).
"""
from __future__ import annotations

from datetime import timedelta

from pbm import i18n
from pbm.commands.games import admin
from pbm.commands.mails import notify, ruling_words
from pbm.commands.base import CommandError, Context, board_and_user, load_board, require_player
from pbm.commands.parse import Request
from pbm.i18n import _
from pbm.model.play import appeals, games, pgn
from pbm.model.players import accounts
from pbm.model.db import parse_timestamp
from pbm.model.play.games import Board
from pbm.outbox import compose

APPEAL_DAYS = 7


def ruling(ctx: Context, req: Request) -> None:
    board = load_board(ctx, req.game, req.args[0])
    game = board.replay()
    if board.status == games.ACTIVE or not ruling_words.lines(board, game):
        raise CommandError(_("{title} Board {number} was not decided by a ruling of the rules (by "
                             "repetition, or in Janggi by bikjang or on points): there is none to "
                             "send.").format(title=board.title, number=board.number))
    values = notify.for_sender(ctx, board, game)
    values.update(headline=[_("The ruling on {title} Board {number}:").format(
        title=board.title, number=board.number)], notes=history(ctx, board), comment=None, footer=[])
    ctx.out.append(notify.shown(ctx, board, _("{title} Board {number} ruling").format(
        title=board.title, number=board.number), values))


def history(ctx: Context, board: Board) -> list[str]:
    """What became of the appeals on the game: `alice appealed on 2026-11-27; dismissed by carol.`"""
    lines = []
    for found in appeals.of_game(ctx.db, board):
        said = {appeals.OPEN: _("{user} appealed on {day}; the arbiters have not decided yet."),
                appeals.DISMISSED: _("{user} appealed on {day}; {arbiter} dismissed the appeal."),
                appeals.DECIDED: _("{user} appealed on {day}; {arbiter} adjudicated the game again.")}
        lines.append(said[found.status].format(user=found.user, day=found.at[:10], arbiter=found.arbiter))
    return lines


def appeal(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    ctx.actor = user
    if len(req.args) >= 4:
        if req.args[3].lower() != "dismiss" or len(req.args) != 5:
            raise CommandError(_("After the password only dismiss and the appellant's user id may "
                                 "follow (an arbiter's answer to one appeal: dismiss USERID), not "
                                 "{words}.").format(words=" ".join(req.args[3:])))
        _dismiss(ctx, board, user, req.args[4].lower())
        return
    require_player(board, user)
    if board.status != games.FINISHED or not board.finished_at \
            or not ruling_words.lines(board, board.replay()):
        raise CommandError(_("{title} Board {number} was not decided by a ruling of the rules (by "
                             "repetition, or in Janggi by bikjang or on points): there is none to "
                             "appeal against.").format(title=board.title, number=board.number))
    if ctx.now - parse_timestamp(board.finished_at) > timedelta(days=APPEAL_DAYS):
        raise CommandError(_("The ruling on {title} Board {number} was given on {day}: an appeal is "
                             "made within {days} days of it.").format(
            title=board.title, number=board.number, day=board.finished_at[:10], days=APPEAL_DAYS))
    if not _arbiters_known(ctx):
        raise CommandError(_("This server has no arbiter with an address ([admins] users), so nobody "
                             "could hear an appeal: it was not made, and the result stands. Ask the "
                             "server's operator ({address}) to name one."
                             ).format(address=ctx.config.server.address))
    text = ctx.publish(ctx.comment)
    if not text:
        raise CommandError(_("Say why in the mail's body: the arbiters read it with the ruling."))
    if not appeals.lodge(ctx.db, board, user, text, ctx.now):
        raise CommandError(_("You have appealed against the ruling on {title} Board {number} "
                             "already; an appeal is made once.").format(title=board.title,
                                                                        number=board.number))
    games.add_event(ctx.db, board, "appeal", user, text, ctx.now)
    arbiters = _arbiters(ctx, board, user, text)
    opponent = board.opponent(user)
    _tell(ctx, board, [opponent], lambda: _(
        "{user} has appealed against the ruling on {title} Board {number}. The result stands until "
        "an arbiter decides; you will be told.").format(user=user, title=board.title, number=board.number))
    ctx.out.append(notify.answer(ctx, board, _(
        "Your appeal against the ruling on {title} Board {number} went to the arbiters ({arbiters}); "
        "{opponent} has been told. The result stands until an arbiter decides.").format(
        title=board.title, number=board.number, arbiters=", ".join(arbiters), opponent=opponent)))


def _arbiters_known(ctx: Context) -> list[str]:
    """The arbiters an appeal can reach: `[admins] users` who have an account and an address."""
    names = [a.lower() for a in ctx.config.admins.users]
    return [name for name, who in accounts.readers(ctx.db, names).items() if who.address is not None]


def _arbiters(ctx: Context, board: Board, user: str, text: str) -> list[str]:
    """Mail the appeal to each arbiter, in their language: the ruling, the player's words, what to
    send to decide, and the game's record attached.  Returns those who have an address."""
    names = [a.lower() for a in ctx.config.admins.users]
    game = board.replay()
    record = pgn.record(board, games.comments(ctx.db, board, timed=True), ctx.config.server.address)
    sent = []
    for name, who in accounts.readers(ctx.db, names).items():
        if who.address is None:
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            lines = [_("{user} appeals against the ruling on {title} Board {number} ({outcome}).").format(
                user=user, title=board.title, number=board.number, outcome=notify.outcome(board))]
            body = compose.render("appeal.j2", lines=lines, user=user, text=text,
                                  ruling=ruling_words.lines(board, game), commands=[
                                      f"{board.variant} adjudicate {board.number} {name} PASSWORD WINNER|draw "
                                      f"REASON", f"{board.variant} appeal {board.number} {name} PASSWORD dismiss {user}"])
            subject = _("{title} Board {number}: appeal by {user}").format(
                title=board.title, number=board.number, user=user)
        ctx.out.append(compose.notify(who.address, subject, body, root=notify.thread(ctx, board),
                                      kind="note", attachments=((pgn.filename(board), record),)))
        sent.append(name)
    return sent


def _dismiss(ctx: Context, board: Board, arbiter: str, appellant: str) -> None:
    """Dismiss `appellant`'s appeal, named: an arbiter dismisses the appeal they read, never one
    lodged before they were an arbiter and so never sent to them."""
    if not admin.is_admin(ctx, arbiter):
        raise CommandError(_("{user} is not an arbiter of this server: only the arbiters may dismiss "
                             "an appeal.").format(user=arbiter))
    closed = appeals.close(ctx.db, board, appeals.DISMISSED, arbiter, ctx.now, appellant)
    if not closed:
        raise CommandError(_("There is no open appeal of {user} on {title} Board {number}.").format(
            user=appellant, title=board.title, number=board.number))
    games.add_event(ctx.db, board, "dismiss", arbiter, ", ".join(closed), ctx.now)
    _tell(ctx, board, list(board.players), lambda: _(
        "Arbiter {arbiter} dismissed the appeal of {users} against the ruling on {title} Board "
        "{number}: the result stands ({outcome}).").format(
        arbiter=arbiter, users=", ".join(closed), title=board.title, number=board.number,
        outcome=notify.outcome(board)))
    ctx.out.append(notify.answer(ctx, board, _("The appeal on {title} Board {number} is dismissed; "
                                               "both players have been told.").format(
        title=board.title, number=board.number)))


def _tell(ctx: Context, board: Board, users: list[str], line) -> None:
    """A short note about the game to each of `users`, in their language."""
    for user, who in accounts.readers(ctx.db, users).items():
        if who.address is None:
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            body = compose.render("note.j2", lines=[line()])
            ctx.out.append(compose.notify(who.address, notify.subject(board), body,
                                          root=notify.thread(ctx, board), kind="note"))
