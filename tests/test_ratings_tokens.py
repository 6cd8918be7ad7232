"""Elo arithmetic, provisional ratings and reply tokens, on a real SQLite file."""
from __future__ import annotations

import pytest
from support.postoffice import PostOffice

from pbm.model.players import ratings, tokens

GAME = 1                                # the game every rating change here is recorded for


@pytest.fixture
def db(tmp_path):
    office = PostOffice(tmp_path)
    for user in ("ann", "ben", "cid"):
        office.db.execute("INSERT INTO users (id, password, created_at) VALUES (?, 'x', 'now')", [user])
    office.db.execute("INSERT INTO games (id, variant, board, player1, player2, start_fen, rated, status, "
                      "created_at, updated_at) VALUES (?, 'xiangqi', 101, 'ann', 'ben', '', 1, 'finished', "
                      "'now', 'now')", [GAME])
    return office.db


def test_expected_score_is_symmetric():
    assert ratings.expected(1600, 1600) == 0.5
    assert ratings.expected(2000, 1600) == pytest.approx(10 / 11)
    assert ratings.expected(1700, 1500) + ratings.expected(1500, 1700) == pytest.approx(1.0)


def test_first_game_moves_both_by_half_k(db):
    ratings.record(db, "xiangqi", "ann", "ben", 1.0, GAME, "2024-03-01T12:00:00Z")
    assert ratings.get(db, "xiangqi", "ann").rating == 1616
    assert ratings.get(db, "xiangqi", "ben").rating == 1584
    ratings.record(db, "xiangqi", "ann", "ben", 0.5, GAME, "2024-03-01T12:00:00Z")
    ann = ratings.get(db, "xiangqi", "ann")
    assert (ann.games, ann.wins, ann.draws, ann.losses) == (2, 1, 1, 0)
    assert ann.rating == pytest.approx(1616 + 32 * (0.5 - ratings.expected(1616, 1584)))


def test_an_established_player_moves_half_as_much_against_a_provisional_one(db):
    db.execute("INSERT INTO ratings VALUES ('xiangqi', 'ann', 1800, 40, 20, 10, 10)")
    assert not ratings.get(db, "xiangqi", "ann").provisional
    assert ratings.get(db, "xiangqi", "ben").provisional
    ratings.record(db, "xiangqi", "ben", "ann", 1.0, GAME, "2024-03-01T12:00:00Z")        # the newcomer beats the established player
    loss = 32 * ratings.expected(1800, 1600)
    assert ratings.get(db, "xiangqi", "ann").rating == pytest.approx(1800 - loss / 2)
    assert ratings.get(db, "xiangqi", "ben").rating == pytest.approx(1600 + loss)


def test_provisional_ends_after_twenty_games(db):
    for _ in range(ratings.PROVISIONAL_GAMES):
        ratings.record(db, "xiangqi", "ann", "cid", 0.5, GAME, "2024-03-01T12:00:00Z")
    assert not ratings.get(db, "xiangqi", "ann").provisional
    assert [r.user_id for r in ratings.standings(db, "xiangqi")] == ["ann", "cid"]
    assert ratings.standings(db, "janggi") == []


def test_tokens_verify_and_resist_forgery():
    token = tokens.make(b"secret", "xiangqi", 101, "alice")
    assert token.startswith("xiangqi-101-alice-") and len(token.rsplit("-", 1)[1]) == tokens.MAC_LENGTH
    assert tokens.check(b"secret", token) == ("xiangqi", 101, "alice")
    assert tokens.check(b"secret", token.upper()) == ("xiangqi", 101, "alice")
    assert tokens.check(b"other secret", token) is None
    assert tokens.check(b"secret", token.replace("alice", "bob")) is None
    assert tokens.check(b"secret", token.replace("101", "102")) is None
    assert tokens.check(b"secret", "garbage") is None
    assert tokens.reply_address("pbm@host.example", token) == f"pbm+{token}@host.example"
