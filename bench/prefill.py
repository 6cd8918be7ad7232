"""bench/mail_load.py --prefill: a database that holds many finished games, as one that grew to
that size over time would."""
from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path


def prefill(db_path: Path, count: int) -> None:
    """Copy the first finished game `count` times, with every row that refers to it by foreign key."""
    db = sqlite3.connect(db_path, isolation_level=None)
    template = db.execute("SELECT id FROM games WHERE status = 'finished' ORDER BY id LIMIT 1").fetchone()
    if template is None:
        raise SystemExit("prefill needs one finished game")
    max_id, max_number = db.execute("SELECT max(id), max(board) FROM games").fetchone()
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    db.execute("BEGIN")
    db.execute("CREATE TEMP TABLE seq AS WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
               "FROM s WHERE n < ?) SELECT n FROM s", [count])
    # Each copy is dated in the past (the n-th, two days and 5n minutes ago), as a game that grew the
    # database over time was: copies dated today would count as today's challenges against the
    # run's own (pbm.commands.accounts.flood).
    past = "strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || (2880 + 5 * seq.n) || ' minutes') || '000Z'"
    dated = {column: past for column in ("created_at", "updated_at", "finished_at", "accepted_at")}
    _copy(db, "games", "id", template[0],
          {"id": f"{max_id} + seq.n", "board": f"{max_number} + seq.n", **dated})
    for table in tables:
        for fk in db.execute(f"PRAGMA foreign_key_list({table})").fetchall():
            if fk[2] == "games" and table != "games":
                _copy(db, table, fk[3], template[0], {fk[3]: f"{max_id} + seq.n"})
    _timed(db, "COMMIT")
    _timed(db, "ANALYZE")
    # Into the database file now, as a server that grew to this size over time would have it: left
    # in the write-ahead log, the copies would be checkpointed while the benchmark runs.
    _timed(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _timed(db: sqlite3.Connection, statement: str) -> None:
    started = time.perf_counter()
    db.execute(statement)
    print(f"prefill: {statement} in {time.perf_counter() - started:.1f}s", file=sys.stderr)


def _copy(db: sqlite3.Connection, table: str, key: str, template: int, replaced: dict[str, str]) -> None:
    columns = db.execute(f"PRAGMA table_info({table})").fetchall()
    keys = [c for c in columns if c[5]]
    rowid = keys[0][1] if len(keys) == 1 and keys[0][2].upper() == "INTEGER" else None
    names = [c[1] for c in columns if c[1] != rowid or c[1] in replaced]   # new rows, new rowids
    values = [replaced.get(name, f"t.{name}") for name in names]
    started = time.perf_counter()
    copied = db.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(values)} "
                        f"FROM {table} AS t, seq WHERE t.{key} = ?", [template]).rowcount
    print(f"prefill: {copied} rows into {table} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
