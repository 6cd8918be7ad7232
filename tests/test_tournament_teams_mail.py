"""A team round robin played to its end through `pbm deliver`, one process per mail: four teams of
three boards, board K against board K, colours alternating by board; a substitute takes a board
from the next round; players read in English and Korean; the team crosstable, each player's board
score, the page served by a real `pbm serve` and the TRF's team lines (read back by pbm;
bbpPairings, the field's reader of TRF, refuses team sections) are checked."""
from __future__ import annotations

import subprocess
import urllib.request

from support import bbp
from support.postoffice import text
from support.processes import free_port, listening, wait_until
from test_tournament_mail import pairings, password, play_out, send

from pbm.i18n import width
from pbm.tournaments import trf
from pbm.tournaments.teams import read_trf_teams

TEAMS = {"dragons": ["ann", "ben", "cat"], "tigers": ["dan", "eve", "fay"],
         "cranes": ["gus", "hal", "ida"], "snakes": ["jon", "kim", "lea"]}
KOREAN = {"eve", "kim"}


def seat_of(env) -> dict[tuple[str, int], str]:
    """(team, board) -> the player seated there at the start of each later round: from the db."""
    rows = env.query("SELECT m.name, l.board, l.user_id, l.from_round FROM tournament_lineups l "
                     "JOIN tournament_teams m ON m.tournament_id = l.tournament_id AND "
                     "m.number = l.team ORDER BY l.from_round")
    return {(team, board): user for team, board, user, _since in rows}


