"""Accelerated Swiss pairing: the Baku method (FIDE Handbook C.04.5.1), as virtual points.

Before the first round the players are split into two groups by the initial ranking: GA, the top
of the list, 2 x ceil(N / 4) players (the first half rounded up to an even number), and GB, the
rest.  In the first half of the rounds (rounded up), the accelerated rounds, each GA player is
paired as if they had virtual points on top of their score: 1 in the first half of the accelerated
rounds (rounded up), half a point in the others.  Virtual points only pair: they never count in
the standings, the tie-breaks or the TRF's points (the TRF carries them as 250 lines).
"""
from __future__ import annotations

from pbm.tournaments.model import Entrant


def baku(entrants: list[Entrant], rounds: int) -> dict[str, tuple[float, ...]]:
    """Each GA player's virtual points in rounds 1..`rounds` (GB players have none: left out)."""
    ranked = sorted(entrants, key=lambda e: (-e.rating, e.user))
    top = 2 * -(-len(ranked) // 4)
    accelerated = -(-rounds // 2)
    full = -(-accelerated // 2)
    points = tuple(1.0 if n <= full else 0.5 if n <= accelerated else 0.0
                   for n in range(1, rounds + 1))
    return {e.user: points for e in ranked[:top]}
