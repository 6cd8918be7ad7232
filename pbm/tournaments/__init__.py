"""Tournaments by mail, the pure part: who plays whom, with which colour, and who stands where.

Plain records in (`Entrant`, `Game`), plain records out (`Pairing`, `Standing`, text, HTML); no
database, no mail, no clock, and the same input always gives the same answer, so the caller can
ask again whenever a game ends.  Systems: "roundrobin" (single or double, Berger tables),
"swiss" (FIDE's Dutch system) and "knockout" (seeded bracket, drawn games replayed); any of them
with paired games (pbm.tournaments.paired).
"""
from __future__ import annotations

from collections.abc import Iterable

from pbm.tournaments import dutch, knockout, roundrobin
from pbm.tournaments.model import (
    SYSTEMS,
    Entrant,
    Game,
    Pairing,
    Standing,
    check_system,
)

__all__ = ["SYSTEMS", "Entrant", "Game", "Pairing", "Standing", "pair_round", "rounds_needed",
           "swiss_rounds"]


def rounds_needed(system: str, n_entrants: int, rounds_requested: int | None = None, *,
                  double: bool = False) -> int:
    """How many rounds the tournament has: all of a round robin's (`double`: both cycles), the
    knockout's bracket, or the Swiss rounds asked for, at most `swiss_rounds(n_entrants)`."""
    check_system(system)
    if n_entrants < 2:
        raise ValueError("a tournament needs two players")
    if system == "roundrobin":
        return roundrobin.rounds(n_entrants, double)
    if system == "knockout":
        return knockout.rounds(n_entrants)
    if rounds_requested is None or rounds_requested < 1:
        raise ValueError("a Swiss tournament needs its number of rounds")
    return min(rounds_requested, swiss_rounds(n_entrants))


def swiss_rounds(n_entrants: int) -> int:
    """The most Swiss rounds a field can always pair without a rematch: half the field, rounded
    up.  After r rounds every player has met r others; while r is below half the field (counting
    the bye as a player when it is odd), the pairs not yet played still hold a pairing of everybody
    (Dirac's theorem), so FIDE's rule against rematches (C.04.1 2) can hold in every round."""
    return max(1, (n_entrants + 1) // 2)


def pair_round(system: str, entrants: list[Entrant], games: list[Game], round_no: int, *,
               double: bool = False, withdrawn: Iterable[str] = frozenset(),
               rounds: int | None = None,
               virtual: dict[str, tuple[float, ...]] | None = None) -> list[Pairing]:
    """The pairings of round `round_no` (1-based), given every game so far.  Swiss and knockout
    rounds need the rounds before them decided; a knockout's replays come from
    `knockout.replays` or `knockout.next_pairings`.  A pairing with a player in `withdrawn` is a
    forfeit (its `result` set); the Swiss pairer leaves them out instead.  `rounds`: how many the
    tournament has (the Swiss pairer's last round has topscorers); `virtual`: an accelerated
    Swiss's virtual points (pbm.tournaments.acceleration.baku)."""
    check_system(system)
    if system == "roundrobin":
        return roundrobin.pair(entrants, round_no, double, withdrawn)
    if system == "swiss":
        return dutch.pair(entrants, games, round_no, withdrawn, rounds, virtual=virtual)
    return knockout.pair(entrants, games, round_no, withdrawn)
