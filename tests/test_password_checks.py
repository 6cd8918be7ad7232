"""A password found right is remembered across processes for a short while, so that each
`pbm deliver` does not pay scrypt again -- by a keyed hash, never the password, and never for a
wrong password (each wrong one costs scrypt and counts for the guessing limit)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from support.postoffice import PASSWORDS, text

from pbm.model.players import accounts


def new_process() -> None:
    """What a new `pbm deliver` process knows: nothing of the passwords checked before."""
    accounts._verified.clear()
    accounts._rejected.clear()


pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


@pytest.fixture(autouse=True)
def count_scrypt(post, monkeypatch):
    """`post.scrypt_runs`: how often scrypt ran (the real function still runs)."""
    post.scrypt_runs = 0
    real = accounts._scrypt_check

    def counted(password, stored):
        post.scrypt_runs += 1
        return real(password, stored)
    monkeypatch.setattr(accounts, "_scrypt_check", counted)


def test_a_right_password_is_checked_once_across_processes(post):
    new_process()
    post.move(101, "alice", "h3e3")
    assert post.scrypt_runs == 1
    [(key, _)] = post.db.execute("SELECT key, expires_at FROM password_checks").fetchall()
    assert PASSWORDS["alice"] not in key and len(key) == 64
    new_process()
    post.move(101, "bob", "h10g8")
    new_process()
    post.move(101, "alice", "h1g3")                     # alice again, in a "new process"
    assert post.scrypt_runs == 2                         # alice once, bob once
    post.now += accounts.CHECK_TTL + timedelta(seconds=1)
    new_process()
    post.move(101, "bob", "i10h10")
    assert post.scrypt_runs == 3                         # bob's check has lapsed


def test_wrong_passwords_and_changed_ones_are_never_taken_from_it(post):
    new_process()
    post.move(101, "alice", "h3e3")
    for _ in range(2):
        new_process()
        [error] = post.send("xiangqi move 101 bob Wrong-pass1 h10g8", sender="bob@example.org")
        assert "Invalid password" in text(error)
    assert post.scrypt_runs == 3                         # each wrong one cost scrypt
    post.send(f"change password alice {PASSWORDS['alice']} N3w-secret-pw")
    new_process()
    [error] = post.send(f"xiangqi show 101 alice {PASSWORDS['alice']}")     # no password: no check
    runs = post.scrypt_runs
    new_process()
    mails = post.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h1g3")
    assert "Invalid password" in text(mails[0]) and post.scrypt_runs == runs + 1
