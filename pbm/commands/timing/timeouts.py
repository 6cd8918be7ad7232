"""A player's time running out, whoever finds it first: the timers (pbm.commands.timing.timers), or a
move that arrives after it (pbm.commands.games.play) -- which is then not played, so that a server whose
timers have not run yet never lets a late move count.

Both rule alike: with `autoleave=on` and a whole vacation day left in the year the time ran out
in, a leave day is spent instead (the player's clocks all get a day; both players are told), as
often as days are left; then the player loses on time -- or draws, when the opponent could not win
any more (no piece that can reach the king, as the dead-position rule says).

Decision: a leave day gives a day to every game in which it is the player's move when it is spent
(their clocks stand for that day), not to a game whose turn comes during it.
"""
from __future__ import annotations

from datetime import timedelta

from pbm.commands.games import turns
from pbm.commands.mails import notify
from pbm.commands.timing import away, clocks
from pbm.commands.base import Context
from pbm import i18n
from pbm.i18n import _, lazy
from pbm.model.play import games
from pbm.model.players import accounts, vacations
from pbm.model.db import parse_timestamp, timestamp
from pbm.model.play.games import Board

DAY = timedelta(days=1)


def settle(ctx: Context, board: Board, late: str | None = None) -> bool:
    """Rule on the time of the player to move of `board` as at `ctx.now`: spend leave days while
    the deadline has passed and days are left, then time the player out.  `late`: the move that
    arrived after the time ran out (its headline says it was not played).  True if the game ended."""
    while board.status == games.ACTIVE and board.deadline and parse_timestamp(board.deadline) <= ctx.now:
        if not _leave_day(ctx, board):
            _time_out(ctx, board, late)
            return True
    return False


def _leave_day(ctx: Context, board: Board) -> bool:
    """Spend a leave day of the player to move, if they want that and have one; True if spent."""
    user = board.to_move
    ran_out = parse_timestamp(board.deadline)
    if accounts.preferences(ctx.db, user).get("autoleave") != "on":
        return False
    left = ctx.config.server.vacation_days - vacations.days_taken(ctx.db, user, ran_out)
    if left < 1:
        return False
    vacations.spend_leave_day(ctx.db, user, ran_out)
    for other in games.listing(ctx.db, None, [user], "next", away.ALL_GAMES):
        running = board if other.id == board.id else other
        if running.deadline:
            running.deadline = timestamp(parse_timestamp(running.deadline) + DAY)
            running.remind_at = running.remind_at and timestamp(parse_timestamp(running.remind_at) + DAY)
            games.save(ctx.db, running, ctx.now)
    until, days = board.deadline[:16], left - 1
    for reader in board.players:
        away.tell(ctx, board, reader, lambda: _(
            "{user}'s time ran out on {title} Board {number} at {time} UTC, and one of their "
            "vacation days was spent instead of the game (autoleave): their clocks run again "
            "until {until} UTC. Vacation days left this year: {left}.").format(
            user=user, title=board.title, number=board.number, time=timestamp(ran_out)[:16],
            until=until, left=f"{days:g}"))
    return True


def _time_out(ctx: Context, board: Board, late: str | None) -> None:
    """The player to move has run out of time: they lose -- unless their opponent could not win."""
    loser = board.to_move
    opponent = board.opponent(loser)
    ran_out = board.deadline[:16]
    game = board.replay()
    games.add_event(ctx.db, board, "timeout", loser, "", ctx.now)
    timeout = board.options.get("timeout")
    if game.could_win(board.turn_of(opponent)):
        with i18n.speaking("en"):       # stored in English, shown in each reader's words (wording)
            limit = clocks.days(timeout) if timeout else ""
        turns.finish(ctx, board, opponent, f"{loser} did not move within {limit}"
                     if timeout else f"{loser} ran out of time")
        headline = [lazy(lambda: _("{user} has lost on time: the limit is {rule}.").format(
            user=loser, rule=clocks.rule(board)))]
    else:
        turns.finish(ctx, board, None, f"{loser} ran out of time, and {opponent} could not win")
        headline = [lazy(lambda: _("{user} has run out of time, but {opponent} has no piece left "
                                   "that could win, so the game is drawn.").format(
            user=loser, opponent=opponent))]
    if late is not None:
        arrived = timestamp(ctx.now)[:16]
        headline.append(lazy(lambda: _("The time ran out at {deadline} UTC, and the move {move} "
                                       "arrived at {time} UTC, after it: it was not played.").format(
            deadline=ran_out, move=late, time=arrived)))
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, game, actor=None, headline=headline)

