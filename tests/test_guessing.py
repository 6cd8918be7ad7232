"""Password guessing by mail is limited, on the post office's clock: no sleeping."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat

from pbm.model.players import accounts

pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


def guess(post: PostOffice, password: str, sender: str = "mallory@example.org", user: str = "alice"):
    return post.send(f"xiangqi move 101 {user} {password} h3e3", sender=sender)


def test_after_five_wrong_passwords_guesses_are_recorded_but_not_answered(post):
    for attempt in range(4):
        [error] = guess(post, f"guess{attempt}")
        assert "Invalid password for alice" in flat(error) and "too many" not in flat(error)
    [error] = guess(post, "guess4")
    assert "too many wrong passwords for alice or from your address" in flat(error)
    assert "refused, unanswered, until 2024-03-01 12:1" in flat(error)      # 15 minutes on
    assert "password reset alice" in flat(error)
    assert guess(post, "guess5") == []                  # recorded, not answered ...
    assert guess(post, PASSWORDS["alice"]) == []        # ... nor a right one, which is not counted
    assert post.db.execute("SELECT count(*) FROM moves").fetchone() == (0,)
    count = post.db.execute("SELECT count(*) FROM inbound WHERE status = 'processed'").fetchone()[0]
    assert count == 3 + 7                               # every message recorded once

    # a From is forged at no cost: the lock holds for alice's own address too ...
    assert post.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3", sender="alice@example.org") == []


@pytest.mark.post_office("alice", "bob")
def test_a_locked_player_still_plays_by_reply_and_gets_in_by_reset(post):
    board_mail = post.send("xiangqi challenge alice bob")[0]
    for attempt in range(6):
        guess(post, f"guess{attempt}", sender="alice@example.org")     # forged From: alice's own
    assert guess(post, PASSWORDS["alice"], sender="alice@example.org") == []
    [mail, _] = post.reply(board_mail, "h3e3")          # the token proves the mailbox
    assert mail["Subject"] == "Xiangqi Board 101 bob"
    [coded] = post.send("password reset alice", sender="alice@example.org")
    code = flat(coded).split("password set alice ")[1].split()[0]
    [done] = post.send(f"password set alice {code} Fresh-pass9", sender="alice@example.org")
    assert "has been changed" in flat(done)


def test_one_multiple_mail_of_guesses_stops_at_the_limit(post):
    lines = [f"change address alice guess{i}x mallory@evil.example" for i in range(49)]
    lines.append(f"change address alice {PASSWORDS['alice']} mallory@evil.example")
    mails = post.send("multiple", "\n".join(lines), sender="alice@example.org")
    assert accounts.addresses(post.db, "alice") == ["alice@example.org"]
    [mail] = mails                                      # the 5 failures up to the limit, then silence
    assert mail["Subject"] == "pbm test: the answers to your 5 commands"
    assert post.db.execute("SELECT count(*) FROM password_failures WHERE subject = 'user:alice'"
                           ).fetchone()[0] == 49      # the right password, sent during the lock, is not counted


def test_wrong_reply_tokens_are_limited_like_passwords(post):
    forged = "pbm+xiangqi-101-alice-aaaaaaaa@" + post.config.server.address.split("@")[1]
    answered = [post.send("h3e3", to=forged, sender="mallory@example.org") for _ in range(8)]
    assert [len(mails) for mails in answered] == [1] * 5 + [0] * 3


@pytest.mark.post_office("alice", "bob", challenge=True, answers_per_day=100)    # mallory: no player
def test_the_lock_doubles_with_each_failure_beyond_the_limit_and_ends(post):
    for attempt in range(5):
        guess(post, f"guess{attempt}")
    post.tick(16 / 1440)                                # 16 minutes: the 15-minute lock is over
    [error] = guess(post, "guess5")                     # the sixth failure locks for 30 minutes
    assert "until 2024-03-01 12:46" in flat(error)
    post.tick(20 / 1440)
    assert guess(post, "guess6") == []                  # still locked: unanswered
    post.tick(2)                                        # a day later the failures are forgotten
    [error] = guess(post, "guess7")
    assert "Invalid password for alice" in flat(error) and "too many" not in flat(error)


def test_the_limit_counts_per_sender_across_user_ids(post):
    for attempt, user in enumerate(["alice", "bob", "alice", "bob", "carol"]):
        guess(post, f"guess{attempt}", user=user)
    assert guess(post, PASSWORDS["bob"], user="bob") == []      # mallory's address is locked
    [mail, _] = post.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3", sender="alice@example.org")
    assert mail["Subject"] == "Xiangqi Board 101 bob"


def test_wrong_passwords_are_never_checked_with_scrypt_inside_the_transaction(post, monkeypatch):
    """intake checks them before the write transaction (pbm.commands.precheck.precheck_passwords)."""
    inside = []
    real = accounts._scrypt_check
    monkeypatch.setattr(accounts, "_scrypt_check",
                        lambda *a: inside.append(post.db.conn.in_transaction) or real(*a))
    guess(post, "another-guess")
    assert inside == [False]

