"""Round robin by the Berger tables (FIDE Handbook C.05, Annex 1).

For an even number m of places, numbers 1..m-1 turn around a circle while m stays put; round r is
the first round turned on by (r-1)*m/2 places.  Board 1 is m's game: the other player has White in
odd rounds, m in even rounds; on every other board the player from the top half of the circle has
White.  This gives the published tables, colours balanced: nobody has the same colour three times
in a row.  An odd field gets a dummy, number m = n+1: whoever meets it sits that round out (a bye).
A double round robin plays the same schedule again with colours reversed; as the FIDE Handbook
recommends, its first cycle plays the last two rounds of the table in swapped order, so that nobody
has the same colour three times in a row across the two cycles.
"""
from __future__ import annotations

from collections.abc import Iterable

from pbm.tournaments.model import Entrant, Pairing, forfeit_against


def places(n_entrants: int) -> int:
    """The places of the Berger table: the field, or one more (the dummy) when it is odd."""
    return n_entrants + n_entrants % 2


def rounds(n_entrants: int, double: bool = False) -> int:
    return (places(n_entrants) - 1) * (2 if double else 1)


def berger_round(m: int, round_no: int) -> list[tuple[int, int]]:
    """Round `round_no` (1..m-1) of the Berger table for `m` places (even): (White, Black) numbers,
    board by board."""
    if m % 2 or not 1 <= round_no < m:
        raise ValueError(f"no round {round_no} in a Berger table of {m} places")
    shift = (round_no - 1) * m // 2

    def turned(number: int) -> int:
        return (number - 1 + shift) % (m - 1) + 1

    first = turned(1)
    boards = [(first, m) if round_no % 2 else (m, first)]
    boards += [(turned(k), turned(m + 1 - k)) for k in range(2, m // 2 + 1)]
    return boards


def pair(entrants: list[Entrant], round_no: int, double: bool = False,
         withdrawn: Iterable[str] = frozenset()) -> list[Pairing]:
    """The pairings of round `round_no`; a game against a player who withdrew is a forfeit, and the
    player who meets the dummy has a bye (listed last)."""
    by_number = {e.number: e.user for e in entrants}
    if sorted(by_number) != list(range(1, len(entrants) + 1)):
        raise ValueError("a round robin needs the pairing numbers 1..n, each once")
    m = places(len(entrants))
    if not 1 <= round_no <= rounds(len(entrants), double):
        raise ValueError(f"a round robin of {len(entrants)} has no round {round_no}")
    second_cycle = round_no >= m
    table_round = round_no - (m - 1) * second_cycle
    if double and not second_cycle and table_round >= m - 2 and m > 2:
        table_round = 2 * m - 3 - table_round           # m-2 <-> m-1
    boards = berger_round(m, table_round)
    games, byes = [], []
    for white, black in boards:
        if second_cycle:
            white, black = black, white
        if m in (white, black) and m not in by_number:
            byes.append(by_number[white if black == m else black])
        else:
            games.append((by_number[white], by_number[black]))
    pairings = [forfeit_against(round_no, board, white, black, withdrawn)
                for board, (white, black) in enumerate(games, start=1)]
    return pairings + [Pairing(round_no, len(games) + 1, user, None) for user in byes]
