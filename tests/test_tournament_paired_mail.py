"""A paired Swiss played to the end through `pbm deliver`, one process per mail: five players
(the bye is both games), read in English and Korean.  Each player hears once a round, both games
named, and their last pairing's score; the crosstable shows both games of each pairing, the page
every game, and the TRF two round blocks a pairing round that bbpPairings reads: its first games
paired as pbm paired them.  (Paired knockouts: test_tournament_paired_knockout_mail.py; a paired
round robin and a paired round's start within the limits: test_tournament_paired_roundrobin_mail.py.)"""
from __future__ import annotations

import re
from collections import Counter

from support import bbp
from support.postoffice import text
from support.processes import free_port, listening, wait_until
from test_tournament_mail import (address, assert_lines_fit, open_tournament, pairings, password,
                                  running, send, start)
from test_web import fetch

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
    # the last round's boards: each pairing's two games, then its score (board 1: 2-0)
    one = [r for r in pairings(pbm_env, 3) if r[1] == 1][0]
    assert f"     {one[2]:<17} {one[3]:<17} the pairing: 2-0" in text(final).splitlines()
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
        # a pairing's two games one after the other, its bye once
        first = [r for r in pairings(pbm_env, 1) if r[5]][0]
        second = next(r for r in pairings(pbm_env, 2) if r[1] == first[1])
        order = re.findall(r'href="\.\./\.\./p/xiangqi-(\d+)"', page)
        assert order.index(str(second[5])) == order.index(str(first[5])) + 1
        bye = next(r[2] for r in pairings(pbm_env, 1) if r[3] is None)
        assert page.count(f"<td>{bye}</td><td>(bye)</td>") == 1
        assert "paired Swiss" in page
    finally:
        assert server.stop() == 0
