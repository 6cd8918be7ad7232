"""Tournaments within bounds (issue 29): a 64-player round robin started by a real `pbm deliver`
writes a bounded amount in its one transaction, and its round mails carry the reader's own board and
a short standings table, not 64 crosstables; creation per week and the number of players capped."""
from __future__ import annotations

import re
import subprocess
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from support.postoffice import PostOffice, flat
from support.processes import PBM, pbm_environment

from pbm import intake

PLAYERS = 64


def send(post: PostOffice, subject: str, sender: str):
    message = post.message(subject, "", sender)
    intake.accept(post.db, post.config, message.as_bytes(policy=policy.SMTP), sender,
                  [post.config.server.address], now=post.now)
    post.now += timedelta(seconds=1)
    return post._new_mail()


@pytest.mark.slow
def test_a_64_player_round_robin_starts_in_one_bounded_transaction(tmp_path):
    post = PostOffice(tmp_path, log_level='"DEBUG"')
    send(post, "signup director Passw0rd99", "director@example.org")
    send(post, "xiangqi tournament create big --system=roundrobin director Passw0rd99", "director@example.org")
    for i in range(PLAYERS):
        send(post, f"signup p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
        send(post, f"xiangqi tournament join big p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
    message = post.message("xiangqi tournament start big director Passw0rd99", "", "director@example.org")
    done = subprocess.run([*PBM, "--config", str(tmp_path / "pbm.toml"), "deliver"], input=bytes(message),
                          capture_output=True, env=pbm_environment(PBM_NOW=post.now.isoformat()), timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    [(rows, ms)] = re.findall(r"transaction: (\d+) rows written in (\d+) ms", done.stderr.decode())
    print(f"64-player start: {rows} rows written in {ms} ms")          # the figure, for the record
    # per player: their frozen rating, their game mail and round mail, half a game with its event
    # and pairing (457 rows, 0.43 s here): linear in the players, no crosstable per mail
    assert int(rows) <= 8 * PLAYERS
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (PLAYERS // 2,)
    rounds = post.db.execute("SELECT o.recipient, b.raw FROM outbox o JOIN outbox_messages b ON b.id = o.id "
                             "WHERE o.subject LIKE 'Xiangqi tournament big: round 1%'").fetchall()
    assert len(rounds) == PLAYERS + 1
    assert max(len(raw) for _to, raw in rounds) < 12_000
    [(_to, raw)] = [row for row in rounds if row[0] == "p7@example.org"]
    text = flat(message_from_bytes(raw, policy=policy.default))
    assert "p007" in text and "xiangqi tournament show big" in text and "p063" not in text


def test_creation_per_week_and_players_are_capped(tmp_path):
    post = PostOffice(tmp_path, tournament_players=3)
    send(post, "signup director Passw0rd99", "director@example.org")
    made = [send(post, f"xiangqi tournament create cup{i} --system=roundrobin director Passw0rd99", "director@example.org")
            for i in range(3)]
    assert "has created 2 tournaments in the last week, the most this server allows" in flat(made[2][0])
    for i in range(4):
        send(post, f"signup p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
        [answer] = send(post, f"xiangqi tournament join cup0 p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
    assert "cup0 is full: it has 3 players, the most a tournament on this server takes" in flat(answer)
    send(post, "xiangqi tournament cancel cup1 director Passw0rd99", "director@example.org")
    post.now += timedelta(days=8)
    [again] = send(post, "xiangqi tournament create cup1 --system=roundrobin director Passw0rd99", "director@example.org")
    assert "You direct it" in flat(again)                   # a name cancelled before the start is free
