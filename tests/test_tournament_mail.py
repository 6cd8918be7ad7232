"""Tournaments played to the end through `pbm deliver`, one process per mail as an MTA runs it:
every round starts itself inside the command that ended the last game of the round before, and
everything between two mails lives in the database."""
from __future__ import annotations

from collections import Counter
from email.message import EmailMessage

import pytest
from support.postoffice import text

PLAYERS = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]


def password(user: str) -> str:
    return f"{user}-secret-7"


def address(user: str) -> str:
    return f"{user}@example.org"


def send(env, user: str, line: str) -> list[EmailMessage]:
    env.mail(line, sender=address(user))
    return env.replies()


def open_tournament(env, users: list[str], options: str) -> None:
    """Sign `users` up; ann creates `cup` with `options`, everybody joins, ann starts it."""
    for user in users:
        send(env, user, f"signup {user} {password(user)}")
    [created] = send(env, "ann", f"xiangqi tournament create Cup ann {password('ann')} {options}")
    assert "Players enter with: xiangqi tournament join cup USERID PASSWORD" in text(created)
    for user in users:
        send(env, user, f"xiangqi tournament join cup {user} {password(user)}")


def start(env) -> list[EmailMessage]:
    return send(env, "ann", f"xiangqi tournament start cup ann {password('ann')}")


def pairings(env, round_no: int | None = None) -> list[tuple]:
    """(round, board, white, black, result, game board number) of every pairing so far."""
    rows = env.query("SELECT p.round, p.board, p.white, p.black, p.result, g.board FROM "
                     "tournament_games p LEFT JOIN games g ON g.id = p.game_id ORDER BY p.round, p.id")
    return [r for r in rows if round_no is None or r[0] == round_no]


def running(env) -> list[tuple]:
    return [r for r in pairings(env) if r[5] is not None and r[4] is None]


def round_mails(mails: list[EmailMessage], subject: str) -> dict[str, str]:
    return {m["To"].split("@")[0]: text(m) for m in mails if m["Subject"] == subject}


def play_out(env, loser_of) -> list[EmailMessage]:
    """White moves h3e3 in every running game, then `loser_of(row)` resigns; the mails of the
    last resignation."""
    mails: list[EmailMessage] = []
    for row in running(env):
        _, _, white, black, _, number = row
        send(env, white, f"xiangqi move {number} {white} {password(white)} h3e3")
        loser = loser_of(row)
        mails = send(env, loser, f"xiangqi resign {number} {loser} {password(loser)}")
    return mails


def assert_lines_fit(mail: EmailMessage) -> None:
    assert max(len(line) for line in text(mail).splitlines()) <= 78, text(mail)


