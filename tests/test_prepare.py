"""What is done for a message before the write lock, and what the writer keeps between messages:
`intake.prepare` (passwords checked ahead, and taken on the word of the process that checked them)
and the games remembered for the next `Board.replay()`.  In-process, on a real SQLite file."""
from __future__ import annotations

import hashlib
from email import policy

import pytest
from support.postoffice import PASSWORDS, SERVER, PostOffice

from pbm import intake
from pbm.model.play import games
from pbm.model.players import accounts
from pbm.runners.preparers import Preparers

pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


@pytest.fixture
def scrypt_calls(monkeypatch) -> list[int]:
    """Counts the scrypt computations (the real function still runs)."""
    calls: list[int] = []
    real = hashlib.scrypt

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(hashlib, "scrypt", counted)
    return calls


def arrival_of(post: PostOffice, subject: str, sender: str = "alice@example.org") -> intake.Arrival:
    raw = post.message(subject, sender=sender).as_bytes(policy=policy.SMTP)
    return intake.prepare(post.db, post.config, intake.Delivery(raw, sender, (SERVER,)))


def stored_hash(post: PostOffice, user: str) -> str:
    return post.db.execute("SELECT password FROM users WHERE id = ?", [user]).fetchone()[0]


def test_a_password_checked_elsewhere_is_not_checked_again(post, scrypt_calls) -> None:
    """An SMTP process of `pbm serve` prepares the message; the main process (here: a forgotten
    cache) commits it without computing scrypt inside its write transaction."""
    arrival = arrival_of(post, f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
    assert arrival.checked == ((PASSWORDS["alice"], stored_hash(post, "alice"), True),)
    accounts._verified.clear()
    scrypt_calls.clear()

    [result] = intake.accept_many(post.db, post.config, [arrival], post.now)

    assert result.status == "processed"
    assert scrypt_calls == []
    assert post.db.execute("SELECT move FROM moves").fetchall() == [("h3e3",)]


def test_a_wrong_password_is_passed_on_as_wrong_and_not_checked_again(post, scrypt_calls) -> None:
    """Nor is a wrong password checked with scrypt inside the write transaction."""
    arrival = arrival_of(post, "xiangqi move 101 alice WRONG-pw h3e3")
    assert arrival.checked == (("WRONG-pw", stored_hash(post, "alice"), False),)
    accounts._rejected.clear()
    scrypt_calls.clear()
    [result] = intake.accept_many(post.db, post.config, [arrival], post.now)
    assert result.status == "processed"
    assert scrypt_calls == []
    assert post.db.execute("SELECT count(*) FROM moves").fetchone() == (0,)


def test_preparers_use_a_thread_only_for_scrypt(post, scrypt_calls) -> None:
    """`pbm serve` prepares a message whose password was found right before at once (a thread cost
    more than the preparing); a password to check with scrypt is checked in a thread."""
    def delivery(password: str) -> intake.Delivery:
        raw = post.message(f"xiangqi move 101 alice {password} h3e3").as_bytes(policy=policy.SMTP)
        return intake.Delivery(raw, "alice@example.org", (SERVER,))
    right = ((PASSWORDS["alice"], stored_hash(post, "alice"), True),)
    accounts._verified.clear()
    scrypt_calls.clear()
    preparers = Preparers(post.config)
    try:
        assert preparers.prepare(delivery(PASSWORDS["alice"])).result(timeout=60).checked == right
        assert scrypt_calls == [1]
        again = preparers.prepare(delivery(PASSWORDS["alice"]))
        assert again.done() and again.result().checked == right
        wrong = preparers.prepare(delivery("WRONG-pw")).result(timeout=60).checked
        assert wrong == (("WRONG-pw", stored_hash(post, "alice"), False),)
        assert scrypt_calls == [1, 1]
    finally:
        preparers.stop()


def test_automatic_mail_is_not_prepared(post, scrypt_calls) -> None:
    raw = post.message(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3",
                       Auto_Submitted="auto-replied").as_bytes(policy=policy.SMTP)
    accounts._verified.clear()
    arrival = intake.prepare(post.db, post.config, intake.Delivery(raw, "alice@example.org", (SERVER,)))
    assert (arrival.automatic, arrival.message, arrival.checked) == ("Auto-Submitted: auto-replied", None, ())
    assert scrypt_calls == []


def test_a_remembered_game_is_handed_out_once(post) -> None:
    post.move(101, "alice", "h3e3")
    board = games.load(post.db, "xiangqi", 101)
    game = board.replay()
    games.remember(board, game)
    assert board.replay() is game
    again = board.replay()
    assert again is not game and again.fen() == game.fen() and again.moves == ["h3e3"]


def test_a_remembered_game_that_no_longer_matches_is_replayed(post) -> None:
    """As after a command that played a move and was rolled back."""
    post.move(101, "alice", "h3e3")
    board = games.load(post.db, "xiangqi", 101)
    ahead = board.replay()
    ahead.play("h8e8")
    games.remember(board, ahead)
    game = board.replay()
    assert game is not ahead and game.moves == ["h3e3"]


def test_moves_use_the_remembered_game(post) -> None:
    """The game a move leaves is the one the next move starts from, and it is the stored game."""
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h8e8")
    board = games.load(post.db, "xiangqi", 101)
    kept = board.replay()
    fresh = board.replay()
    assert kept is not fresh
    assert (kept.moves, kept.notation, kept.fen()) == (fresh.moves, fresh.notation, fresh.fen())
