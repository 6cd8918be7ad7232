"""Seeks: open challenges that anyone signed up may take (`GAME seek`, `GAME accept-seek`).

One open seek per player and game: a new one replaces the old (the way to change or renew it).
A seek nobody took is withdrawn after `[server] seek_days`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm.model.db import Database, timestamp


@dataclass(frozen=True)
class Seek:
    id: int
    variant: str
    user_id: str
    params: dict
    options: dict
    rated: bool
    expires_at: str


_COLUMNS = "id, variant, user_id, params, options, rated, expires_at"


def post(db: Database, variant: str, user: str, params: dict, options: dict, rated: bool,
         now: datetime, days: float) -> tuple[Seek, bool]:
    """Open a seek; (it, whether it replaced an open one of the same player and game)."""
    replaced = db.execute("UPDATE seeks SET status = 'withdrawn' WHERE variant = ? AND user_id = ? AND "
                          "status = 'open'", [variant, user]).rowcount > 0
    cursor = db.execute(
        "INSERT INTO seeks (variant, user_id, params, options, rated, created_at, expires_at, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'open')",
        [variant, user, json.dumps(params), json.dumps(options), int(rated), timestamp(now),
         timestamp(now + timedelta(days=days))])
    return get(db, cursor.lastrowid), replaced


def get(db: Database, seek_id: int) -> Seek | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM seeks WHERE id = ?", [seek_id]).fetchone()
    return _seek(row) if row else None


def is_open(db: Database, seek: Seek, now: datetime) -> bool:
    row = db.execute("SELECT status FROM seeks WHERE id = ?", [seek.id]).fetchone()
    return row[0] == "open" and seek.expires_at > timestamp(now)


def open_seeks(db: Database, variant: str, now: datetime, limit: int) -> list[Seek]:
    return [_seek(row) for row in db.execute(
        f"SELECT {_COLUMNS} FROM seeks WHERE variant = ? AND status = 'open' AND expires_at > ? "
        "ORDER BY id LIMIT ?", [variant, timestamp(now), limit])]


def take(db: Database, seek: Seek, game_id: int) -> None:
    db.execute("UPDATE seeks SET status = 'taken', game_id = ? WHERE id = ?", [game_id, seek.id])


def lapse(db: Database, now: datetime, limit: int) -> list[Seek]:
    """Mark the open seeks whose time is up as expired; returns them."""
    due = [_seek(row) for row in db.execute(
        f"SELECT {_COLUMNS} FROM seeks WHERE status = 'open' AND expires_at <= ? ORDER BY expires_at "
        "LIMIT ?", [timestamp(now), limit])]
    for seek in due:
        db.execute("UPDATE seeks SET status = 'expired' WHERE id = ?", [seek.id])
    return due


def terms(seek: Seek) -> str:
    """`-points --timeout=3 rated`: what the seek asks for, as a player would write it."""
    words = [f"-{k}" if v is True else f"-{k}={v}" for k, v in seek.params.items()]
    words += [f"--{k}={v:g}" if isinstance(v, float) else f"--{k}={v}" for k, v in seek.options.items()]
    return " ".join([*words, "rated" if seek.rated else "unrated"])


def _seek(row: tuple) -> Seek:
    return Seek(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]), bool(row[5]), row[6])
