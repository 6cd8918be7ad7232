"""The server's database opened for use: created safely, and migrated to this pbm's schema."""
from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timezone

from pbm.config import Config
from pbm.model.db import DB_NAME, WRITTEN_NAME, Database, Witness, schema_version, timestamp, transaction
from pbm.model.schema import MIGRATIONS


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer pbm; running an older one could damage it."""


class DatabaseLost(RuntimeError):
    """The database is missing or empty where pbm's data already is: it must be restored, not made
    anew (a new one would answer every player "not registered", and the MTA would not retry)."""


def lost(config: Config) -> str | None:
    """Why the database must be restored rather than created (one line), or None: it is there, or
    the data folder holds nothing of pbm's (a first run)."""
    path = config.data_dir / DB_NAME
    state = "missing" if not path.exists() else "empty (0 bytes)" if path.stat().st_size == 0 else None
    if state is None:
        return None
    found = [str(p) for p in (config.data_dir / "secret", config.outbox_maildir,
                              path.with_name(DB_NAME + "-wal"), config.data_dir / WRITTEN_NAME)
             if p.exists()]
    if not found:
        return None
    return (f"the database {path} is {state}, but pbm's data is there ({', '.join(found)}): restore "
            f"the database from a backup (pbm backup copies, Litestream replicas: see "
            f"docs/operating.md); pbm makes a new one only in a data folder holding nothing of its own")


def behind(config: Config, db: Database) -> str | None:
    """Why the database must be restored rather than used (one line): it holds fewer commits, or
    an older schema, than pbm noted in `data_dir/written` after its last commit (pbm.model.db.Witness);
    or None.  Without the note (a first run, or pbm before it kept one) nothing is known."""
    note = config.data_dir / WRITTEN_NAME
    try:
        words = note.read_text().split()
        noted_version, noted = int(words[1]), int(words[3])
    except (FileNotFoundError, IndexError, ValueError):
        return None
    version = schema_version(db)
    counted = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'commits'").fetchone()
    count = db.execute("SELECT n FROM commits").fetchone()[0] if counted else 0
    if version >= noted_version and count >= noted:
        return None
    return (f"the database {config.data_dir / DB_NAME} is behind what pbm wrote to it: it holds "
            f"{count} of {noted} commits, schema version {version} of {noted_version} ({note}); "
            f"its -wal file was lost before a checkpoint, or an older copy replaced it: put that "
            f"-wal file back, or restore the newest backup (pbm backup copies, Litestream replicas: "
            f"see docs/operating.md) and then remove {note}")


def open_db(config: Config) -> Database:
    """Open (creating and migrating if needed) the database in the configured data directory;
    DatabaseLost if it is missing or empty where it existed (`lost`), or lost commits (`behind`)."""
    data_dir = config.storage.data_dir
    problem = lost(config)
    if problem:
        raise DatabaseLost(problem)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Created 0600 whatever the umask (it holds password hashes); SQLite gives its -wal and -shm
    # files the database file's mode.  Only when it does not exist: closing a descriptor of the
    # file would drop the POSIX locks every connection of this process holds on it.
    try:
        os.close(os.open(data_dir / DB_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    # isolation_level=None: no implicit transactions; `transaction()` says where they are.
    conn = sqlite3.connect(data_dir / DB_NAME, timeout=config.storage.busy_timeout, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    db = Database(conn)
    problem = behind(config, db)
    if problem:
        db.close()
        raise DatabaseLost(problem)
    _migrate(db)
    db.witness = Witness(data_dir / WRITTEN_NAME, len(MIGRATIONS))
    return db


def open_reader(config: Config) -> Database:
    """The database opened read-only (the web pages): a WAL reader never blocks the one writer,
    and nothing done through it can write."""
    uri = (config.storage.data_dir / DB_NAME).resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=config.storage.busy_timeout, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA query_only=ON")
    return Database(conn)


def _migrate(db: Database) -> None:
    if schema_version(db) == len(MIGRATIONS):
        return                          # the usual case: no write lock needed
    # A rebuilt table is dropped and made again: foreign keys are off meanwhile (they cannot be
    # switched inside a transaction), and checked before the commit, as SQLite's procedure says.
    db.execute("PRAGMA foreign_keys=OFF")
    try:
        with transaction(db):
            version = schema_version(db)    # again, under the lock: another process may have migrated
            if version > len(MIGRATIONS):
                raise SchemaTooNew(f"database schema version {version} is newer than this pbm "
                                   f"({len(MIGRATIONS)}); upgrade pbm")
            if version == 0:
                db.execute("CREATE TABLE IF NOT EXISTS schema_version "
                           "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
            for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
                if isinstance(migration, str):
                    db.executescript(migration)
                else:
                    migration(db)
                db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                           [number, timestamp(datetime.now(timezone.utc))])
            broken = db.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise sqlite3.IntegrityError(f"a migration broke {len(broken)} foreign keys: {broken[:3]}")
    finally:
        db.execute("PRAGMA foreign_keys=ON")
