"""The game timers: a player who lets the `--timeout` pass loses on time (pbm.commands.timing.timeouts); the player to move gets
one reminder per turn (see pbm.commands.games.turns for the defaults); a challenge not taken up within
`[server] challenge_days` lapses, without a result, and both players are told.

Each reads only the games whose time has come, through partial indexes on remind_at, deadline
and expires_at.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pbm import clock
from pbm.commands.timing import away as vacation
from pbm.commands.games import seeking, turns
from pbm.commands.mails import notify
from pbm.commands.timing import clocks, digest, outages, timeouts
from pbm.commands.base import Context
from pbm.config import Config
from pbm.i18n import _, lazy, ngettext, speaking
from pbm.mail.messages import Outgoing
from pbm.model.play import games
from pbm.model.players import accounts, guard, refusals, resets, vacations
from pbm.model.server import received
from pbm.model.db import Database, parse_timestamp, timestamp, transaction
from pbm.outbox import compose
from pbm.outbox.queue import purge_sent, queue

BATCH = 500     # games handled per run; the rest wait for the next run


def run_due(db: Database, config: Config) -> int:
    """Run the timers in one transaction of their own (`pbm timers`); returns the mails queued."""
    with transaction(db):
        return queue_due(db, config)


def queue_due(db: Database, config: Config) -> int:
    """The timers and the purge of old message bodies, received and sent (retention), inside the
    caller's transaction (`pbm serve` has its writer run this); returns the mails queued."""
    now = clock.now()
    received.purge(db, config, now)
    purge_sent(db, config, now)
    return len(queue(db, config, mails(db, config, now), now))


def mails(db: Database, config: Config, now: datetime) -> list[Outgoing]:
    """What the timers due at `now` have to say, without queueing it."""
    ctx = Context(db, config, None, now)
    run(ctx)
    ctx.settle()
    return ctx.out


def run(ctx: Context) -> None:
    now = timestamp(ctx.now)
    outages.check(ctx)                  # first: a clock that ran out during an outage gets it back
    guard.forget_old(ctx.db, ctx.now)
    resets.forget_old(ctx.db, ctx.now)
    refusals.forget_old(ctx.db, ctx.now - timedelta(days=1))
    accounts.forget_checks(ctx.db, ctx.now)
    for game_id, in ctx.db.execute("SELECT id FROM games WHERE deadline <= ? ORDER BY deadline LIMIT ?",
                                   [now, BATCH]).fetchall():
        timeouts.settle(ctx, games.get(ctx.db, game_id))
    for game_id, in ctx.db.execute("SELECT id FROM games WHERE expires_at <= ? ORDER BY expires_at "
                                   "LIMIT ?", [now, BATCH]).fetchall():
        _lapse(ctx, games.get(ctx.db, game_id))
    for game_id, in ctx.db.execute("SELECT id FROM games WHERE remind_at <= ? ORDER BY remind_at LIMIT ?",
                                   [now, BATCH]).fetchall():
        _remind(ctx, games.get(ctx.db, game_id))
    for away in vacations.due(ctx.db, ctx.now, BATCH):
        vacation.ended(ctx, away)
    seeking.expire(ctx, BATCH)
    digest.due(ctx)


def _lapse(ctx: Context, board: games.Board) -> None:
    challenged, days = board.challenged, ctx.config.server.challenge_days
    with speaking("en"):                # stored in English, shown in each reader's words (wording)
        within = clocks.days(days)
    turns.end_without_result(ctx, board, games.CANCELLED,
                             f"{challenged} did not take up the challenge within {within}")
    games.add_event(ctx.db, board, "lapsed", challenged, "", ctx.now)
    games.save(ctx.db, board, ctx.now)
    challenger = board.challenger
    notify.board_mails(ctx, board, board.replay(), actor=None, headline=[lazy(lambda: ngettext(
        "{challenger}'s challenge has lapsed: {user} did not make a first move within {days} day. "
        "The game is cancelled and does not count.",
        "{challenger}'s challenge has lapsed: {user} did not make a first move within {days} days. "
        "The game is cancelled and does not count.", days).format(
        challenger=challenger, user=challenged, days=compose.number(days)))])


def _remind(ctx: Context, board: games.Board) -> None:
    games.reminded(ctx.db, board)
    left = parse_timestamp(board.deadline) - ctx.now if board.deadline else None
    deadline = (board.deadline or "")[:16]

    def line() -> str:
        said = _("Reminder: it is your move on {title} Board {number}.").format(
            title=board.title, number=board.number)
        if left is None:
            return said
        return said + " " + _("You have {left} left: if you do not move by {time} UTC, you lose on "
                              "time.").format(left=clocks.span(left), time=deadline)
    notify.board_mails(ctx, board, board.replay(), actor=None, headline=[lazy(line)],
                       recipients=[board.to_move], reminder=True)
