"""Reply tokens (the ratings are tested in tests/test_ratings.py)."""
from __future__ import annotations

from pbm.model.players import tokens


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
