"""`pbm backup FILE`: a consistent copy of the database while the server runs.

SQLite's online backup API (Python's `Connection.backup`) copies the pages as one read
transaction sees them: in WAL mode writers go on meanwhile, and the copy is the database as of one
commit.  It is written next to FILE, checked (pbm.upkeep.health), synced and renamed into place, mode
0600 (it holds password hashes), and set to the rollback journal: one file, whole by itself.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pbm.model.db import Database
from pbm.upkeep import health


def backup(db: Database, dest: Path) -> int:
    """Copy `db` to `dest`; returns its size in bytes.  Raises sqlite3.DatabaseError if the copy
    fails its check (`dest` is then left as it was)."""
    part = dest.with_name(dest.name + ".part")
    part.unlink(missing_ok=True)
    os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        copy = sqlite3.connect(part, isolation_level=None)
        try:
            db.conn.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
            problem = health.checked(copy)
            if problem:
                raise sqlite3.DatabaseError(f"the copy fails its check: {problem}")
        finally:
            copy.close()
        with open(part, "rb") as f:
            os.fsync(f.fileno())
        os.replace(part, dest)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    directory = os.open(dest.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return dest.stat().st_size
