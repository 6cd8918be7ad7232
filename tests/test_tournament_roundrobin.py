"""Round robin pairings against the published Berger tables (FIDE Handbook C.05, Annex 1)."""
from __future__ import annotations

from itertools import combinations

import pytest

from pbm.tournaments import Entrant, pair_round, rounds_needed

# The published tables, round by round, White-Black, board by board.
PUBLISHED = {
    4: """1-4 2-3
          4-3 1-2
          2-4 3-1""",
    6: """1-6 2-5 3-4
          6-4 5-3 1-2
          2-6 3-1 4-5
          6-5 1-4 2-3
          3-6 4-2 5-1""",
    8: """1-8 2-7 3-6 4-5
          8-5 6-4 7-3 1-2
          2-8 3-1 4-7 5-6
          8-6 7-5 1-4 2-3
          3-8 4-2 5-1 6-7
          8-7 1-6 2-5 3-4
          4-8 5-3 6-2 7-1""",
}


def table(n: int) -> list[list[tuple[int, int]]]:
    return [[tuple(int(x) for x in game.split("-")) for game in line.split()]
            for line in PUBLISHED[n].splitlines()]


def field(n: int) -> list[Entrant]:
    return [Entrant(f"p{number}", 1500, number) for number in range(1, n + 1)]


def schedule(n: int, double: bool = False) -> list[list[tuple[int, int | None]]]:
    """Every round as (White, Black) pairing numbers, None for a bye."""
    return [[(int(p.white[1:]), None if p.black is None else int(p.black[1:]))
             for p in pair_round("roundrobin", field(n), [], r, double=double)]
            for r in range(1, rounds_needed("roundrobin", n, double=double) + 1)]


@pytest.mark.parametrize("n", sorted(PUBLISHED))
def test_single_round_robin_is_the_published_berger_table(n):
    assert schedule(n) == table(n)


@pytest.mark.parametrize("n", [3, 5, 7])
def test_an_odd_field_uses_the_table_of_one_more_with_a_bye_against_the_dummy(n):
    expected = [[g for g in rnd if n + 1 not in g] +
                [(next(x for x in g if x != n + 1), None) for g in rnd if n + 1 in g]
                for rnd in table(n + 1)]
    assert schedule(n) == expected


@pytest.mark.parametrize("n", [4, 6, 8])
def test_double_round_robin_repeats_the_table_with_colours_reversed(n):
    published, played = table(n), schedule(n, double=True)
    cycle = n - 1
    # the first cycle swaps the table's last two rounds, as FIDE recommends for a double round robin
    assert played[:cycle] == published[:-2] + [published[-1], published[-2]]
    assert played[cycle:] == [[(black, white) for white, black in rnd] for rnd in published]


@pytest.mark.parametrize("n", range(2, 17))
@pytest.mark.parametrize("double", [False, True])
def test_everybody_meets_everybody_with_balanced_colours(n, double):
    rounds = schedule(n, double)
    meetings = [frozenset(g) for rnd in rounds for g in rnd if g[1] is not None]
    assert sorted(map(sorted, meetings)) == sorted(
        sorted(pair) for pair in combinations(range(1, n + 1), 2) for _ in range(1 + double))
    for number in range(1, n + 1):
        assert sum(number in g for rnd in rounds for g in rnd) == len(rounds)   # once a round
        colours = "".join("W" if g[0] == number else "B"
                          for rnd in rounds for g in rnd if number in g and g[1] is not None)
        assert "WWW" not in colours and "BBB" not in colours
        assert abs(colours.count("W") - colours.count("B")) <= (0 if double else 1)


def test_games_against_a_player_who_withdrew_are_forfeits():
    pairings = pair_round("roundrobin", field(4), [], 1, withdrawn={"p4", "p2"})
    assert [(p.white, p.black, p.result) for p in pairings] == [("p1", "p4", "+-"), ("p2", "p3", "-+")]


def test_pairing_numbers_must_be_one_to_n():
    with pytest.raises(ValueError):
        pair_round("roundrobin", [Entrant("a", 1500, 1), Entrant("b", 1500, 3)], [], 1)
    with pytest.raises(ValueError):
        pair_round("roundrobin", field(4), [], 4)
