"""The SQLite database: opening it safely, migrating it, and one way to write to it.

Every write happens inside `transaction(db)`, which takes the write lock up front (BEGIN IMMEDIATE),
so a busy database shows up at the start of the work as `sqlite3.OperationalError: database is
locked` after the busy timeout, never half-way through.  WAL with synchronous=FULL makes a commit
durable before COMMIT returns: that is the moment `pbm deliver` may exit 0 and `pbm serve` may say
250.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone

from pbm.config import Config
from pbm.model.schema import MIGRATIONS

DB_NAME = "pbm.sqlite3"


class Database:
    """A connection to the server's database, with the few conveniences pbm uses.

    A thin layer over the standard sqlite3 module, not sqlite-utils: pbm needs `execute`, `query`
    (rows as dicts) and `executescript`, and importing sqlite-utils cost 50 ms of every `pbm
    deliver` process, a quarter of its time (issue 15)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def execute(self, sql: str, parameters: Sequence[object] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    def executescript(self, script: str) -> None:
        """Run the statements of `script` one by one, inside the open transaction (sqlite3's own
        executescript would commit it first)."""
        start = 0
        for end, char in enumerate(script, start=1):
            if char == ";" and sqlite3.complete_statement(script[start:end]):
                self.conn.execute(script[start:end])
                start = end

    def query(self, sql: str, parameters: Sequence[object] = ()) -> Iterator[dict]:
        """The rows of `sql` as dicts, column name to value."""
        cursor = self.conn.execute(sql, parameters)
        names = [column[0] for column in cursor.description]
        for row in cursor:
            yield dict(zip(names, row))

    def close(self) -> None:
        self.conn.close()


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer pbm; running an older one could damage it."""


def open_db(config: Config) -> Database:
    """Open (creating and migrating if needed) the database in the configured data directory."""
    data_dir = config.storage.data_dir
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
    _migrate(db)
    return db


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK if the block raises.  Does not nest."""
    if db.conn.in_transaction:
        raise RuntimeError("transaction() does not nest; a transaction is already open")
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.conn.execute("COMMIT")
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise


def schema_version(db: Database) -> int:
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone():
        return 0
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return row[0] or 0


def timestamp(moment: datetime) -> str:
    """A UTC time as fixed-width text, so that times stored in the database sort and compare."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%fZ")


def parse_timestamp(text: str) -> datetime:
    """The inverse of `timestamp`.  fromisoformat reads that format (with its Z) fifty times faster
    than strptime, and the outbox parses one for every reply it sends."""
    return datetime.fromisoformat(text)


def _migrate(db: Database) -> None:
    if schema_version(db) == len(MIGRATIONS):
        return                          # the usual case: no write lock needed
    with transaction(db):
        version = schema_version(db)    # again, under the lock: another process may have migrated
        if version > len(MIGRATIONS):
            raise SchemaTooNew(f"database schema version {version} is newer than this pbm "
                               f"({len(MIGRATIONS)}); upgrade pbm")
        if version == 0:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version "
                       "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            db.executescript(script)
            db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                       [number, timestamp(datetime.now(timezone.utc))])
