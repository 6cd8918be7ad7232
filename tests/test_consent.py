"""A challenge costs the challenged player nothing before they consent: anyone who can
forge a player's From can start a game, so the challenged player's clock runs, and the game is
rated, only from their first move or setup choice; an untaken challenge lapses; time limits have a
floor; an operator can require the challenger's password."""
from __future__ import annotations

import re

import pytest
from support.postoffice import PASSWORDS, PostOffice, by_recipient, flat, text

from pbm.model.players import ratings

pytestmark = pytest.mark.post_office("alice", "bob", "carol")


def player(user: str) -> str:
    return f"{user}@example.org"



def test_a_forged_challenge_with_a_tiny_time_limit_costs_the_challenged_player_nothing(post):
    [error] = post.send("xiangqi challenge --timeout=0.0001 alice bob", sender=player("alice"))
    assert "--timeout=0.0001 is shorter than this server allows" in flat(error)
    assert "at least 1 day (--timeout=1)" in flat(error)
    # mallory forges alice's From and makes bob (player1) move first with a one-day limit
    mails = by_recipient(post.send("xiangqi challenge --timeout=1 bob alice", sender=player("alice")))
    board = int(mails[player("bob")]["Subject"].split()[3])
    assert "It counts for bob only from their first move: until then their clock does not run" \
        in flat(mails[player("bob")])
    assert "If bob does not move by 2024-03-15 12:00 UTC, the challenge lapses." in flat(mails[player("bob")])
    assert post.db.execute("SELECT deadline FROM games").fetchone() == (None,)
    for _ in range(13):                         # reminders, but never a loss on time
        for mail in post.tick(1):
            assert mail["To"] == player("bob") and "lose on time" not in flat(mail)
    assert post.db.execute("SELECT status FROM games").fetchone() == ("active",)
    mails = by_recipient(post.tick(1.1))
    assert set(mails) == {player("alice"), player("bob")}
    for mail in mails.values():
        assert "alice's challenge has lapsed: bob did not make a first move within 14 days" in flat(mail)
        assert "does not count" in flat(mail)
    assert post.db.execute("SELECT status, result, winner FROM games").fetchone() == ("cancelled", "*", None)
    assert ratings.get(post.db, "xiangqi", "bob").games == 0
    [error] = post.move(board, "bob", "h3e3")
    assert "is over (cancelled: bob did not take up the challenge within 14 days)" in flat(error)
    assert post.tick(30) == []


def test_the_challenged_players_first_move_is_consent_and_starts_both_clocks_and_the_rating(post):
    board = post.challenge(extra="--timeout=2")
    assert post.db.execute("SELECT deadline IS NOT NULL FROM games").fetchone() == (1,)  # alice's runs
    post.move(board, "alice", "h3e3")
    assert post.db.execute("SELECT deadline, expires_at FROM games").fetchone()[0] is None
    post.move(board, "bob", "h10g8")
    assert post.db.execute("SELECT deadline IS NOT NULL, expires_at, accepted_at IS NOT NULL "
                           "FROM games").fetchone() == (1, None, 1)
    post.move(board, "alice", "h1g3")
    mails = by_recipient(post.tick(2.1))        # bob's clock now runs: he loses on time, rated
    assert "bob did not move within 2 days" in flat(mails[player("alice")])
    assert ratings.get(post.db, "xiangqi", "alice").rating > ratings.START.rating
    assert post.tick(20) == []                  # no lapse after consent


def test_before_consent_a_resignation_by_either_player_ends_the_game_without_a_result(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    mails = by_recipient(post.move(board, "alice", "resign"))    # the challenger withdraws
    assert "alice has withdrawn the challenge; the game does not count." in flat(mails[player("bob")])
    assert post.db.execute("SELECT status, result FROM games").fetchone() == ("declined", "*")
    board = post.challenge("carol", "bob")
    mails = by_recipient(post.move(board, "bob", "resign"))      # the challenged player declines
    assert "bob has declined the challenge" in flat(mails[player("carol")])
    assert ratings.get(post.db, "xiangqi", "alice").games == ratings.get(post.db, "xiangqi", "bob").games == 0


def test_after_consent_a_challenger_resigning_loses_a_rated_game(post):
    [mail, _] = post.send("xiangqi challenge bob alice", sender=player("alice"))   # bob moves first
    board = int(mail["Subject"].split()[3])
    post.send(f"xiangqi move {board} bob {PASSWORDS['bob']} h3e3", sender=player("bob"))
    mails = by_recipient(post.move(board, "alice", "resign"))
    assert "alice has resigned" in flat(mails[player("bob")])
    assert ratings.get(post.db, "xiangqi", "bob").wins == 1


def test_a_setup_choice_is_consent(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    [mail, _] = post.send("janggi challenge --timeout=3 alice bob", sender=player("alice"))
    board = int(mail["Subject"].split()[3])
    post.send(f"janggi move {board} alice {PASSWORDS['alice']} a4a5", sender=player("alice"))
    assert post.db.execute("SELECT deadline, accepted_at FROM games").fetchone() == (None, None)
    mails = post.send(f"janggi setup {board} bob {PASSWORDS['bob']} outer", sender=player("bob"))
    assert "bob (Han) chose the setup outer" in flat(mails[0]), text(mails[0])
    deadline, accepted = post.db.execute("SELECT deadline, accepted_at FROM games").fetchone()
    assert deadline and accepted


def test_an_operator_can_require_the_challengers_password(tmp_path):
    post = PostOffice(tmp_path, challenge_needs_password=True)
    post.signup("alice", "bob")
    [error] = post.send("xiangqi challenge alice bob", sender=player("alice"))
    assert "This server needs the challenger's password in a challenge: xiangqi challenge alice bob " \
           "PASSWORD" in flat(error)
    [error] = post.send("xiangqi challenge alice bob guess1234", sender=player("alice"))
    assert "Invalid password for alice" in flat(error)
    assert re.search(r"xiangqi challenge alice bob \*{8}", text(error))
    mails = post.send(f"xiangqi challenge alice bob {PASSWORDS['alice']}", sender=player("alice"))
    assert mails[0]["Subject"] == "New Xiangqi Board 101 alice"
    post.assert_no_password_sent()
