"""The Dutch system's criteria (C.04.3 3.4-3.6) as the weight of an edge in one bracket's matching.

A bracket is paired by a maximum-weight matching (pbm.tournaments.dutch) of a graph whose nodes are
the bracket (the players moved down to it, MDPs, and its residents), every player below it and a
bye node when their number is odd; only pairs the absolute criteria allow are edges, so a perfect
matching is the completion criterion (C4).  An edge's weight is a number whose digits, in a mixed
radix, are the criteria from the most important down; each radix exceeds what all the lower digits
of a whole matching can add up to, so the heaviest matching meets them lexicographically, as the
Dutch system's order of criteria asks.  The digits, each "more is better":

   0  the absolute criteria kept (only when some had to be relaxed for the round: see swiss)
   1  C5: the bye to the lowest score (the bye edge: the points below the highest score)
   2  C6: pairs inside the bracket (the fewest downfloaters)
   3  C7: the scores of the paired bracket players, a higher score outweighing any number of
      lower ones (the downfloaters' scores as low as possible)
   4  C8: pairs in the next bracket (downfloater or resident of the next score group with one
      of its residents), so that the choice of downfloaters lets the next bracket pair best;
   5  then the scores of the players paired there, as in 3 (the next bracket's C7)
   6  C9: the bye to a player with the fewest unplayed rounds, only in a bracket whose single
      downfloater is the one who gets the bye (as bbpPairings, FIDE's endorsed program, applies
      it; elsewhere the colour criteria come first)
   7  C10, 8 C11: topscorers (last round) kept within a colour difference of 2 and no third colour
      in a row
   9  C12: colour preferences granted; 10 C13: strong colour preferences granted
  11  C14: downfloaters who did not float down the round before; 12 C15: MDPs' opponents who did
      not float up the round before; 13 C16, 14 C17: the same two rounds before
  15  C18: MDPs who floated down the round before, paired across the smallest score difference;
      16 C19 the same for opponents who floated up; 17 C20, 18 C21 two rounds before
  then the order digits of the pass (pbm.tournaments.dutch): which MDPs are paired, the Dutch
  transpositions and exchanges, so that among equally good pairings the first one the Dutch
  system would generate wins.
"""
from __future__ import annotations

from collections.abc import Sequence

from pbm.tournaments.swiss import STRONG, Player, colours, compatible

Digits = tuple[int, ...]


class Criteria:
    """The quality digits of the edges of one bracket's graph."""

    def __init__(self, bracket: Sequence[Player], moved: Sequence[Player],
                 lower: Sequence[Player], relaxed: frozenset[str], c9: bool = False) -> None:
        self.inside = {p.user for p in bracket}
        self.moved = {p.user for p in moved}
        below = sorted({p.score for p in lower}, reverse=True)
        self.next = {p.user for p in lower if p.score == below[0]} if below else set()
        everyone = [*bracket, *lower]
        self.top = max(half(p.score) for p in everyone)
        self.rounds = max((len(p.floats) for p in everyone), default=0)
        levels = sorted({p.score for p in bracket})
        self.level = {s: (len(bracket) + 1) ** i for i, s in enumerate(levels)}
        ahead = sorted({p.score for p in bracket} | ({below[0]} if below else set()))
        self.ahead = {s: (len(bracket) + len(self.next) + 1) ** i for i, s in enumerate(ahead)}
        self.relaxed = relaxed
        self.c9 = c9

    def pair(self, a: Player, b: Player) -> Digits:
        kept = int(not self.relaxed or compatible(a, b))
        ins = a.user in self.inside, b.user in self.inside
        in_next = (a.user in self.next or ins[0]) and (b.user in self.next or ins[1]) and not all(ins)
        if not all(ins):
            out = [p for p, i in zip((a, b), ins) if i]
            floats = [int(not any(p.floated(back) == "D" for p in out)) for back in (1, 2)]
            ahead = self.ahead[a.score] + self.ahead[b.score] if in_next else 0
            return (kept, 0, 0, 0, int(in_next), ahead, 0, 2, 2, 2, 2,
                    floats[0], 1, floats[1], 1, *(self.top,) * 4)
        colour = self.colours(a, b)
        mdp, other = (a, b) if a.user in self.moved else (b, a)
        across = mdp.user in self.moved and other.user not in self.moved
        gap = self.top - abs(half(a.score) - half(b.score))
        return (kept, 0, 1, self.level[a.score] + self.level[b.score], 0, 0, 0, *colour,
                1, int(not across or other.floated(1) != "U"),
                1, int(not across or other.floated(2) != "U"),
                gap if across and mdp.floated(1) == "D" else self.top,
                gap if across and other.floated(1) == "U" else self.top,
                gap if across and mdp.floated(2) == "D" else self.top,
                gap if across and other.floated(2) == "U" else self.top)

    def bye(self, a: Player) -> Digits:
        kept = int(not self.relaxed or not a.bye_barred)
        floats = [int(a.user not in self.inside or a.floated(back) != "D") for back in (1, 2)]
        return (kept, self.top - half(a.score), 0, 0, 0, 0,
                self.rounds - a.unplayed if self.c9 else 0, 2, 2, 2, 2,
                floats[0], 1, floats[1], 1, *(self.top,) * 4)

    @staticmethod
    def colours(a: Player, b: Player) -> Digits:
        """C10-C13 for the pair as the Dutch colour allocation would give it its colours."""
        white, black = colours(*sorted((a, b), key=lambda p: p.rank))
        top = wide = missed = strong = 0
        for p, got in ((white, "W"), (black, "B")):
            after = p.colours + got
            if a.topscorer or b.topscorer:
                top += abs(after.count("W") - after.count("B")) > 2
                wide += after[-3:] in ("WWW", "BBB")
            wanted, strength = p.preference
            if wanted is not None and wanted != got:
                missed += 1
                strong += strength >= STRONG
        return 2 - top, 2 - wide, 2 - missed, 2 - strong


def half(points: float) -> int:
    return round(2 * points)


def pack(edges: dict[tuple, Digits], matched: int) -> dict[tuple, int]:
    """The digits of every edge as one integer: each digit's radix is more than the sum of the lower
    digits over `matched` edges, so integer comparison of matchings is lexicographic."""
    width = len(next(iter(edges.values())))
    tops = [max(d[i] for d in edges.values()) for i in range(width)]
    radix = [1] * width
    for i in range(width - 2, -1, -1):
        radix[i] = radix[i + 1] * (tops[i + 1] * matched + 1)
    return {e: sum(d * r for d, r in zip(digits, radix)) for e, digits in edges.items()}
