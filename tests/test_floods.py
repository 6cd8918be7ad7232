"""The limits on challenges (pbm.commands.flood), on the post office's clock."""
from __future__ import annotations

import pytest
from support.postoffice import flat


@pytest.mark.post_office("alice", "bob", "carol")
def test_one_mail_of_fifty_challenges_makes_three_games_and_one_refusal(post):
    mails = post.send("multiple", "\n".join(["xiangqi challenge alice bob"] * 50))
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (3,)
    assert len([m for m in mails if m["To"] == "bob@example.org"]) == 3
    [refusal] = [m for m in mails if "error" in m["Subject"]]
    assert "Only the first 3 challenges of a mail are carried out" in flat(refusal)
    [refused] = post.send("xiangqi challenge alice bob")      # three pending to bob already
    assert "already has 3 challenges to bob that bob has not taken up" in flat(refused)
    assert post.send("xiangqi challenge alice carol")[0]["Subject"].startswith("New Xiangqi Board")
