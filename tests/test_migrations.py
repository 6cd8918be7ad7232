"""Migrations: SQL text, or a function that rebuilds a table through sqlite-utils, applied in one
transaction when the database is opened, with the foreign keys checked before the commit."""
from __future__ import annotations

import sqlite3

import pytest

from pbm.config import load_config
from pbm.model import schema, store
from pbm.model.db import schema_version, transaction
from pbm.model.rebuild import rebuild


@pytest.fixture
def config(tmp_path):
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    return load_config(tmp_path / "pbm.toml")


def test_a_rebuild_keeps_the_rows_and_indexes_and_makes_its_change(config):
    db = store.open_db(config)
    with transaction(db):
        db.execute("INSERT INTO users (id, password, created_at) VALUES ('alice', 'x', 't')")
        db.execute("INSERT INTO addresses (address, user_id, position) VALUES ('a@example.org', 'alice', 0)")
    indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                            "AND tbl_name = 'addresses' AND sql IS NOT NULL")}
    db.execute("PRAGMA foreign_keys=OFF")           # as the migrations run (pbm.model.store)
    with transaction(db):
        rebuild(db, "users", defaults={"created_at": "never"})
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("INSERT INTO users (id, password) VALUES ('bob', 'y')")      # the new default
    assert db.execute("SELECT id, created_at FROM users ORDER BY id").fetchall() == [
        ("alice", "t"), ("bob", "never")]
    assert indexes == {row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'addresses' AND sql IS NOT NULL")}
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_function_migration_runs_once_and_sqlite_utils_is_loaded_only_then(config, monkeypatch):
    store.open_db(config).close()
    ran = []

    def add_nickname(db):
        ran.append(True)
        db.execute("ALTER TABLE users ADD COLUMN nickname TEXT")
        rebuild(db, "users", not_null={"nickname"}, defaults={"nickname": ""})

    monkeypatch.setattr(store, "MIGRATIONS", [*schema.MIGRATIONS, add_nickname])
    db = store.open_db(config)
    assert schema_version(db) == len(schema.MIGRATIONS) + 1 and ran == [True]
    store.open_db(config).close()
    assert ran == [True]                                 # applied once
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO users (id, password, created_at, nickname) VALUES ('c', 'x', 't', NULL)")
    assert db.execute("PRAGMA foreign_keys").fetchone() == (1,)


def test_a_migration_that_breaks_a_foreign_key_is_rolled_back(config, monkeypatch):
    db = store.open_db(config)
    with transaction(db):
        db.execute("INSERT INTO users (id, password, created_at) VALUES ('alice', 'x', 't')")
        db.execute("INSERT INTO addresses (address, user_id, position) VALUES ('a@example.org', 'alice', 0)")
    version = schema_version(db)
    db.close()

    def lose_alice(db):
        rebuild(db, "users", drop={"closed_at"})
        db.execute("DELETE FROM users")

    monkeypatch.setattr(store, "MIGRATIONS", [*schema.MIGRATIONS, lose_alice])
    with pytest.raises(sqlite3.IntegrityError, match="foreign keys"):
        store.open_db(config)
    monkeypatch.setattr(store, "MIGRATIONS", schema.MIGRATIONS)
    db = store.open_db(config)
    assert schema_version(db) == version
    assert db.execute("SELECT id FROM users").fetchall() == [("alice",)]


def test_migration_6_redacts_every_message_stored_before(config):
    """A database at version 5 (a real one: the first five migrations), holding a raw message with
    a password, comes out of the upgrade with the message redacted and a `sealed` column."""
    config.storage.data_dir.mkdir(mode=0o700)
    conn = sqlite3.connect(config.storage.data_dir / "pbm.sqlite3", isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for number, migration in enumerate(schema.MIGRATIONS[:5], start=1):
        conn.executescript(migration)
        conn.execute("INSERT INTO schema_version VALUES (?, 't')", [number])
    raw = b"From: a@example.org\r\nSubject: change password alice Sw0rdfish Hunter22\r\n\r\nxiangqi move 101 alice Sw0rdfish h3e3\r\n"
    conn.execute("INSERT INTO inbound (dedup_key, received_at, size, raw, status) "
                 "VALUES ('k', 't', 1, ?, 'failed')", [raw])
    conn.close()
    db = store.open_db(config)
    [(kept, redacted, sealed)] = db.execute("SELECT raw, redacted, sealed FROM inbound").fetchall()
    assert b"Sw0rdfish" not in kept and b"Hunter22" not in kept and (redacted, sealed) == (1, None)
    assert b"From: a@example.org" in kept and schema_version(db) == len(schema.MIGRATIONS)
