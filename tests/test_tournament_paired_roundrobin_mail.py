"""A paired round robin through `pbm deliver`: each Berger round's game and its return game start
together, the crosstable a double round robin's grid, in English and Chinese; and a paired round
of 64 players started within the limits: one transaction, one round mail a player."""
from __future__ import annotations

import re
import subprocess
from datetime import timedelta
from email import message_from_bytes, policy

from support.postoffice import PostOffice, flat, text
from support.processes import PBM, pbm_environment
from test_tournament_mail import assert_lines_fit, open_tournament, pairings, password, send, start
from test_tournament_paired_mail import play_round, to

from pbm import intake


def test_a_paired_round_robin_plays_each_round_twice_at_once(pbm_env):
    """Three players: each Berger round's game and its return game start together; the dummy's
    bye is both games; the crosstable is a double round robin's grid, in Chinese too."""
    users = ["ann", "ben", "cat"]
    open_tournament(pbm_env, users, "--system=roundrobin --paired --timeout=3")
    send(pbm_env, "cat", f"set cat {password('cat')} lang=zh-Hans")
    mails = start(pbm_env)
    for round_no in (1, 2, 3):
        games = pairings(pbm_env, 2 * round_no - 1) + pairings(pbm_env, 2 * round_no)
        assert sorted(r[2:4] for r in games if r[3]) == sorted(
            [games[0][2:4], games[0][2:4][::-1]]), games
        told = [m for m in to(mails, "ann") if m["Subject"] == f"Xiangqi tournament cup: round "
                f"{round_no} of 3"]
        assert len(told) == 1
        assert len([m for m in to(mails, "cat") if "cup" in m["Subject"] and "Board" not in
                    m["Subject"]]) == 1
        mails = play_round(pbm_env, lambda row: "white" if row[0] % 2 else "draw")
    final = next(m for m in to(mails, "ben") if "won by" in m["Subject"])
    grid = text(final).split("Final standings:\n")[1].split("\n\n")[0].splitlines()
    assert grid[0].split() == ["Rk", "User", "Pts", "SB", "1", "2", "3"]
    cells = [line.split()[-3:] for line in grid[1:]]
    # every pair met twice, once with each colour, the cell White's game first: the first game
    # won by White, the return game drawn
    assert sorted(c for row in cells for c in row if c != "**") == ["1=", "1=", "1=", "=0", "=0",
                                                                     "=0"], cells
    chinese = next(m for m in to(mails, "cat") if "cup" in m["Subject"])
    assert "成对循环赛" in text(chinese)
    assert_lines_fit(chinese)


def test_a_64_player_paired_round_robin_starts_in_one_bounded_transaction(tmp_path):
    """The start of a paired round of 64 players (64 games) by a real `pbm deliver`: one
    transaction whose rows grow with the players (two games each, not a crosstable a mail), and
    one round mail for each player, naming both their games."""
    post = PostOffice(tmp_path, log_level='"DEBUG"')
    deliver(post, "signup director Passw0rd99", "director@example.org")
    deliver(post, "xiangqi tournament create big --system=roundrobin --paired director "
                  "Passw0rd99", "director@example.org")
    for i in range(64):
        deliver(post, f"signup p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
        deliver(post, f"xiangqi tournament join big p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
    message = post.message("xiangqi tournament start big director Passw0rd99", "",
                           "director@example.org")
    done = subprocess.run([*PBM, "--config", str(tmp_path / "pbm.toml"), "deliver"],
                          input=bytes(message), capture_output=True, timeout=300,
                          env=pbm_environment(PBM_NOW=post.now.isoformat()))
    assert done.returncode == 0, done.stderr.decode()
    [(rows, _ms)] = re.findall(r"transaction: (\d+) rows written in (\d+) ms", done.stderr.decode())
    print(f"64-player paired start: {rows} rows written")          # the figure, for the record
    assert int(rows) <= 14 * 64          # 714 here: twice the games of a single round, linear
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (64,)
    news = post.db.execute("SELECT o.recipient, b.raw FROM outbox o JOIN outbox_bodies b ON "
                           "b.id = o.id WHERE o.subject = 'Xiangqi tournament big: round 1 of "
                           "63'").fetchall()
    assert len(news) == 64 + 1 and len({to for to, _raw in news}) == 65
    [(_to, raw)] = [row for row in news if row[0] == "p7@example.org"]
    said = " ".join(flat(message_from_bytes(raw, policy=policy.default)).split())
    boards = [n for n, in post.db.execute(
        "SELECT g.board FROM tournament_games p JOIN games g ON g.id = p.game_id WHERE "
        "'p007' IN (p.white, p.black) ORDER BY p.round")]
    assert len(boards) == 2 and re.search(
        rf"Your games against p\d+: Xiangqi Board {boards[0]}, you play \w+; Xiangqi Board "
        rf"{boards[1]}, you play \w+\.", said), said


def deliver(post, subject: str, sender: str) -> None:
    """A setup mail taken in as `pbm deliver` takes it, in this process."""
    message = post.message(subject, "", sender)
    intake.accept(post.db, post.config, message.as_bytes(policy=policy.SMTP), sender,
                  [post.config.server.address], now=post.now)
    post.now += timedelta(seconds=1)
