"""The SQLite database: the connection pbm uses, and one way to write to it (pbm.model.store opens
and migrates it).

Every write happens inside `transaction(db)`, which takes the write lock up front (BEGIN IMMEDIATE),
so a busy database shows up at the start of the work as `sqlite3.OperationalError: database is
locked` after the busy timeout, never half-way through.  WAL with synchronous=FULL makes a commit
durable before COMMIT returns: that is the moment `pbm deliver` may exit 0 and `pbm serve` may say
250.

What pbm knows it wrote is kept beside the database: each transaction of a database opened with a
`Witness` counts itself in the one-row table `commits`, and once committed writes the schema version
and the count to `data_dir/written`.  A database behind that file lost commits (its `-wal` file,
say, lost before a checkpoint): pbm.model.store refuses it rather than answer from it.
"""
from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

DB_NAME = "pbm.sqlite3"
WRITTEN_NAME = "written"            # in the data folder: "schema VERSION commit COUNT"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Witness:
    """Where the count of commits is written after each commit, and the schema version with it."""
    path: Path
    version: int

    def write(self, count: int) -> None:
        """After a commit, outside the lock: concurrent writers may leave a lower count than the
        database's, never a higher one.  Failing to write it costs the check, not the commit."""
        part = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(f"schema {self.version} commit {count}\n")
            os.replace(part, self.path)
        except OSError as e:
            log.warning("cannot note the commit in %s: %s", self.path, e)


class Database:
    """A connection to the server's database, with the few conveniences pbm uses.

    A thin layer over the standard sqlite3 module: a message needs only `execute`, `query` (rows as
    dicts) and `executescript`, and importing sqlite-utils cost 50 ms of every `pbm deliver`
    process, a quarter of its time.  sqlite-utils serves where that does not count: migrations
    that rebuild a table (pbm.model.rebuild) and `pbm export`."""

    def __init__(self, conn: sqlite3.Connection, witness: Witness | None = None):
        self.conn = conn
        self.witness = witness

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
        if db.witness is not None:
            count = db.conn.execute("UPDATE commits SET n = n + 1 RETURNING n").fetchone()[0]
        db.conn.execute("COMMIT")
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    if db.witness is not None:
        db.witness.write(count)


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