def test_a_team_round_robin_by_mail(pbm_env, tmp_path):
    env = pbm_env
    everyone = [u for users in TEAMS.values() for u in users] + ["sub"]
    for user in everyone:
        send(env, user, f"signup {user} {password(user)}" + (" lang=ko" if user in KOREAN else ""))
    [refused] = send(env, "ann", f"xiangqi tournament create cup ann {password('ann')} "
                                 f"--system=knockout --teams=3")
    assert "--teams goes with --system=roundrobin or --system=swiss" in " ".join(text(refused).split())
    [created] = send(env, "ann", f"xiangqi tournament create Cup ann {password('ann')} "
                                 f"--system=roundrobin --teams=3 --timeout=3")
    assert "--team=TEAM [--board=K]" in " ".join(text(created).split())
    # the captain's order: boards 3 and 1 chosen, board 2 first come
    for team, (first, second, third) in TEAMS.items():
        send(env, third, f"xiangqi tournament join cup {third} {password(third)} --team={team} "
                         f"--board=3")
        send(env, first, f"xiangqi tournament join cup {first} {password(first)} --team={team} "
                         f"--board=1")
        [seated] = send(env, second, f"xiangqi tournament join cup {second} {password(second)} "
                                     f"--team={team}")
        if second not in KOREAN:
            assert f"You play board 2 of the team {team}." in text(seated)
    [full] = send(env, "sub", f"xiangqi tournament join cup sub {password('sub')} --team=tigers")
    assert "The team tigers of cup is full: its players are dan, eve, fay." in " ".join(
        text(full).split())
    [plain] = send(env, "sub", f"xiangqi tournament join cup sub {password('sub')}")
    assert "--team=TEAM" in text(plain)
    mails = send(env, "ann", f"xiangqi tournament start cup ann {password('ann')}")
    assert "has started with 12 players and 3 rounds" in " ".join(
        next(text(m) for m in mails if m["To"] == "ann@example.org"
             and "has started" in text(m)).split())
    round_one = {m["To"].split("@")[0]: text(m) for m in mails if m["Subject"] in (
        "Xiangqi tournament cup: round 1 of 3", "샹치 대회 cup: 1/3라운드")}
    assert set(round_one) == set(everyone) - {"sub"}
    assert "Match 1 (boards 1-3): dragons against snakes" in " ".join(round_one["ann"].split())
    assert "1경기(1-3번 판): dragons 대 snakes" in " ".join(round_one["kim"].split())
    # each game's first mail names its match and its board there
    first_mails = {m["To"].split("@")[0]: " ".join(text(m).split()) for m in mails
                   if m["Subject"].startswith("New Xiangqi Board")}
    assert "board 1 of the match dragons against snakes. The game counts" in first_mails["ann"]
    assert "대항전의" in first_mails["kim"] and "번 보드." in first_mails["kim"]

    # a substitute during round 1 takes board 2 of dragons from round 2
    [sub] = send(env, "sub", f"xiangqi tournament join cup sub {password('sub')} --team=dragons "
                             f"--board=2")
    assert "You play board 2 of the team dragons from round 2 on." in text(sub)
    assert "ben" in {u for r in pairings(env, 1) for u in r[2:4]}

    team_of = {u: t for t, users in TEAMS.items() for u in users} | {"sub": "dragons"}
    board_of = {u: users.index(u) + 1 for users in TEAMS.values() for u in users} | {"sub": 2}
    for round_no in (1, 2, 3):
        rows = pairings(env, round_no)
        assert len(rows) == 6 and all(r[5] for r in rows)
        assert ("sub" in {u for r in rows for u in r[2:4]}) == (round_no > 1)
        for number, board, white, black, _result, _game in rows:
            k = (board - 1) % 3 + 1
            assert board_of[white] == board_of[black] == k
            match = [r for r in rows if (r[1] - 1) // 3 == (board - 1) // 3]
            first = team_of[match[0][2]]          # board 1's White: the first-named team
            assert (team_of[white] == first) == (k % 2 == 1), (round_no, board, white, black)
        mails = play_out(env, lambda row: row[3])           # White wins every game
    # every match went 2-1 to the first-named team (boards 1 and 3 have its White)
    subject = next(m["Subject"] for m in mails if "won by" in m["Subject"])
    winner = subject.rsplit(" ", 1)[1]
    assert winner in TEAMS
    final = {m["To"].split("@")[0]: text(m) for m in mails
             if "cup" in m["Subject"] and winner in m["Subject"]}
    assert set(final) == set(everyone)
    prose = " ".join(final["ann"].split())
    assert f"The winning team is {winner}" in prose
    assert "Teams rank by match points, then board points" in prose
    table = final["ann"].split("Final standings:\n")[1].splitlines()
    assert table[0].split() == ["Rk", "Team", "MP", "BP", "1", "2", "3", "4"]
    rows = [line.split() for line in table[1:5]]
    assert [r[1] for r in rows][0] == winner
    assert sum(int(r[2]) for r in rows) == 12 and all(cell in ("2", "1", "**") for r in rows
                                                     for cell in r[4:])
    assert "sub" in final["ann"] and "ben" in final["ann"]
    assert all(width(line) <= 78 for body in final.values() for line in body.splitlines())
    assert f"우승 팀은" in final["kim"] and f"{winner} 팀입니다" in " ".join(final["kim"].split())
    assert final["kim"].split("최종 순위:\n")[1].split()[:4] == ["순위", "팀", "팀승점", "판승점"]

    [record] = send(env, "gus", "xiangqi tournament record cup")
    trf_text = next(part.get_content() for part in record.iter_attachments())
    teams = read_trf_teams(trf_text)
    report = trf.read(trf_text)
    numbers = {e.user: e.number for e in report.entrants}
    assert [name for name, _ in teams] == list(TEAMS)
    assert dict(teams)["dragons"] == [numbers[u] for u in ["ann", "ben", "sub", "cat"]]
    assert len([g for g in report.games if g.black]) == 18 and "013" not in report.header
    done = subprocess.run([bbp.program(), "--dutch", str(_write(tmp_path, trf_text)), "-c"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "team tournaments are not supported" in done.stderr + done.stdout
    # without its team section the same file is one bbpPairings' checker reads whole
    bbp.check("".join(line for line in trf_text.splitlines(keepends=True)
                      if not line.startswith("013")), tmp_path)

    port = free_port()
    env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    server = env.start_server()
    try:
        assert wait_until(lambda: listening(port), 30), server.log()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/t/xiangqi/cup", timeout=30) as got:
            page = got.read().decode()
    finally:
        assert server.stop() == 0
    assert ">dragons<" in page and ">MP<" in page and "Round 3" in page
    assert page.count("Match 1 (boards 1-3)") == 3 and "against snakes, 2 to 1." in page
    assert page.count('href="../../p/xiangqi-') == 18


def _write(folder, content: str):
    path = folder / "teams.trf"
    path.write_text(content, encoding="utf-8")
    return path