@pytest.mark.parametrize("size", [6, 5])
def test_a_swiss_played_to_the_end_by_mail(pbm_env, size):
    users = PLAYERS[:size]
    open_tournament(pbm_env, users, "--system=swiss --rounds=3 --timeout=3")
    mails = start(pbm_env)
    for round_no in (1, 2, 3):
        subject = f"Xiangqi tournament cup: round {round_no} of 3"
        told = round_mails(mails, subject)
        assert set(told) == set(users), f"round {round_no}: {[m['Subject'] for m in mails]}"
        games = {r[5]: r for r in pairings(pbm_env, round_no) if r[5]}
        new = {m["Subject"] for m in mails if m["Subject"].startswith("New Xiangqi Board")}
        assert new == {f"New Xiangqi Board {n} {row[2]}" for n, row in games.items()}
        for user, body in told.items():
            assert "Your game:" in body or f"You have a bye in round {round_no}" in body
        # every game counts from its start: rated, both players consented, the clock running
        assert all(rated and accepted and deadline for rated, accepted, deadline in pbm_env.query(
            "SELECT rated, accepted_at IS NOT NULL, deadline IS NOT NULL FROM games WHERE status = "
            "'active'"))
        mails = play_out(pbm_env, lambda row: row[3] if row[1] % 2 else row[2])

    everything = pairings(pbm_env)
    assert pbm_env.query("SELECT status, round FROM tournaments") == [("finished", 3)]
    # a resignation before one's own first move was a loss, rated, not a declined challenge
    played = sum(1 for r in everything if r[5])
    assert pbm_env.query("SELECT status, count(*) FROM games GROUP BY status") == [("finished", played)]
    assert pbm_env.query("SELECT count(DISTINCT game_id) FROM rating_changes") == [(played,)]
    assert all(r[4] is not None for r in everything if r[3] is not None)
    meetings = [frozenset(r[2:4]) for r in everything if r[3] is not None]
    assert len(meetings) == len(set(meetings)), "a rematch"
    for round_no in (1, 2, 3):
        seated = Counter(u for r in pairings(pbm_env, round_no) for u in r[2:4] if u)
        assert seated == Counter(users), f"round {round_no}: {seated}"
    byes = [r[2] for r in everything if r[3] is None]
    assert len(byes) == (3 if size == 5 else 0) and len(set(byes)) == len(byes)
    for user in users:
        colours = "".join("W" if r[2] == user else "B" for r in everything
                          if r[3] is not None and user in r[2:4])
        assert "WWW" not in colours and "BBB" not in colours
        assert abs(colours.count("W") - colours.count("B")) <= 2

    final = round_mails(mails, next(m["Subject"] for m in mails if "won by" in m["Subject"]))
    assert set(final) == set(users)
    winner = next(m["Subject"] for m in mails if "won by" in m["Subject"]).rsplit(" ", 1)[1]
    body = final[winner]
    prose = " ".join(body.split())
    assert f"The winner is {winner}" in prose and "broken by Buchholz (BH), then Buchholz Median-1 (BH-M1), then by rating" in prose
    standings = body.split("Final standings:\n")[1].splitlines()
    assert standings[0].split() == ["Rk", "User", "Pts", "BH", "BH-M1", "R1", "R2", "R3"]
    assert standings[1].split()[:2] == ["1", winner]
    for mail in mails:
        if mail["Subject"].startswith("Xiangqi tournament"):
            assert_lines_fit(mail)
    html = next(m for m in mails if "won by" in m["Subject"]).get_body(("html",)).get_content()
    assert "<table" in html and f">{winner}</td>" in html

    [shown] = send(pbm_env, "fay" if size == 6 else "eve", "xiangqi tournament show cup")
    assert "finished" in text(shown) and f" 1 {winner}" in text(shown)
    [listed] = send(pbm_env, "ben", "xiangqi tournaments")
    assert f"cup                      Swiss               {size:>3} players  finished" in text(listed)


