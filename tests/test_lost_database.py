"""An emptied or missing database where pbm's data already is (the secret, the outbox) is an
error, not a new start (issue 29): `pbm deliver` exits 75 and answers nothing, `pbm serve` refuses
to start, each with one line, and `pbm doctor` says what to restore.  Real processes."""
from __future__ import annotations

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
