"""The Swiss pairer: hand-worked rounds, and its promises over random tournaments.

The promises are checked against an independent judge: a plain maximum-cardinality matching on the
graph of the allowed pairs says whether a pairing without a rematch (a second bye, a third colour
in a row) existed at all; the pairer may break a promise only when it did not.
"""
from __future__ import annotations

import random

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.tournaments import Entrant, Game, Pairing, pair_round

SIX = [Entrant(user, rating) for user, rating in zip("abcdef", (2000, 1900, 1800, 1700, 1600, 1500))]


def play(pairings: list[Pairing], results: list[str]) -> list[Game]:
    return [p.game() if p.black is None else Game(p.round, p.white, p.black, result)
            for p, result in zip(pairings, results + [""] * (len(pairings) - len(results)))]


def boards(pairings: list[Pairing]) -> list[tuple[str, str | None]]:
    return [(p.white, p.black) for p in pairings]


def test_six_players_three_rounds():
    # Round 1: top half against bottom half, a v d, b v e, c v f; the first player of each board
    # alternates colours by pairing number (a White, b Black, c White).
    games = play(round1 := pair_round("swiss", SIX, [], 1), ["1-0", "1/2-1/2", "0-1"])
    assert boards(round1) == [("a", "d"), ("e", "b"), ("c", "f")]
    # a, f on 1; b, e on 1/2 (they met: both float down); c, d on 0.  Colours: everybody alternates.
    games += play(round2 := pair_round("swiss", SIX, games, 2), ["0-1", "1-0", "1/2-1/2"])
    assert boards(round2) == [("f", "a"), ("b", "c"), ("d", "e")]
    # a 2, b 1.5, e 1, f 1, d 1/2, c 0: a v b and e v f and c v d are new and alternate colours.
    assert boards(pair_round("swiss", SIX, games, 3)) == [("a", "b"), ("e", "f"), ("c", "d")]


def test_five_players_the_bye_goes_to_the_lowest_ranked_who_has_not_had_one():
    five = SIX[:5]
    round1 = pair_round("swiss", five, [], 1)
    assert boards(round1) == [("a", "c"), ("d", "b"), ("e", None)]
    games = play(round1, ["1-0", "0-1"])
    # a, b, e on 1 (e's bye is a win), c, d on 0: d is the lowest ranked without a bye; e, whose
    # colours are free, floats down to c, and b and a keep alternating.
    round2 = pair_round("swiss", five, games, 2)
    assert boards(round2) == [("b", "a"), ("c", "e"), ("d", None)]
    games += play(round2, ["1/2-1/2", "1-0"])
    # a, b on 1.5; c, d, e on 1.  e and d had their byes, so c, ranked above them, has it; a v b
    # and d v b were played, so a v d and b v e; d (one White more) and e (one Black more) balance.
    assert boards(pair_round("swiss", five, games, 3)) == [("a", "d"), ("e", "b"), ("c", None)]


def test_withdrawn_players_are_left_out():
    pairings = pair_round("swiss", SIX, [], 1, withdrawn={"a"})
    assert "a" not in {u for p in pairings for u in (p.white, p.black)}
    assert [p.black for p in pairings].count(None) == 1


def test_a_round_waits_for_the_round_before():
    games = [Game(1, "a", "b", None)]
    try:
        pair_round("swiss", SIX, games, 2)
    except ValueError as error:
        assert "finish" in str(error)
    else:
        raise AssertionError("paired over an unfinished round")


def perfect(players: list[str], allowed, bye_allowed) -> bool:
    """Whether a pairing of everybody (and one bye when odd) uses only allowed pairs."""
    g = nx.Graph()
    g.add_nodes_from(players)
    g.add_edges_from((a, b) for i, a in enumerate(players) for b in players[i + 1:] if allowed(a, b))
    if len(players) % 2:
        g.add_edges_from((a, "BYE") for a in players if bye_allowed(a))
    return 2 * len(nx.max_weight_matching(g, maxcardinality=True)) == len(players) + len(players) % 2


def free_colours(colours: str) -> set[str]:
    """The colours a player may have next: not a third in a row, colour difference within 2."""
    difference = colours.count("W") - colours.count("B")
    free = {"W", "B"}
    if colours.endswith("WW") or difference >= 2:
        free.discard("W")
    if colours.endswith("BB") or difference <= -2:
        free.discard("B")
    return free


def check_round(users: list[str], games: list[Game], pairings: list[Pairing]) -> None:
    paired = [u for p in pairings for u in (p.white, p.black) if u is not None]
    assert sorted(paired) == sorted(users)                       # everybody once
    byes = [p.white for p in pairings if p.black is None]
    assert len(byes) == len(users) % 2
    met = {frozenset((g.white, g.black)) for g in games if g.black is not None}
    had_bye = {g.white for g in games if g.black is None}
    colours = {u: "".join(g.colour(u) for g in games if u in (g.white, g.black) and g.black)
               for u in users}

    def new(a, b):
        return frozenset((a, b)) not in met

    def fits(a, b):
        return any(c in free_colours(colours[a]) and o in free_colours(colours[b])
                   for c, o in (("W", "B"), ("B", "W")))

    rematches = [p for p in pairings if p.black and not new(p.white, p.black)]
    if not perfect(users, new, lambda a: True):
        return                                                   # rematches unavoidable
    assert not rematches
    if not perfect(users, new, lambda a: a not in had_bye):
        return
    assert not set(byes) & had_bye
    clashes = [p for p in pairings if p.black and
               ("W" not in free_colours(colours[p.white]) or
                "B" not in free_colours(colours[p.black]))]
    if perfect(users, lambda a, b: new(a, b) and fits(a, b), lambda a: a not in had_bye):
        assert not clashes, clashes


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 40), rounds=st.integers(1, 7), seed=st.integers(0, 2 ** 32),
       draws=st.floats(0, 0.6), equal_ratings=st.booleans())
def test_swiss_keeps_its_promises_over_random_tournaments(n, rounds, seed, draws, equal_ratings):
    rng = random.Random(seed)
    entrants = [Entrant(f"u{i:02}", 1500 if equal_ratings else rng.randrange(1000, 2400))
                for i in range(n)]
    users = [e.user for e in entrants]
    games: list[Game] = []
    for round_no in range(1, rounds + 1):
        pairings = pair_round("swiss", entrants, games, round_no)
        assert [p.round for p in pairings] == [round_no] * len(pairings)
        assert [p.board for p in pairings] == list(range(1, len(pairings) + 1))
        check_round(users, games, pairings)
        results = [rng.choice(["1-0", "0-1"]) if rng.random() > draws else "1/2-1/2"
                   for _ in pairings]
        games += play(pairings, results)
