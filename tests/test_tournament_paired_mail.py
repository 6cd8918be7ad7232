"""Paired games played to the end through `pbm deliver`, one process per mail: a paired Swiss of
five (the bye is both games) and paired knockouts whose tied pairs are decided by a decider pair
or by the higher seed (`--decider=seed`), read in English and Korean.  Each player hears once a
round, both games named; the crosstable shows both games of each pairing, the page every game,
and the TRF two round blocks a pairing round that bbpPairings reads: its first games paired as
pbm paired them."""
from __future__ import annotations

import re
import subprocess
from collections import Counter
from datetime import timedelta
from email import message_from_bytes, policy

from support import bbp
from support.postoffice import PostOffice, flat, text
from support.processes import PBM, free_port, listening, pbm_environment, wait_until
from test_tournament_mail import (address, assert_lines_fit, open_tournament, pairings, password,
                                  running, send, start)
from test_web import fetch

from pbm import intake
from pbm.tournaments import trf


def play_round(env, outcome) -> list:
    """Every running game played: White moves, then `outcome(row)` ("white", "black" or "draw")
    decides it (a resignation, or a draw offered by Black and accepted); all the mails sent."""
    mails = []
    for row in running(env):
        _, _, white, black, _, number = row
        mails += send(env, white, f"xiangqi move {number} {white} {password(white)} h3e3")
        how = outcome(row)
        if how == "draw":
            send(env, black, f"xiangqi move {number} {black} {password(black)} propose")
            mails += send(env, white, f"xiangqi move {number} {white} {password(white)} accept")
        else:
            loser = black if how == "white" else white
            mails += send(env, loser, f"xiangqi resign {number} {loser} {password(loser)}")
    return mails


def to(mails, user: str) -> list:
    return [m for m in mails if m["To"] == address(user)]


def record(env) -> str:
    [answer] = send(env, "ann", "xiangqi tournament record cup")
    content = next(p for p in answer.iter_attachments()).get_content()
    return content.decode() if isinstance(content, bytes) else content


