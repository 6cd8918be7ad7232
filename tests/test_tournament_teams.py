"""Team tournaments: board colours by board and leg, match and board points, the standings in
either order, a team Swiss with a bye, the TRF's 013 lines, and the bounds (issue 47): every
player of every team counts toward `tournament_players`, and a round of 16 teams of 4 boards
starts in one bounded transaction of a real `pbm deliver` with one round mail a player."""
from __future__ import annotations

import re
import subprocess
from email import message_from_bytes, policy

from support.postoffice import PostOffice, flat
from support.processes import PBM, pbm_environment
from test_tournament_bounds import send

from pbm.tournaments import pair_round
from pbm.tournaments.model import Game
from pbm.tournaments.teams import (
    Match,
    Team,
    board_pairings,
    crosstable,
    first_team_white,
    read_trf_teams,
    standings,
    trf_lines,
)


def test_colours_alternate_by_board_and_reverse_in_the_other_leg():
    assert [first_team_white(k) for k in range(1, 5)] == [True, False, True, False]
    assert [first_team_white(k, leg=1) for k in range(1, 5)] == [False, True, False, True]
    games = board_pairings(2, 3, 4, ["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], {"b3"})
    assert [(p.board, p.white, p.black, p.result) for p in games] == [
        (9, "a1", "b1", None), (10, "b2", "a2", None), (11, "a3", "b3", "+-"), (12, "b4", "a4", None)]
    back = board_pairings(2, 1, 2, ["a1", "a2"], ["b1", "b2"], leg=1)
    assert [(p.white, p.black) for p in back] == [("b1", "a1"), ("a2", "b2")]


def test_a_double_round_robin_of_teams_reverses_every_board_in_the_return_match():
    teams = [Team(name, n) for n, name in enumerate(["a", "b", "c", "d"], start=1)]
    entrants = [t.entrant() for t in teams]
    first = {frozenset((p.white, p.black)): p for p in pair_round("roundrobin", entrants, [], 1,
                                                                  double=True)}
    for round_no in range(4, 7):
        for p in pair_round("roundrobin", entrants, [], round_no, double=True):
            before = first.get(frozenset((p.white, p.black)))
            if before is None:
                continue
            lineup = {t: [f"{t}{k}" for k in (1, 2, 3)] for t in "abcd"}
            old = board_pairings(1, 1, 3, lineup[before.white], lineup[before.black])
            new = board_pairings(round_no, 1, 3, lineup[p.white], lineup[p.black])
            assert [(g.black, g.white) for g in old] == [(g.white, g.black) for g in new]


def _match(round_no: int, number: int, first: str, second: str | None, results: list[str]) -> Match:
    """A match of len(results) boards: the results as seen from board 1's White."""
    games = []
    for k, result in enumerate(results, start=1):
        a, b = f"{first}{k}", f"{second}{k}"
        games.append(Game(round_no, *((a, b) if first_team_white(k) else (b, a)), result))
    return Match(round_no, number, first, second, tuple(games) if second else (), len(results) or 3)


def test_match_points_board_points_and_either_order():
    # four boards: a beats b and c 2½-1½ each, b beats c 4-0
    matches = [_match(1, 1, "a", "b", ["1-0", "0-1", "1/2-1/2", "1-0"]),
               _match(2, 1, "a", "c", ["1-0", "0-1", "1/2-1/2", "1-0"]),
               _match(3, 1, "b", "c", ["1-0", "0-1", "1-0", "0-1"])]
    assert matches[0].board_points("a") == 2.5 and matches[0].match_points("a") == 2
    assert matches[0].board_points("b") == 1.5 and matches[0].match_points("b") == 0
    assert matches[2].board_points("b") == 4.0 and matches[2].match_points("c") == 0
    drawn = _match(4, 1, "a", "b", ["1-0", "1-0", "1/2-1/2", "1/2-1/2"])
    assert drawn.match_points("a") == drawn.match_points("b") == 1
    teams = [Team("a", 1), Team("b", 2), Team("c", 3)]
    assert [(s.team, s.match_points, s.board_points) for s in standings(teams, matches)] == [
        ("a", 4, 5.0), ("b", 2, 5.5), ("c", 0, 1.5)]
    assert [s.team for s in standings(teams, matches, "board")] == ["b", "a", "c"]
    text = crosstable(teams, matches).text()
    assert text.splitlines()[0].split() == ["Rk", "Team", "MP", "BP", "1", "2", "3"]
    assert text.splitlines()[3].split() == ["3", "c", "0", "1½", "1½", "0", "**"]
    assert crosstable(teams, matches, "board").text().splitlines()[0].split()[2:4] == ["BP", "MP"]


def test_a_swiss_of_five_teams_pairs_by_match_points_and_scores_its_bye():
    teams = [Team(f"t{n}", n, 2000 - 10 * n) for n in range(1, 6)]
    matches: list[Match] = []
    for round_no in (1, 2, 3):
        paired = pair_round("swiss", [t.entrant() for t in teams], [m.game() for m in matches],
                            round_no, rounds=3)
        for number, p in enumerate(paired, start=1):
            # the better seeded team wins every match 2-0 on two boards
            results = ["1-0", "0-1"] if p.white < (p.black or "") else ["0-1", "1-0"]
            matches.append(_match(round_no, number, p.white, p.black, results if p.black else []))
    byes = [m for m in matches if m.bye]
    assert len(byes) == 3 and len({m.first for m in byes}) == 3
    assert byes[0].match_points(byes[0].first) == 2 and byes[0].board_points(byes[0].first) == 1.5
    met = [frozenset((m.first, m.second)) for m in matches if not m.bye]
    assert len(met) == len(set(met))
    assert standings(teams, matches)[0].team == "t1"


def test_the_trf_team_lines_in_their_columns_read_back():
    lines = trf_lines([("dragons", [1, 2, 13, 3]), ("a" * 40, [10, 11])])
    assert lines[0][:4] == "013 " and lines[0][4:36].rstrip() == "dragons"
    assert lines[0][36:40] == "   1" and lines[0][41:45] == "   2" and lines[0][46:50] == "  13"
    assert read_trf_teams("012 x\n" + "\n".join(lines)) == [("dragons", [1, 2, 13, 3]),
                                                            ("a" * 32, [10, 11])]


def open_teams(post: PostOffice, name: str, options: str, teams: list[str]) -> list[str]:
    """The director creates `name` with `options`; player i signs up and joins team `teams[i]`
    (each team's board by order of joining); the answers to the joins, flattened."""
    send(post, "signup director Passw0rd99", "director@example.org")
    send(post, f"xiangqi tournament create {name} {options} director Passw0rd99",
         "director@example.org")
    answers = []
    for i, team in enumerate(teams):
        send(post, f"signup p{i:03d} Passw0rd{i:03d}", f"p{i}@example.org")
        [answer] = send(post, f"xiangqi tournament join {name} p{i:03d} Passw0rd{i:03d} "
                              f"--team={team}", f"p{i}@example.org")
        answers.append(flat(answer))
    return answers


def resign(post: PostOffice, number: int, user: str):
    """`user` (p000 ...) resigns their game `number`: the mails it made."""
    n = int(user[1:])
    return send(post, f"xiangqi resign {number} {user} Passw0rd{n:03d}", f"p{n}@example.org")


def test_every_player_of_every_team_counts_toward_the_players_of_a_tournament(tmp_path):
    post = PostOffice(tmp_path, tournament_players=3)
    answers = open_teams(post, "cup", "--system=roundrobin --teams=2", ["red", "red", "blue", "blue"])
    assert "You play board 2 of the team red." in answers[1]
    assert "cup is full: it has 3 players, the most a tournament on this server takes" in answers[3]
    [early] = send(post, "xiangqi tournament start cup director Passw0rd99", "director@example.org")
    assert "Every team needs its 2 boards before the start; not whole yet: blue." in flat(early)
    [wrong] = send(post, "xiangqi tournament join cup p003 Passw0rd003 --team=red --board=3",
                   "p3@example.org")
    assert "--board=3: the boards of cup are 1 to 2." in flat(wrong)


def test_paired_games_are_refused_for_teams_and_the_return_match_named(tmp_path):
    post = PostOffice(tmp_path)
    send(post, "signup director Passw0rd99", "director@example.org")
    [answer] = send(post, "xiangqi tournament create cup --system=roundrobin --teams=2 --paired "
                          "director Passw0rd99", "director@example.org")
    assert ("--paired is for tournaments of players: a team match is already played on every "
            "board; --double gives a team round robin its return match") in flat(answer)
    assert post.db.execute("SELECT count(*) FROM tournaments").fetchone()[0] == 0


def test_a_double_round_robin_of_two_teams_reverses_the_boards_in_the_return_match(tmp_path):
    post = PostOffice(tmp_path)
    open_teams(post, "duo", "--system=roundrobin --double --teams=2", ["red", "red", "blue", "blue"])
    send(post, "xiangqi tournament start duo director Passw0rd99", "director@example.org")

    def boards(round_no: int) -> list[tuple[int, str, str]]:
        return post.db.execute("SELECT board, white, black FROM tournament_games WHERE round = ? "
                               "ORDER BY board", [round_no]).fetchall()

    assert boards(1) == [(1, "p000", "p002"), (2, "p003", "p001")]
    for _board, _white, black in boards(1):
        number = post.db.execute("SELECT g.board FROM games g JOIN tournament_games p ON "
                                 "p.game_id = g.id WHERE p.black = ?", [black]).fetchone()[0]
        resign(post, number, black)
    assert boards(2) == [(1, "p002", "p000"), (2, "p001", "p003")]
    send(post, "signup p004 Passw0rd004", "p4@example.org")
    [late] = send(post, "xiangqi tournament join duo p004 Passw0rd004 --team=red --board=1",
                  "p4@example.org")
    assert "duo is playing its last round: a substitute would play no game." in flat(late)
    [shown] = send(post, "xiangqi tournament show duo", "p0@example.org")
    assert "Match 1 (boards 1-2): blue against red" in flat(shown)


def test_a_swiss_of_three_teams_by_mail_gives_a_bye_and_ends(tmp_path):
    post = PostOffice(tmp_path)
    open_teams(post, "tri", "--system=swiss --rounds=2 --teams=2 --team-order=board",
               ["ants", "ants", "bees", "bees", "cats", "cats"])
    mails = send(post, "xiangqi tournament start tri director Passw0rd99", "director@example.org")
    assert any("has a bye this round." in flat(m) for m in mails)
    for _round in (1, 2):
        running = post.db.execute("SELECT g.board, p.black FROM tournament_games p JOIN games g ON "
                                  "g.id = p.game_id WHERE p.result IS NULL").fetchall()
        assert len(running) == 2
        for number, black in running:          # White wins every game: each match is drawn 1-1
            mails = resign(post, number, black)
    final = next(flat(m) for m in mails if "won by" in m["Subject"])
    # two drawn matches and a bye each for two teams: the bye (2 MP, 1 BP) decides
    assert "Teams rank by board points, then match points" in final
    assert post.db.execute("SELECT count(*) FROM tournament_matches WHERE second IS NULL"
                           ).fetchone() == (2,)
    assert post.db.execute("SELECT status FROM tournaments").fetchone() == ("finished",)


def test_16_teams_of_4_boards_start_in_one_bounded_transaction(tmp_path):
    post = PostOffice(tmp_path, log_level='"DEBUG"')
    open_teams(post, "big", "--system=swiss --rounds=3 --teams=4",
               [f"team{i // 4:02d}" for i in range(64)])
    message = post.message("xiangqi tournament start big director Passw0rd99", "",
                           "director@example.org")
    done = subprocess.run([*PBM, "--config", str(tmp_path / "pbm.toml"), "deliver"],
                          input=bytes(message), capture_output=True,
                          env=pbm_environment(PBM_NOW=post.now.isoformat()), timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    [(rows, ms)] = re.findall(r"transaction: (\d+) rows written in (\d+) ms", done.stderr.decode())
    print(f"16 teams of 4 boards, start: {rows} rows written in {ms} ms")     # the figure
    assert int(rows) <= 9 * 64                  # linear in the players: no crosstable a mail
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (32,)
    assert post.db.execute("SELECT count(*) FROM tournament_matches").fetchone() == (8,)
    mails = post.db.execute("SELECT o.recipient, b.raw FROM outbox o JOIN outbox_bodies b ON "
                            "b.id = o.id WHERE o.subject LIKE 'Xiangqi tournament big: round 1%'"
                            ).fetchall()
    assert sorted(to for to, _raw in mails) == sorted([f"p{i}@example.org" for i in range(64)]
                                                      + ["director@example.org"])
    assert max(len(raw) for _to, raw in mails) < 12_000
    [(_to, raw)] = [row for row in mails if row[0] == "p7@example.org"]
    text = flat(message_from_bytes(raw, policy=policy.default))
    assert "Your game:" in text and "Match 1 (boards 1-4)" in text
    # the teams' standings, not their grid nor 64 players' board scores
    assert re.search(r"Rk Team MP BP 1 team\d\d 0 0 2 team", text) and "**" not in text
    assert "team15" in text and "p063" not in text