# The published Berger table for four (FIDE C.05 Annex 1), by pairing number (order of entry); a
# double round robin plays its last two rounds swapped in the first cycle, then all of it again
# with colours reversed.
BERGER_4 = [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
DOUBLE_4 = [BERGER_4[0], BERGER_4[2], BERGER_4[1]] + [[(b, w) for w, b in rnd] for rnd in BERGER_4]


def test_a_double_round_robin_follows_its_berger_table(pbm_env):
    users = PLAYERS[:4]
    open_tournament(pbm_env, users, "--system=roundrobin --double")
    mails = start(pbm_env)
    number = {user: users.index(user) + 1 for user in users}
    for round_no, expected in enumerate(DOUBLE_4, start=1):
        assert set(round_mails(mails, f"Xiangqi tournament cup: round {round_no} of 6")) == set(users)
        paired = [(number[r[2]], number[r[3]]) for r in pairings(pbm_env, round_no)]
        assert paired == expected, f"round {round_no}"
        mails = play_out(pbm_env, lambda row: row[2] if row[1] == 1 else row[3])
    final = next(m for m in mails if "won by" in m["Subject"])
    body = text(final)
    assert "broken by Sonneborn-Berger (SB), then by rating" in " ".join(body.split())
    grid = body.split("Final standings:\n")[1].splitlines()
    assert grid[0].split() == ["Rk", "User", "Pts", "SB", "1", "2", "3", "4"]
    assert all(len(line) <= 78 for line in grid)
    rows = {line.split()[1]: line.split() for line in grid[1:5]}
    assert sorted(float(r[2]) for r in rows.values()) and sum(float(r[2]) for r in rows.values()) == 12
    winner = final["Subject"].rsplit(" ", 1)[1]
    assert rows[winner][0] == "1" and f"The winner is {winner}" in body


def test_a_knockout_with_a_drawn_game_and_its_replay(pbm_env):
    users = PLAYERS[:8]
    open_tournament(pbm_env, users, "--system=knockout unrated")
    mails = start(pbm_env)
    # equal ratings: seeds by user id, the standard bracket 1-8, 4-5, 2-7, 3-6, the higher seed White
    first = [(r[2], r[3]) for r in pairings(pbm_env, 1)]
    assert first == [("ann", "hal"), ("dan", "eve"), ("ben", "gus"), ("cat", "fay")]
    assert all(not rated for rated, in pbm_env.query("SELECT rated FROM games"))
    number = {r[2]: r[5] for r in pairings(pbm_env, 1)}
    # ann and hal agree a draw: the replay starts at once, colours reversed
    send(pbm_env, "ann", f"xiangqi move {number['ann']} ann {password('ann')} h3e3")
    send(pbm_env, "hal", f"xiangqi move {number['ann']} hal {password('hal')} propose")
    mails = send(pbm_env, "ann", f"xiangqi move {number['ann']} ann {password('ann')} accept")
    assert set(round_mails(mails, "Xiangqi tournament cup: round 1 of 3 replays")) == set(users)
    replay = pairings(pbm_env, 1)[-1]
    assert replay[1:5] == (5, "hal", "ann", None)
    assert f"New Xiangqi Board {replay[5]} hal" in {m["Subject"] for m in mails}
    # hal wins the replay; the higher seeds win the other matches
    play_out(pbm_env, lambda row: row[3])
    # White to whoever had it less often (the higher seed when equal)
    assert [(r[2], r[3]) for r in pairings(pbm_env, 2)] == [("hal", "dan"), ("ben", "cat")]
    play_out(pbm_env, lambda row: row[3])
    assert [(r[2], r[3]) for r in pairings(pbm_env, 3)] == [("hal", "ben")]
    mails = play_out(pbm_env, lambda row: row[2])
    final = round_mails(mails, "Xiangqi tournament cup: won by ben")
    assert set(final) == set(users)
    prose = " ".join(final["hal"].split())
    assert "The winner is ben, who won the final" in prose and "Places go by the round reached, then by points" in prose
    assert pbm_env.query("SELECT result FROM tournament_games WHERE round = 1 AND board = 1") == \
        [("1/2-1/2",)]


def test_a_restart_of_pbm_serve_mid_round_loses_nothing(pbm_env):
    users = PLAYERS[:4]
    open_tournament(pbm_env, users, "--system=swiss --rounds=2")
    start(pbm_env)
    first, second = running(pbm_env)
    server = pbm_env.start_server()
    for row in (first, second):
        white, number = row[2], row[5]
        server.command(address(white), f"xiangqi move {number} {white} {password(white)} h3e3", 2)
    black = first[3]
    server.command(address(black), f"xiangqi resign {first[5]} {black} {password(black)}", 2)
    assert server.stop() == 0
    server = pbm_env.start_server()
    black = second[3]
    # the game's two end mails, two new games' two board mails each, four round mails
    server.send(pbm_env.message(f"xiangqi resign {second[5]} {black} {password(black)}",
                                sender=address(black)))
    mails = pbm_env.wait_replies(10)
    assert set(round_mails(mails, "Xiangqi tournament cup: round 2 of 2")) == set(users)
    assert len(running(pbm_env)) == 2 and [r[0] for r in pairings(pbm_env)] == [1, 1, 2, 2]
    assert server.stop() == 0