def test_a_paired_swiss_played_to_the_end_by_mail(pbm_env, tmp_path):
    users = ["ann", "ben", "cat", "dan", "eve"]
    port = free_port()
    pbm_env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    open_tournament(pbm_env, users, "--system=swiss --rounds=2 --timeout=3 --paired")
    send(pbm_env, "ben", f"set ben {password('ben')} lang=ko")
    [shown] = send(pbm_env, "cat", "xiangqi tournament show cup")
    prose = " ".join(text(shown).split())
    assert "Paired games: every pairing is two games started together, colours reversed" in prose
    assert "Xiangqi tournament cup: paired Swiss, 2 rounds, 5 players" in prose
    mails = start(pbm_env)
    for round_no in (1, 2):
        first, second = pairings(pbm_env, 2 * round_no - 1), pairings(pbm_env, 2 * round_no)
        # the second games reverse the first, the bye twice
        assert [(r[1], r[3] or r[2], r[2] if r[3] else None) for r in first] == \
            [r[1:4] for r in second]
        subject = f"Xiangqi tournament cup: round {round_no} of 2"
        english = [u for u in users if u != "ben"]
        for user in english:
            news = [m for m in to(mails, user) if m["Subject"] == subject]
            assert len(news) == 1, (user, [m["Subject"] for m in to(mails, user)])
            prose = " ".join(text(news[0]).split())
            boards = [r[5] for r in first + second if user in r[2:4] and r[5]]
            if boards:
                assert re.search(rf"Your games against \w+: Xiangqi Board {boards[0]}, you play "
                                 rf"(Red|Black); Xiangqi Board {boards[1]}, you play", prose)
            else:
                assert f"You have a bye in round {round_no}." in prose
            assert_lines_fit(news[0])
        # ben reads Korean: one round mail too, besides his games' own mails
        korean = [m for m in to(mails, "ben") if "cup" in m["Subject"] and "Board" not in
                  m["Subject"]]
        assert len(korean) == 1 and "cup" in korean[0]["Subject"] and "round" not in \
            korean[0]["Subject"]
        if round_no == 2:
            assert any(re.search(r"Your pairing of round 1 against \w+: (1\.5-0\.5|0\.5-1\.5|"
                                 r"2-0|0-2|1-1)\.", " ".join(text(m).split()))
                       for m in to(mails, "ann") + to(mails, "cat"))
        # game 1: White wins board 1, draws elsewhere; game 2: Black wins board 1
        mails = play_round(pbm_env, lambda row: ("white" if row[0] % 2 else "black")
                           if row[1] == 1 else "draw")

    assert pbm_env.query("SELECT status, round, rounds FROM tournaments") == [("finished", 4, 4)]
    everything = pairings(pbm_env)
    meetings = Counter(frozenset(r[2:4]) for r in everything if r[3])
    assert set(meetings.values()) == {2}            # every pairing twice, nobody a third time
    final = next(m for m in mails if "won by" in m["Subject"] and m["To"] == address("ann"))
    prose = " ".join(text(final).split())
    assert re.search(r"The winner is \w+, with [\d.]+ points from 4 games\.", prose)
    table = text(final).split("Final standings:\n")[1].split("\n\n")[0].splitlines()
    assert table[0].split() == ["Rk", "User", "Pts", "BH", "BH-M1", "R1", "R2"]
    cells = {line.split()[1]: line.split()[-2:] for line in table[1:]}
    for user in users:
        mine = [r for r in everything if user in r[2:4]]
        if any(r[3] is None for r in mine[:2]):
            assert cells[user][0] == "bye"
        else:
            assert re.fullmatch(r"\d(W[10=]B[10=]|B[10=]W[10=])", cells[user][0]), cells[user]
    # 2 points for the bye (a won pairing), the game points of both games for the others
    points = {line.split()[1]: float(line.split()[2]) for line in table[1:]}
    assert sum(points.values()) == 2 * 4 + 2 * 2

    whole = record(pbm_env)
    rows = [line for line in whole.splitlines() if line.startswith("001")]
    assert all(len(line) == 89 + 4 * 10 for line in rows) and "XXR 4" in whole
    numbers = {line[14:47].rstrip(): int(line[4:8]) for line in rows}
    report = trf.read(whole)
    for n in (1, 3):            # bbpPairings pairs each pairing round's first games as pbm did
        asked = trf.request(report, n, frozenset(users))
        theirs = bbp.pair(asked, tmp_path)
        assert sorted(theirs) == sorted((numbers[r[2]], numbers[r[3]] if r[3] else 0)
                                        for r in pairings(pbm_env, n))
    # its checker re-pairs every round: only the second games' rounds, which it cannot know
    # repeat the first, come out otherwise
    assert bbp.differences(bbp.check(whole, tmp_path)) == ["Round #2", "Round #4"]

    server = pbm_env.start_server()
    try:
        assert wait_until(lambda: listening(port), 30), server.log()
        status, _headers, body = fetch(f"http://127.0.0.1:{port}/t/xiangqi/cup")
        page = body.decode()
        assert status == 200 and "Round 2" in page and "Round 3" not in page
        linked = set(re.findall(r'href="\.\./\.\./p/xiangqi-(\d+)"', page))
        assert linked == {str(r[5]) for r in everything if r[5]}
        assert "paired Swiss" in page
    finally:
        assert server.stop() == 0


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


