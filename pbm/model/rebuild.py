"""A table rebuilt in a migration: the changes ALTER TABLE cannot make (a column's type, NOT NULL,
a CHECK, a foreign key), done by SQLite's documented twelve steps as sqlite-utils writes them.

sqlite-utils' `Table.transform_sql()` gives the statements (a new table, the rows copied, the old
one dropped, the new one renamed, its indexes made again); they run here inside the migration's
own transaction, which `Table.transform()` would commit half-way.  sqlite-utils is imported only
when such a migration runs: never on a message's path.
"""
from __future__ import annotations

from typing import Any

from pbm.model.db import Database


def rebuild(db: Database, table: str, **changes: Any) -> None:
    """Rebuild `table` with `changes` (the keyword arguments of sqlite-utils' Table.transform:
    types, rename, drop, not_null, defaults, column_order, add_foreign_keys, ...)."""
    import sqlite_utils

    for sql in sqlite_utils.Database(db.conn).table(table).transform_sql(**changes):
        db.execute(sql)
