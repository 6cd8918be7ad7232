"""The server's heartbeats and the outages found between them.

`pbm serve` (each timer run, every minute) and each `pbm timers` run record a heartbeat.  A gap
between two heartbeats longer than `[clocks] outage_after` is an outage: nobody could have been
told anything, so every clock that ran during it gets the time back (pbm.commands.timing.outages).
"""
from __future__ import annotations

from datetime import datetime

from pbm.model.db import Database, parse_timestamp, timestamp


def beat(db: Database, name: str, now: datetime) -> datetime | None:
    """Record the heartbeat `name` at `now`; returns the one before (None: the first)."""
    previous = last(db, name)
    if previous is None or now > previous:
        db.execute("INSERT INTO heartbeats (name, at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET "
                   "at = excluded.at", [name, timestamp(now)])
    return previous


def last(db: Database, name: str) -> datetime | None:
    """When the heartbeat `name` was last recorded (None: never)."""
    row = db.execute("SELECT at FROM heartbeats WHERE name = ?", [name]).fetchone()
    return parse_timestamp(row[0]) if row else None


def record_outage(db: Database, started: datetime, ended: datetime) -> int:
    return db.execute("INSERT INTO outages (started_at, ended_at) VALUES (?, ?)",
                      [timestamp(started), timestamp(ended)]).lastrowid


def credit(db: Database, game_id: int, user: str, seconds: float, outage_id: int) -> None:
    """Note that `user`, to move in the game, got `seconds` back, for the game's next board mail."""
    db.execute("INSERT INTO outage_credits (game_id, user_id, seconds, outage_id) VALUES (?, ?, ?, ?) "
               "ON CONFLICT (game_id) DO UPDATE SET user_id = excluded.user_id, seconds = CASE WHEN "
               "user_id = excluded.user_id THEN seconds ELSE 0 END + excluded.seconds, outage_id = "
               "excluded.outage_id", [game_id, user, seconds, outage_id])


def take_credit(db: Database, game_id: int) -> tuple[str, float, str, str] | None:
    """The credit not yet told of a game (who got it, how many seconds, and when the last outage
    began and ended), which is then forgotten; None if there is none."""
    row = db.execute("SELECT c.user_id, c.seconds, o.started_at, o.ended_at FROM outage_credits c "
                     "JOIN outages o "
                     "ON o.id = c.outage_id WHERE c.game_id = ?", [game_id]).fetchone()
    if row is not None:
        db.execute("DELETE FROM outage_credits WHERE game_id = ?", [game_id])
    return row


def last_outage(db: Database) -> tuple[str, str] | None:
    """When the last outage began and ended."""
    return db.execute("SELECT started_at, ended_at FROM outages ORDER BY id DESC LIMIT 1").fetchone()
