"""The FIDE TRF-16: written from a tournament, read back line by line, and its rounds paired again."""
from __future__ import annotations

import random

from pbm.tournaments import Entrant, Game, pair_round
from pbm.tournaments.trf import Report, check, initial, read, request, write

FIVE = [Entrant(u, r, n) for n, (u, r) in enumerate(
    zip(("ann", "bob", "cy", "dee", "eve"), (2100, 1900, 0, 1800, 1700)), start=1)]


def swiss(seed: int, entrants: list[Entrant], rounds: int) -> list[Game]:
    rng = random.Random(seed)
    games: list[Game] = []
    for n in range(1, rounds + 1):
        for p in pair_round("swiss", entrants, games, n, rounds=rounds):
            games.append(p.game() if p.black is None else
                         Game(n, p.white, p.black, rng.choice(["1-0", "0-1", "1/2-1/2", "+-"])))
    return games


def test_a_swiss_written_as_trf_reads_back_line_by_line():
    """Players numbered by the initial ranking (rating, then name: cy, unrated, last), the bye as
    U, the round still being played left out, the forfeited pair barred from the next round on."""
    games = [Game(1, "ann", "dee", "1-0"), Game(1, "eve", "bob", "+-"), Game(1, "cy", None),
             Game(2, "cy", "ann", "1/2-1/2"), Game(2, "bob", "dee", "0-1"), Game(2, "eve", None),
             Game(3, "ann", "eve", None), Game(3, "dee", "cy", "1/2-1/2")]
    report = Report("spring-cup", "swiss", 4, FIVE, games,
                    {"042": "2026/11/01", "102": "director", "122": "3 days a move"})
    text = write(report)
    lines = text.splitlines()
    assert lines[:7] == ["012 spring-cup", "042 2026/11/01", "062 5", "092 Swiss Dutch system",
                         "102 director", "122 3 days a move", "XXC white1"]
    players = [line for line in lines if line.startswith("001")]
    assert [p[14:47].rstrip() for p in players] == ["ann", "bob", "dee", "eve", "cy"]
    # the fixed columns: rank 5-8, name 15-47, rating 49-52, points 81-84, rank 86-89, rounds from 92
    ann = players[0]
    assert ann[4:8] == "   1" and ann[48:52] == "2100"
    assert ann[80:84] == " 1.5" and ann[91:99] == "   3 w 1" and ann[101:109] == "   5 b ="
    assert len(ann) == 109                                  # round 3, still played, left out
    cy = players[4]
    assert cy[4:8] == "   5" and cy[48:52] == "    " and cy[91:99] == "0000 - U"
    assert cy[80:84] == " 1.5"                              # the points are the codes' points
    assert players[1][91:99] == "   4 b -" and players[3][91:99] == "   2 w +"
    assert lines[-2:] == ["XXR 4", "260   2   4    4    2"]  # eve-bob barred from round 2 on
    again = read(text)
    assert (again.name, again.system, again.rounds) == ("spring-cup", "swiss", 4)
    assert again.entrants == [Entrant(u, r, n) for n, (u, r) in enumerate(
        [("ann", 2100), ("bob", 1900), ("dee", 1800), ("eve", 1700), ("cy", 0)], start=1)]
    assert sorted(again.games, key=repr) == sorted((g for g in games if g.round < 3), key=repr)
    assert again.header == {"042": "2026/11/01", "102": "director", "122": "3 days a move",
                            "XXC": "white1"}
    assert write(again) == text                              # line by line, the same file


def test_byes_are_coded_as_what_they_score():
    """A half-point bye is H (half a point), a round robin's sit-out Z (none), a knockout's bye U;
    the points column is the codes' sum, and a file asking for a round has a cell only for the
    players who will not be paired."""
    games = [Game(1, "ann", "dee", "1-0"), Game(1, "eve", "bob", "0-1"), Game(1, "cy", None, "H")]
    text = write(Report("cup", "swiss", 3, FIVE, games))
    cy = next(line for line in text.splitlines() if line[14:47].rstrip() == "cy")
    assert cy[91:99] == "0000 - H" and cy[80:84] == " 0.5"
    assert read(text).games[-1:] == [Game(1, "cy", None, "H")] or Game(1, "cy", None, "H") in \
        read(text).games
    asking = request(Report("cup", "swiss", 3, FIVE, games + [Game(2, "bob", None, "H")]), 2,
                     frozenset({"ann", "cy", "dee"}))
    cells = {line[14:47].rstrip(): line[101:109] for line in asking.splitlines()
             if line.startswith("001")}
    assert cells == {"ann": "", "bob": "0000 - H", "dee": "", "eve": "0000 - Z", "cy": ""}
    robin = [Game(1, "ann", "eve", "1/2-1/2"), Game(1, "bob", "dee", "1-0"), Game(1, "cy", None)]
    lines = write(Report("rr", "roundrobin", 5, FIVE, robin)).splitlines()
    cy = next(line for line in lines if line[14:47].rstrip() == "cy")
    assert cy[91:99] == "0000 - Z" and cy[80:84] == " 0.0"
    assert Game(1, "cy", None) in read("\n".join(lines)).games
    cup = [Game(1, "ann", None), Game(1, "bob", "dee", "1-0")]
    ann = next(line for line in write(Report("ko", "knockout", 2, FIVE[:4], cup)).splitlines()
               if line[14:47].rstrip() == "ann")
    assert ann[91:99] == "0000 - U" and ann[80:84] == " 1.0"


