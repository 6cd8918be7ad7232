"""Damage found before it spreads, and space kept in reserve.

A database page overwritten with noise goes unseen by SQLite until a statement reads it; meanwhile
new moves are committed into a damaged file.  `pbm serve` therefore runs SQLite's `PRAGMA
quick_check` (confirmed by `integrity_check`) when it starts and every `[storage] check_minutes`, and on damage stops taking mail
(451) and tells `[admins] notify`.  `pbm deliver` meets damage itself only when it reads a bad page
(SQLITE_CORRUPT or SQLITE_NOTADB, then transient for the MTA, and logged in one line); so that it
does not commit into a file found damaged, the check leaves a marker file (`data_dir/damaged`, one
line) that every intake honours, and removes it once the file is whole again.

The reserve is Postfix's `queue_minfree`: below `[storage] reserve_mb` of free space in the data
directory new mail is refused (452 / exit 75) before the disk is full, so that what is already
taken can still be answered and the timers still run.
"""
from __future__ import annotations

import shutil
import sqlite3

from pbm.config import Config
from pbm.model.db import DB_NAME

_DAMAGE = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


class Damaged(Exception):
    """The database file is damaged, or is not a pbm database: the text says which and what to do."""


def damage(error: BaseException) -> bool:
    """Whether an exception is SQLite finding a damaged or foreign file."""
    return isinstance(error, sqlite3.DatabaseError) and getattr(error, "sqlite_errorcode", None) in _DAMAGE


def quick_check(config: Config) -> str | None:
    """What SQLite finds wrong with the database file (its first lines), or None if it is whole.
    On a connection of its own, so that the pages are read from the file, not from a cache that
    another connection filled before the damage."""
    conn = sqlite3.connect(config.data_dir / DB_NAME, timeout=config.storage.busy_timeout)
    try:
        return checked(conn)
    finally:
        conn.close()


def checked(conn: sqlite3.Connection) -> str | None:
    """The damage SQLite finds in a database (its first lines), or None.  `quick_check` is fast,
    but Debian 12's SQLite (3.40.1) reported NOT NULL columns of whole WITHOUT ROWID tables as NULL
    in it; what it finds is damage only if `integrity_check`, the full check, finds damage too, and
    then in its words."""
    try:
        for pragma in ("quick_check(5)", "integrity_check(5)"):
            found = [row[0] for row in conn.execute(f"PRAGMA {pragma}")]
            if found == ["ok"]:
                return None
    except sqlite3.DatabaseError as e:
        if not damage(e):
            raise
        return str(e)
    return "; ".join(" ".join(line.split()) for line in found)


MARKER = "damaged"


def mark(config: Config, problem: str | None) -> None:
    """Leave the marker (damage found) or take it away (`problem` None: the file is whole)."""
    path = config.data_dir / MARKER
    if problem is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(advice(config, problem) + "\n")


def marked(config: Config) -> str | None:
    """What the last check found, while its marker is there."""
    try:
        return (config.data_dir / MARKER).read_text().strip()
    except FileNotFoundError:
        return None


def advice(config: Config, problem: str, refusing: bool = True) -> str:
    """One line for the operator: what is wrong and what to do (`refusing`: mail waits meanwhile)."""
    waits = "; mail is refused with a temporary error until it is restored" if refusing else ""
    return (f"the database {config.data_dir / DB_NAME} is damaged or not a pbm database "
            f"({problem}){waits} (pbm backup copies, Litestream replicas: see docs/operating.md)")


def short_of_space(config: Config) -> str | None:
    """Why new mail must wait for space (free space in the data directory under the reserve), or
    None."""
    reserve = config.storage.reserve_mb * 1024 * 1024
    if reserve <= 0:
        return None
    free = shutil.disk_usage(config.data_dir).free
    if free >= reserve:
        return None
    return (f"only {free // 1024} KB free in {config.data_dir}, under the reserve of "
            f"{config.storage.reserve_mb} MB ([storage] reserve_mb)")
