"""An independent Dutch pairer for the tests: caissify-pairings (pinned in the test extra), fed the
history pbm's games describe, and random Swiss tournaments to compare pbm's pairer with it.

caissify-pairings states A.7 conformance with bbpPairings (FIDE-endorsed) on the Dutch rules of
2017-2025; it is used here only to judge pbm.tournaments.dutch, never by pbm itself.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from caissify_pairings import generate_pairings

from pbm.tournaments import Entrant, Game, Pairing
from pbm.tournaments.model import score

Pairer = Callable[[list[Entrant], list[Game], int, int], list[Pairing]]


def history(entrants: list[Entrant], games: list[Game], round_no: int) -> tuple[list[dict], set]:
    """caissify's players and previous pairings before `round_no`, by its documented contract."""
    ids = {e.user: i for i, e in enumerate(entrants, start=1)}
    numbers = {e.user: n for n, e in enumerate(sorted(entrants, key=lambda e: (-e.rating, e.user)), 1)}
    before = [g for g in games if g.round < round_no]
    at = [{e.user: score("swiss", e.user, [g for g in before if g.round < r]) for e in entrants}
          for r in range(round_no + 1)]
    found = []
    for e in entrants:
        colours, floats = [], []
        for r in range(1, round_no):
            g = next((g for g in before if g.round == r and e.user in (g.white, g.black)), None)
            if g is None or g.bye or g.forfeit:
                colours.append("none")
                floats.append("down")
                continue
            colours.append("white" if g.white == e.user else "black")
            own, theirs = at[r][e.user], at[r][g.opponent(e.user)]
            floats.append("down" if own > theirs else "up" if own < theirs else "none")
        found.append({"id": ids[e.user], "name": e.user, "score": at[round_no][e.user],
                      "rating": e.rating, "starting_number": numbers[e.user],
                      "color_hist": colours, "float_history": floats,
                      "bye_count": sum(1 for g in before if g.bye and g.white == e.user),
                      "forfeit_win_count": sum(1 for g in before if g.forfeit and g.black
                                               and g.points(e.user) == 1.0)})
    met = {(ids[g.white], ids[g.black]) for g in before if g.black is not None}
    return found, met


def reference(entrants: list[Entrant], games: list[Game], round_no: int,
              rounds: int) -> list[Pairing]:
    """caissify-pairings' Dutch pairing of the round, as pbm Pairings."""
    found, met = history(entrants, games, round_no)
    users = {e_id: e.user for e_id, e in enumerate(entrants, start=1)}
    out = generate_pairings(system="dutch", players=found, previous_pairings=met,
                            round_number=round_no, total_rounds=rounds)
    return [Pairing(round_no, p["table"], users[p["white_id"]],
                    users[p["black_id"]] if p.get("black_id") else None) for p in out]


def tournament(seed: int, pairer: Pairer, n: int | None = None, rounds: int | None = None,
               ) -> list[list[Pairing]]:
    """A random Swiss played with `pairer`: ratings, results (draws, upsets) drawn from `seed`."""
    rng = random.Random(seed)
    n = n or rng.randrange(5, 21)
    rounds = rounds or rng.randrange(3, max(4, (n + 1) // 2 + 1))
    entrants = [Entrant(f"p{i:02}", rng.randrange(1200, 2500)) for i in range(n)]
    games: list[Game] = []
    played = []
    for round_no in range(1, rounds + 1):
        pairings = pairer(entrants, games, round_no, rounds)
        played.append(pairings)
        for p in pairings:
            if p.black is None:
                games.append(p.game())
                continue
            draw = rng.random()
            result = "1/2-1/2" if draw < 0.3 else "1-0" if draw < 0.65 else "0-1"
            games.append(Game(round_no, p.white, p.black, result))
    return played
