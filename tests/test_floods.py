"""The limits on challenges (pbm.commands.accounts.flood), on the post office's clock."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, flat


@pytest.mark.post_office("alice", "bob", "carol")
def test_one_mail_of_fifty_challenges_makes_three_games_and_one_refusal(post):
    mails = post.send("multiple", "\n".join(["xiangqi challenge alice bob"] * 50))
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (3,)
    assert len([m for m in mails if m["To"] == "bob@example.org"]) == 3
    [answers] = [m for m in mails if m["To"] == "alice@example.org"]     # one mail collects them
    assert flat(answers).count("Only the first 3 challenges of a mail are carried out") == 1
    [refused] = post.send("xiangqi challenge alice bob")      # three pending to bob already
    assert "already has 3 challenges to bob that bob has not taken up" in flat(refused)
    assert post.send("xiangqi challenge alice carol")[0]["Subject"].startswith("New Xiangqi Board")


@pytest.mark.post_office("alice", "bob", "carol")
def test_accept_and_reject_answer_every_pending_challenge_at_once(post):
    post.send("multiple", "xiangqi challenge alice bob\nxiangqi challenge alice bob")
    post.send("xiangqi challenge carol bob", sender="carol@example.org")
    mails = post.send(f"xiangqi accept bob {PASSWORDS['bob']}", sender="bob@example.org")
    assert post.db.execute("SELECT count(*) FROM games WHERE accepted_at IS NOT NULL").fetchone() == (3,)
    assert sum("has taken up" in flat(m) for m in mails) == 6        # both players of 3 games
    [none] = post.send(f"xiangqi accept bob {PASSWORDS['bob']}", sender="bob@example.org")
    assert "No challenge of Xiangqi to bob is waiting" in flat(none)
    post.send("xiangqi challenge alice bob")
    post.send(f"xiangqi reject bob {PASSWORDS['bob']}", sender="bob@example.org")
    assert post.db.execute("SELECT status FROM games ORDER BY id DESC LIMIT 1").fetchone() == ("declined",)


@pytest.mark.post_office("alice", "bob", "carol")
def test_a_limit_on_running_games_refuses_challenges_past_it(post):
    [set_it] = post.send(f"xiangqi limit bob {PASSWORDS['bob']} 1", sender="bob@example.org")
    assert "bob now plays at most 1 running game of Xiangqi at once" in flat(set_it)
    post.send("xiangqi challenge alice bob")
    [refused] = post.send("xiangqi challenge carol bob", sender="carol@example.org")
    assert "bob plays at most 1 running game of Xiangqi at once (GAME limit), and has 1" in flat(refused)
    assert post.send("janggi challenge carol bob", sender="carol@example.org")[0]["Subject"].startswith("New")
    post.send(f"xiangqi limit bob {PASSWORDS['bob']} off", sender="bob@example.org")
    assert post.send("xiangqi challenge carol bob", sender="carol@example.org")[0]["Subject"].startswith("New")