def test_a_paired_knockout_with_a_decider_pair(pbm_env):
    users = ["ann", "ben", "cat", "dan"]
    open_tournament(pbm_env, users, "--system=knockout --paired --timeout=3 unrated")
    send(pbm_env, "dan", f"set dan {password('dan')} lang=ko")
    mails = start(pbm_env)
    # seeds by user id: ann v dan, ben v cat; the higher seed White in game 1
    assert [r[1:4] for r in pairings(pbm_env, 1)] == [
        (1, "ann", "dan"), (2, "ben", "cat"), (3, "dan", "ann"), (4, "cat", "ben")]
    assert len([m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 1 "
                "of 2"]) == 1
    # ann v dan: each wins with White, 1-1; ben beats cat 1.5-0.5
    mails = play_round(pbm_env, lambda row: "white" if row[2] in ("ann", "dan") or row[1] == 2
                       else "draw")
    deciders = pairings(pbm_env, 1)[4:]
    assert [r[1:5] for r in deciders] == [(5, "ann", "dan", None), (6, "dan", "ann", None)]
    news = [m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 1 of 2 "
            "deciders"]
    assert len(news) == 1
    prose = " ".join(text(news[0]).split())
    assert "tied on points play a decider, a further pair of games" in prose
    assert re.search(rf"Your games against dan: Xiangqi Board {deciders[0][5]}, you play Red; "
                     rf"Xiangqi Board {deciders[1][5]}, you play Black\.", prose)
    korean = [m for m in to(mails, "dan") if "cup" in m["Subject"] and "Board" not in m["Subject"]]
    assert len(korean) == 1 and korean[0]["Subject"].endswith("결정전")
    said = " ".join(text(korean[0]).split())
    assert "쌍대국 토너먼트" in said and "ann 님과의 내 대국: " in said
    assert_lines_fit(korean[0])
    # dan wins the decider pair 1.5-0.5 and meets ben in the final
    mails = play_round(pbm_env, lambda row: "black" if row[2] == "ann" else "draw")
    assert [r[2:4] for r in pairings(pbm_env, 2)] == [("ben", "dan"), ("dan", "ben")]
    final = next(m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 2 "
                 "of 2")
    assert "Your pairing of round 1 against dan: 1.5-2.5." in " ".join(text(final).split())
    mails = play_round(pbm_env, lambda row: "black" if row[2] == "ben" else "draw")
    won = next(m for m in to(mails, "cat") if "won by" in m["Subject"])
    assert won["Subject"] == "Xiangqi tournament cup: won by dan"
    table = text(won).split("Final standings:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[1] for line in table[1:]] == ["dan", "ben", "ann", "cat"]
    cells = {line.split()[1]: line.split()[-2:] for line in table[1:]}
    assert cells["dan"] == ["3B0W1B1W=", "2B1W="]
    whole = record(pbm_env)
    back = trf.read(whole)
    # the TRF: a column a game, the pair and the decider pair read back into round 1
    assert sorted((g.round, g.white, g.black, g.result) for g in back.games
                  if "ann" in (g.white, g.black)) == [
        (1, "ann", "dan", "0-1"), (1, "ann", "dan", "1-0"), (1, "dan", "ann", "1-0"),
        (1, "dan", "ann", "1/2-1/2")]
    rows = [line for line in whole.splitlines() if line.startswith("001")]
    assert max(len(line) for line in rows) == 89 + 6 * 10      # 4 games in round 1, 2 in 2


def test_a_paired_knockout_decided_by_the_higher_seed(pbm_env):
    users = ["ann", "ben"]
    open_tournament(pbm_env, users, "--system=knockout --paired --decider=seed --timeout=3")
    send(pbm_env, "ben", f"set ben {password('ben')} lang=ko")
    [shown] = send(pbm_env, "ann", "xiangqi tournament show cup")
    assert "on a tie the higher seed goes through" in " ".join(text(shown).split())
    start(pbm_env)
    mails = play_round(pbm_env, lambda row: "draw")
    assert len(pairings(pbm_env)) == 2                      # no decider pair
    won = next(m for m in to(mails, "ann") if "won by" in m["Subject"])
    assert won["Subject"] == "Xiangqi tournament cup: won by ann"
    korean = next(m for m in to(mails, "ben") if "ann" in m["Subject"])
    assert "won by" not in korean["Subject"]
    [refused] = send(pbm_env, "ann", f"xiangqi tournament create cup2 ann {password('ann')} "
                                     "--system=swiss --rounds=3 --decider=seed")
    assert "--decider=seed: a paired knockout (--system=knockout --paired)" in \
        " ".join(text(refused).split())
    [refused] = send(pbm_env, "ann", f"xiangqi tournament create cup2 ann {password('ann')} "
                                     "--system=roundrobin --paired --double")
    assert "--paired does not go with --double" in " ".join(text(refused).split())


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
