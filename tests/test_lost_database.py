"""An emptied or missing database where pbm's data already is (the secret, the outbox) is an
error, not a new start (issue 29): `pbm deliver` exits 75 and answers nothing, `pbm serve` refuses
to start, each with one line, and `pbm doctor` says what to restore.  Real processes."""
from __future__ import annotations

import shutil
import sqlite3

import pytest

EX_DATAERR, EX_TEMPFAIL = 65, 75


@pytest.mark.parametrize("damage", ["emptied", "removed"])
def test_a_lost_database_is_not_replaced_by_a_new_one(pbm_env, damage):
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.replies()
    database = pbm_env.data_dir / "pbm.sqlite3"
    for extra in pbm_env.data_dir.glob("pbm.sqlite3-*"):    # as a disk fault or `> file` leaves it
        extra.unlink()
    if damage == "emptied":
        database.write_bytes(b"")
    else:
        database.unlink()

    result = pbm_env.deliver(pbm_env.message("xiangqi challenge alice bob"))
    assert result.returncode == EX_TEMPFAIL
    errors = [line for line in result.stderr.decode().splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "restore the database from a backup" in errors[0]
    assert pbm_env.replies() == []                                   # nothing answered
    assert (database.stat().st_size if damage == "emptied" else database.exists()) == 0  # nothing made

    serve = pbm_env.run("serve")
    assert serve.returncode == EX_DATAERR
    said = [line for line in serve.stderr.decode().splitlines() if line.startswith("pbm:")]
    assert len(said) == 1 and "restore the database from a backup" in said[0]

    doctor = pbm_env.run("doctor").stdout.decode()
    assert f"the database {database} is {'empty (0 bytes)' if damage == 'emptied' else 'missing'}" in doctor
    assert "restore the database from a backup" in doctor


def test_a_data_folder_with_nothing_of_pbms_is_set_up(pbm_env):
    assert not pbm_env.data_dir.exists()
    pbm_env.mail("signup alice Sw0rdfish")
    assert pbm_env.query("SELECT id FROM users") == [("alice",)]


def test_a_lost_wal_file_is_an_error_not_a_new_database(pbm_env):
    """The commits still in `pbm.sqlite3-wal` (no checkpoint yet) are pbm's data: without them the
    database is behind what pbm noted in `written`, and nothing answers from it until the file is
    back (issue 39, item 8)."""
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.replies()
    database, wal = pbm_env.data_dir / "pbm.sqlite3", pbm_env.data_dir / "pbm.sqlite3-wal"
    saved = wal.read_bytes()
    size = database.stat().st_size
    for extra in pbm_env.data_dir.glob("pbm.sqlite3-*"):    # as a bad copy or a cleaner leaves it
        extra.unlink()

    result = pbm_env.deliver(pbm_env.message("xiangqi show 101"))
    assert result.returncode == EX_TEMPFAIL
    errors = [line for line in result.stderr.decode().splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "is behind what pbm wrote to it" in errors[0], errors
    assert "put that -wal file back" in errors[0] and "Traceback" not in result.stderr.decode()
    assert pbm_env.replies() == [] and database.stat().st_size == size     # nothing made, no answer

    serve = pbm_env.run("serve")
    assert serve.returncode == EX_DATAERR
    said = [line for line in serve.stderr.decode().splitlines() if line.startswith("pbm:")]
    assert len(said) == 1 and "is behind what pbm wrote to it" in said[0]
    doctor = pbm_env.run("doctor")
    assert doctor.returncode == 1 and "restore the newest backup" in doctor.stdout.decode()

    wal.write_bytes(saved)                                  # the -wal file put back: all there
    pbm_env.mail("xiangqi show 101")
    [board] = pbm_env.replies()
    assert board["Subject"].startswith("Xiangqi Board 101")


def test_commits_lost_after_a_checkpoint_are_missed_too_and_a_restore_is_taken_once_said(pbm_env):
    pbm_env.mail("signup alice Sw0rdfish")
    assert pbm_env.run("backup", str(pbm_env.root / "copy.sqlite3")).returncode == 0
    database = pbm_env.data_dir / "pbm.sqlite3"
    db = sqlite3.connect(database)                          # the signup now in the file itself
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.replies()
    for extra in pbm_env.data_dir.glob("pbm.sqlite3-*"):
        extra.unlink()
    assert pbm_env.query("SELECT id FROM users") == [("alice",)]    # bob's signup is gone
    assert pbm_env.deliver(pbm_env.message("help")).returncode == EX_TEMPFAIL

    # the operator restores the backup, as docs/operating.md says: then pbm takes it
    shutil.copyfile(pbm_env.root / "copy.sqlite3", database)
    assert pbm_env.deliver(pbm_env.message("help")).returncode == EX_TEMPFAIL   # still behind
    (pbm_env.data_dir / "written").unlink()
    pbm_env.mail("help")
    assert pbm_env.query("SELECT id FROM users") == [("alice",)]
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    assert pbm_env.deliver(pbm_env.message("help")).returncode == 0
