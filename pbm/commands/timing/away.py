"""`vacation USERID PASSWORD DAYS|off`: a player away stops every clock of theirs (pbm.model.players.vacations keeps
the record and the yearly allowance).

Decisions: a new `vacation` while one runs replaces it (its days so far count, the rest are given
back); a vacation is 1 day at the least; a clock stopped when the player's turn came during the
vacation starts again with the whole time limit, one stopped mid-turn with the time that was left;
the opponents of every running game are told when it begins, and the player when it ends.
"""
from __future__ import annotations

from collections.abc import Callable

from pbm.commands.games import turns
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, authenticate
from pbm.commands.parse import Request
from pbm.i18n import _, ngettext
from pbm.model.play import games
from pbm.model.players import accounts, vacations
from pbm.model.db import timestamp
from pbm.outbox import compose

MIN_DAYS = 1.0
ALL_GAMES = 1000                        # running games of one player: far more than anyone plays


def vacation(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    word = req.args[2].lower()
    current = vacations.running(ctx.db, user)
    if word == "off":
        if current is None:
            raise CommandError(_("{user} is not on vacation.").format(user=user))
        ctx.answer(_("{server}: vacation over").format(server=ctx.config.server.name), "account.j2",
                   lines=come_back(ctx, current))
        return
    allowance = ctx.config.server.vacation_days
    try:
        days = float(word)
    except ValueError:
        raise CommandError(_("DAYS is a number of days, for example: {command} (or off, to come "
                             "back early).").format(command=f"vacation {user} PASSWORD 10")) from None
    if current is not None:
        vacations.end(ctx.db, current, ctx.now)
    left = allowance - vacations.days_taken(ctx.db, user, ctx.now)
    if not MIN_DAYS <= days <= left:
        raise CommandError(ngettext(
            "A vacation is {min} day at the least, and {user} has {left} of this year's {allowance} "
            "day left.", "A vacation is {min} day at the least, and {user} has {left} of this year's "
            "{allowance} days left.", allowance).format(
            min=compose.number(MIN_DAYS), user=user, left=compose.number(max(left, 0)),
            allowance=compose.number(allowance)))
    away = vacations.start(ctx.db, user, ctx.now, days)
    until = timestamp(away.ends_at)[:16]
    stopped = []
    for board in games.listing(ctx.db, None, [user], "active", ALL_GAMES):
        if board.to_move == user:
            turns.pause(ctx, board)
            games.save(ctx.db, board, ctx.now)
            stopped.append(f"{board.title} Board {board.number}")
        tell(ctx, board, board.opponent(user), lambda: _(
            "{user} is on vacation until {time} UTC; their clock is stopped, and runs again when "
            "they come back.").format(user=user, time=until))
    ctx.answer(_("{server}: vacation").format(server=ctx.config.server.name), "account.j2", lines=[
        _("{user} is on vacation until {time} UTC.").format(user=user, time=until),
        _("Vacation days left this year after it: {left} of {allowance}.").format(
            allowance=compose.number(allowance), left=compose.number(left - days)),
        _("Clocks stopped now: {boards}.").format(boards=", ".join(stopped)) if stopped
        else _("Your clock stops whenever it becomes your turn until then."),
        _("To come back early, send: {command}").format(command=f"vacation {user} PASSWORD off")])


def come_back(ctx: Context, away: vacations.Vacation) -> list[str]:
    """End a vacation (called off, or its time is up): the player's stopped clocks run again.
    Returns the lines that tell the player so."""
    vacations.end(ctx.db, away, ctx.now)
    user = away.user_id
    running = []
    for board in games.listing(ctx.db, None, [user], "next", ALL_GAMES):
        turns.resume(ctx, board)
        games.save(ctx.db, board, ctx.now)
        deadline = (" " + _("(move by {time} UTC)").format(time=board.deadline[:16])
                    if board.deadline else "")
        running.append(f"{board.title} Board {board.number}{deadline}")
    return [_("{user}'s vacation is over: your clocks run again.").format(user=user),
            _("Your move on: {boards}.").format(boards=", ".join(running)) if running
            else _("It is not your move anywhere.")]


def ended(ctx: Context, away: vacations.Vacation) -> None:
    """A vacation whose time is up (the timers): over, and the player told."""
    address = accounts.mail_address(ctx.db, away.user_id)
    with notify.speaking_to(ctx, away.user_id):
        lines = come_back(ctx, away)
        if address:
            ctx.out.append(compose.notify(address, _("{server}: vacation over").format(
                server=ctx.config.server.name), compose.render("account.j2", lines=lines)))


def tell(ctx: Context, board: games.Board, user: str, line: Callable[[], str]) -> None:
    """Mail `user` the note `line()` about `board`, written in their language."""
    address = accounts.mail_address(ctx.db, user)
    if address:
        with notify.speaking_to(ctx, user):
            ctx.out.append(compose.notify(address, notify.subject(board),
                                          compose.render("note.j2", lines=[line()]),
                                          root=notify.thread(ctx, board), kind="note"))