def test_the_initial_colour_of_a_file_that_does_not_say_it():
    """As bbpPairings infers it: the top seed's round-1 colour, or when the top seed missed round
    1, the next seed's reversed."""
    entrants = [Entrant(u, 2000 - 10 * i, i + 1) for i, u in enumerate("abcd")]
    played = Report("x", "swiss", 3, entrants, [Game(1, "c", "a", "0-1"), Game(1, "b", "d", "1-0")])
    assert initial(played) == "B"
    missed = Report("x", "swiss", 3, entrants, [Game(1, "c", "b", "1-0"), Game(1, "d", None)])
    assert initial(missed) == "B"     # b (the first paired) had Black: the initial colour is B
    missed.games = [Game(1, "b", "c", "1-0"), Game(1, "d", None)]
    assert initial(missed) == "W"


def test_check_finds_the_rounds_another_program_paired_otherwise():
    entrants = [Entrant(f"p{i}", 2000 - 37 * i, i + 1) for i in range(8)]
    games = swiss(7, entrants, 4)
    report = Report("club", "swiss", 4, entrants, games)
    assert check(read(write(report))) == []
    # round 3 as another program might have paired it: the top two boards' opponents swapped
    third = sorted((g for g in games if g.round == 3), key=lambda g: g.white)
    a, b = third[0], third[1]
    swapped = [g for g in games if g not in (a, b)] + [Game(3, a.white, b.black, a.result),
                                                       Game(3, b.white, a.black, b.result)]
    found = check(read(write(Report("club", "swiss", 4, entrants, swapped))))
    assert found and found[0].startswith("round 3: the file pairs ")


def test_a_trf_from_another_program_reads_and_is_paired_again():
    """caissify-pairings writes a TRF of a Swiss it paired itself (names with commas, another 092
    wording, its initial colour drawn by lot): pbm reads every player and game, and `check` finds
    the same games in every round; where colours differ it is only the colour rule 5.2.4 read as
    FIDE writes it (the higher ranked by score first: tests/test_tournament_dutch.py)."""
    from caissify_pairings.rtg import generate_tournament
    for seed in range(3):
        text = generate_tournament(num_players=11, num_rounds=5, seed=seed)
        report = read(text)
        assert len(report.entrants) == 11 and report.rounds == 5
        assert all(sum(1 for g in report.games if g.round == n) == 6 for n in range(1, 6))
        for line in check(report):
            assert ": the same games, colours differ:" in line, line


def test_a_knockout_shows_its_replays():
    """A drawn game and its replay (colours reversed) in one round: two columns, the points the
    codes' sum, and read back as one round."""
    four = [Entrant(u, 2000 - 10 * i, i + 1) for i, u in enumerate("abcd")]
    games = [Game(1, "a", "d", "1/2-1/2"), Game(1, "b", "c", "1-0"), Game(1, "d", "a", "0-1"),
             Game(2, "a", "b", "0-1")]
    text = write(Report("ko", "knockout", 2, four, games))
    rows = {line[14:47].rstrip(): line for line in text.splitlines() if line.startswith("001")}
    assert rows["a"][91:] == "   4 w =     4 b 1     2 w 0" and rows["a"][80:84] == " 1.5"
    assert rows["b"][91:] == "   3 w 1" + " " * 12 + "   1 b 1" and rows["b"][80:84] == " 2.0"
    assert sorted(read(text).games, key=repr) == sorted(games, key=repr)


def test_an_accelerated_swiss_carries_its_virtual_points():
    """Baku's virtual points as 250 lines (points, rounds, players), read back the same."""
    from pbm.tournaments.acceleration import baku
    eight = [Entrant(f"p{i}", 2000 - 50 * i, i) for i in range(1, 9)]
    text = write(Report("fast", "swiss", 5, eight, [], virtual=baku(eight, 5)))
    assert [line for line in text.splitlines() if line.startswith("250")][:2] == [
        "250       1.0   1   2    1    1", "250       0.5   3   3    1    1"]
    again = read(text)
    assert {u: v + (0.0,) * (5 - len(v)) for u, v in again.virtual.items()} == baku(eight, 5)
    assert write(again) == text


def test_check_reads_byes_late_entries_forfeits_and_acceleration_back(tmp_path):
    """pbm's own `check` (`pbm tournament check`) pairs every round of its TRFs again as they were
    paired: half-point byes, late entries, withdrawals, forfeits and Baku acceleration read back."""
    from support.swiss_events import event, play
    plans = [event(seed, 7, 14) for seed in range(301, 307)]
    assert all(any(getattr(p, part) for p in plans)
               for part in ("byes", "late", "leaves", "forfeits", "virtual"))
    for plan in plans:
        assert check(read(play(plan, tmp_path)[1])) == []
