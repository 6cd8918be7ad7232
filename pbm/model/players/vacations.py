"""Vacations: a player away stops every clock of theirs for up to the days they asked for, within a
yearly allowance (`[server] vacation_days`, counted per calendar year, UTC, by the days actually
taken: a vacation called off early gives the rest back).

This module keeps the record; pbm.commands.timing.away stops and restarts the clocks.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm import i18n
from pbm.i18n import _
from pbm.model.db import Database, parse_timestamp, timestamp


@dataclass(frozen=True)
class Vacation:
    """One of a player's vacations: while it runs, their clocks stand."""
    id: int
    user_id: str
    started_at: datetime
    ends_at: datetime


def running(db: Database, user: str) -> Vacation | None:
    """The user's vacation that has not ended (timers end it at `ends_at`), if any."""
    row = db.execute("SELECT id, user_id, started_at, ends_at FROM vacations WHERE user_id = ? AND "
                     "ended_at IS NULL ORDER BY id DESC LIMIT 1", [user]).fetchone()
    return _vacation(row) if row else None


def due(db: Database, now: datetime, limit: int) -> list[Vacation]:
    """Running vacations whose time is up."""
    return [_vacation(row) for row in db.execute(
        "SELECT id, user_id, started_at, ends_at FROM vacations WHERE ended_at IS NULL AND ends_at <= ? "
        "ORDER BY ends_at LIMIT ?", [timestamp(now), limit])]


def days_taken(db: Database, user: str, now: datetime) -> float:
    """Vacation days this calendar year: those taken, and the rest of a running vacation's."""
    year = timestamp(now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0))
    taken = 0.0
    for started, ends, ended in db.execute(
            "SELECT started_at, ends_at, ended_at FROM vacations WHERE user_id = ? AND started_at >= ?",
            [user, year]):
        taken += (parse_timestamp(ended or ends) - parse_timestamp(started)) / timedelta(days=1)
    return taken


def start(db: Database, user: str, now: datetime, days: float) -> Vacation:
    cursor = db.execute("INSERT INTO vacations (user_id, started_at, ends_at) VALUES (?, ?, ?)",
                        [user, timestamp(now), timestamp(now + timedelta(days=days))])
    return Vacation(cursor.lastrowid, user, now, now + timedelta(days=days))


def spend_leave_day(db: Database, user: str, start: datetime) -> None:
    """Record a leave day autoleave spent from `start` (pbm.commands.timing.timeouts): a vacation of one
    day, over as soon as it is recorded, that counts against the year's allowance."""
    end = timestamp(start + timedelta(days=1))
    db.execute("INSERT INTO vacations (user_id, started_at, ends_at, ended_at, automatic) "
               "VALUES (?, ?, ?, ?, 1)", [user, timestamp(start), end, end])


def end(db: Database, vacation: Vacation, now: datetime) -> None:
    db.execute("UPDATE vacations SET ended_at = ? WHERE id = ?",
               [timestamp(min(now, vacation.ends_at)), vacation.id])


def describe(db: Database, user: str) -> str:
    """`bob is on vacation until 2026-12-03 18:00 UTC; their clock is stopped.`, or ""."""
    away = running(db, user)
    return "" if away is None else line(away)


def line(away: Vacation) -> i18n.LazyProxy:
    """Who is away until when, in the language of each mail it is shown in (pbm.i18n.lazy)."""
    return i18n.lazy(lambda: _("{user} is on vacation until {time} UTC; their clock is stopped.").format(
        user=away.user_id, time=timestamp(away.ends_at)[:16]))


def _vacation(row: tuple) -> Vacation:
    return Vacation(row[0], row[1], parse_timestamp(row[2]), parse_timestamp(row[3]))
