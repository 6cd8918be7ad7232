"""How reliably a player moves (`GAME player USERID`): their time-outs of the last 12 months, and the
mean time they took per move over their last 100 moves -- with vacations left out, and without
the moves played for them from a queue or conditional moves, which take no time.  A tournament may
let in only players with at most so many time-outs (`--max-timeouts=N`)."""
from __future__ import annotations

from datetime import datetime, timedelta

from pbm.model.db import Database, parse_timestamp, timestamp

YEAR = timedelta(days=365)
MOVES = 100


def timeouts(db: Database, user: str, now: datetime) -> int:
    """The user's time-outs in the 12 months before `now`."""
    return db.execute("SELECT count(*) FROM events WHERE kind = 'timeout' AND user_id = ? AND at >= ?",
                      [user, timestamp(now - YEAR)]).fetchone()[0]


def days_per_move(db: Database, user: str) -> tuple[float, int] | None:
    """The mean days the user took over their last 100 moves (vacation days left out), and how
    many moves that is; None before their first timed move."""
    rows = db.execute(
        "SELECT p.played_at, m.played_at FROM moves m JOIN games g ON g.id = m.game_id JOIN moves p "
        "ON p.game_id = m.game_id AND p.ply = m.ply - 1 WHERE m.auto = 0 AND ((g.player1 = ? AND "
        "m.ply % 2 = 1) OR (g.player2 = ? AND m.ply % 2 = 0)) ORDER BY m.played_at DESC LIMIT ?",
        [user, user, MOVES]).fetchall()
    if not rows:
        return None
    away = [(parse_timestamp(start), parse_timestamp(end)) for start, end in db.execute(
        "SELECT started_at, coalesce(ended_at, ends_at) FROM vacations WHERE user_id = ?", [user])]
    total = timedelta(0)
    for began, moved in rows:
        began, moved = parse_timestamp(began), parse_timestamp(moved)
        spent = moved - began
        for start, end in away:
            spent -= max(min(end, moved) - max(start, began), timedelta(0))
        total += max(spent, timedelta(0))
    return total / timedelta(days=1) / len(rows), len(rows)


def max_timeouts(db: Database, tournament_id: int) -> int | None:
    """The most time-outs a year an entrant of the tournament may have; None: no limit."""
    return db.execute("SELECT max_timeouts FROM tournaments WHERE id = ?", [tournament_id]).fetchone()[0]


def require(db: Database, tournament_id: int, most: int) -> None:
    db.execute("UPDATE tournaments SET max_timeouts = ? WHERE id = ?", [most, tournament_id])
