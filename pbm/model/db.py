"""The SQLite database: the connection pbm uses, and one way to write to it (pbm.model.store opens
and migrates it).

Every write happens inside `transaction(db)`, which takes the write lock up front (BEGIN IMMEDIATE),
so a busy database shows up at the start of the work as `sqlite3.OperationalError: database is
locked` after the busy timeout, never half-way through.  WAL with synchronous=FULL makes a commit
durable before COMMIT returns: that is the moment `pbm deliver` may exit 0 and `pbm serve` may say
250.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone

DB_NAME = "pbm.sqlite3"


class Database:
    """A connection to the server's database, with the few conveniences pbm uses.

    A thin layer over the standard sqlite3 module: a message needs only `execute`, `query` (rows as
    dicts) and `executescript`, and importing sqlite-utils cost 50 ms of every `pbm deliver`
    process, a quarter of its time.  sqlite-utils serves where that does not count: migrations
    that rebuild a table (pbm.model.rebuild) and `pbm export`."""

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
