"""GAME player USERID: rating with its last changes, results by opponent, games running."""
from __future__ import annotations

from support.postoffice import PASSWORDS, PostOffice, text


def test_a_profile_after_a_won_game_and_with_one_running(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob", "carol")
    post.challenge()
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    post.send(f"xiangqi resign 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    post.challenge("carol", "alice")
    [profile] = post.send("xiangqi player alice", sender="carol@example.org")
    assert profile["Subject"] == "Xiangqi player alice"
    body = text(profile)
    assert "Rating: 1741? ±793 after 1 rated game (1 won, 0 drawn, 0 lost)" in body
    assert "Board 101 against bob              1500 -> 1741 (+241)" in body
    assert "  bob              1 won, 0 drawn, 0 lost" in body
    assert "  102  carol - alice" in body and "carol to move" in body
    [other] = post.send("xiangqi player bob")
    assert "1259? ±793 after 1 rated game (0 won, 0 drawn, 1 lost)" in text(other)
    [none] = post.send("janggi player alice")
    assert "No rated games finished yet." in text(none) and "No games in progress." in text(none)
    [error] = post.send("xiangqi player nobody")
    assert "There is no user nobody here" in text(error)


def test_player_through_pbm_deliver(pbm_env):
    pbm_env.mail(f"signup alice {PASSWORDS['alice']}")
    pbm_env.replies()
    pbm_env.mail("xiangqi player alice", sender="stranger@example.org")
    [profile] = pbm_env.replies()
    assert profile["To"] == "stranger@example.org" and "Rating: 1500? ±1000" in text(profile)
