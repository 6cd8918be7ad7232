"""Outage credit: after a gap between heartbeats longer than `[clocks] outage_after`, every clock
that ran during it gets the gap back (pbm.model.server.heartbeats), and the player is told in the game's
next board mail.

Decisions: a turn that began during the gap (a move the server took while its timers stood) gets
only the part after it began; a stopped clock (vacation) and a clock not yet running get nothing,
since nothing ran; the challenge's lapse is not moved.
"""
from __future__ import annotations

from datetime import timedelta

from pbm.commands.timing import clocks
from pbm.commands.base import Context
from pbm.i18n import _, lazy
from pbm.model.server import heartbeats
from pbm.model.db import parse_timestamp, timestamp
from pbm.model.play.games import Board


def check(ctx: Context) -> None:
    """Record the timers' heartbeat at `ctx.now`; credit the gap since the last one if it was an
    outage."""
    previous = heartbeats.beat(ctx.db, "timers", ctx.now)
    if previous is None or ctx.now - previous <= timedelta(hours=ctx.config.clocks.outage_after):
        return
    outage = heartbeats.record_outage(ctx.db, previous, ctx.now)
    for game_id, user, deadline, remind_at in ctx.db.execute(
            "SELECT id, to_move, deadline, remind_at FROM games WHERE deadline IS NOT NULL").fetchall():
        [began] = ctx.db.execute("SELECT max(played_at) FROM moves WHERE game_id = ?",
                                 [game_id]).fetchone()
        gap = ctx.now - max(previous, parse_timestamp(began) if began else previous)
        if gap <= timedelta(0):
            continue
        ctx.db.execute("UPDATE games SET deadline = ?, remind_at = ? WHERE id = ?",
                       [timestamp(parse_timestamp(deadline) + gap),
                        remind_at and timestamp(parse_timestamp(remind_at) + gap), game_id])
        heartbeats.credit(ctx.db, game_id, user, gap.total_seconds(), outage)


def told(ctx: Context, board: Board) -> list:
    """The line of the game's next board mail about the time a player got back."""
    credit = heartbeats.take_credit(ctx.db, board.id)
    if credit is None:
        return []
    user, seconds, started, ended = credit
    return [lazy(lambda: _("The server was down from {start} to {end} UTC: {user}'s clock got {time} "
                           "back.").format(start=started[:16], end=ended[:16], user=user,
                                           time=clocks.span(timedelta(seconds=seconds))))]
