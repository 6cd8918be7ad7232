"""Swiss pairing by the principles of the Dutch system (FIDE Handbook C.04.3), as one matching.

Instead of the Dutch system's search through transpositions and exchanges, a round is the maximum
weight matching (networkx `max_weight_matching`, `maxcardinality=True`, so everybody is paired) of
the complete graph of the players still in, plus a "bye" node when their number is odd.  The weight
of an edge is a number whose digits, in a mixed radix, are the criteria from the most to the least
important; each radix exceeds what all the lower criteria of a whole matching can add up to, so the
matching satisfies the criteria lexicographically:

  1. not a rematch (1, else 0): a perfect matching without rematches always beats one with any,
     so rematch edges are as good as absent while one exists, and the fewest are used otherwise;
  2. the bye goes to a player who has not had one (1, else 0);
  3. no clash of absolute colour preferences: the two do not both need the same colour (1, else 0);
  4. small score differences: D^2 - d^2, d the score difference in half points and D more than the
     largest, so the sum of squared differences is minimised (a float over two score groups costs
     more than two floats over one); the bye node counts as holding the lowest score, so the bye
     goes down to the lowest score group;
  5. floats as low as possible (the Dutch system pairs the score groups from the top down): a
     pair across score groups (the bye counts as one) is worth D - 2(s - lowest), s the higher
     score; a pair within a score group, D;
  6. the bye to the lowest ranked: the bye edge of the player ranked k-th (from 0) is worth k;
  7. no clash of strong colour preferences, then 8. none of mild ones (1, else 0 each);
  9. top half against bottom half (Dutch): in a score group of g players, a pair at places p < q
     is worth g - |q - p - g//2|, which is greatest for 1 v g/2+1, 2 v g/2+2, ...; a player
     floating down is worth most against the top of the lower group.

Players rank by score, then rating, then user id.  Colours follow the Dutch colour allocation (E.1
to E.5) from each player's colour preference: absolute when the colour difference (games with
White minus games with Black) is above 1 or below -1, or the last two games had the same colour;
strong when it is 1 or -1; mild (alternate) when it is 0.  Only games with an opponent count for
colours and rematches; forfeits are among them, as a mail game lost on time was usually begun.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

from pbm.tournaments.model import Entrant, Game, Pairing, score

BYE = ("bye",)                    # the bye node: a tuple, so it never equals a user id
ABSOLUTE, STRONG, MILD = 3, 2, 1


@dataclass(frozen=True)
class Player:
    """A player as the pairing sees them before the round."""
    user: str
    rank: int                     # 0 = first, by score, rating, user id
    number: int                   # 1.. by rating, then user id (the Dutch initial ranking)
    score: float
    opponents: frozenset[str]
    colours: str                  # "W"/"B" per game with an opponent, in round order
    rounds: tuple[int, ...]       # the round of each of those games
    had_bye: bool

    @property
    def difference(self) -> int:
        return self.colours.count("W") - self.colours.count("B")

    @property
    def preference(self) -> tuple[str | None, int]:
        """The colour this player wants and how strongly (ABSOLUTE, STRONG, MILD; 0 for none)."""
        if not self.colours:
            return None, 0
        other = "B" if self.colours[-1] == "W" else "W"
        if abs(self.difference) > 1:
            return ("B" if self.difference > 0 else "W"), ABSOLUTE
        if self.colours[-2:] in ("WW", "BB"):
            return other, ABSOLUTE
        if self.difference:
            return ("B" if self.difference > 0 else "W"), STRONG
        return other, MILD


def players(entrants: list[Entrant], games: list[Game], round_no: int,
            withdrawn: Iterable[str] = frozenset()) -> list[Player]:
    """The players to pair in round `round_no`, ranked, from the games of the rounds before it."""
    before = [g for g in games if g.round < round_no]
    if any(g.result is None and not g.bye for g in before):
        raise ValueError(f"round {round_no} cannot be paired before the rounds before it finish")
    numbers = {e.user: n for n, e in enumerate(sorted(entrants, key=lambda e: (-e.rating, e.user)),
                                               start=1)}
    found = []
    for entrant in entrants:
        if entrant.user in withdrawn:
            continue
        played = sorted((g for g in before if entrant.user in (g.white, g.black) and not g.bye),
                        key=lambda g: g.round)
        found.append((score("swiss", entrant.user, before), entrant, played,
                      any(g.bye and g.white == entrant.user for g in before)))
    found.sort(key=lambda f: (-f[0], -f[1].rating, f[1].user))
    return [Player(e.user, rank, numbers[e.user], points,
                   frozenset(g.opponent(e.user) for g in played),
                   "".join(g.colour(e.user) for g in played), tuple(g.round for g in played), bye)
            for rank, (points, e, played, bye) in enumerate(found)]


def pair(entrants: list[Entrant], games: list[Game], round_no: int,
         withdrawn: Iterable[str] = frozenset()) -> list[Pairing]:
    """The pairings of Swiss round `round_no`, board by board, the bye (if any) last."""
    field = players(entrants, games, round_no, withdrawn)
    if len(field) < 2:
        raise ValueError("a Swiss round needs two players")
    import networkx  # only when a round is paired: every `pbm deliver` would pay its 70 ms import
    matching = networkx.max_weight_matching(graph(field), maxcardinality=True)
    pairs, bye = [], None
    for u, v in matching:
        if BYE in (u, v):
            bye = v if u == BYE else u
        else:
            pairs.append(colours(u, v) if u.rank < v.rank else colours(v, u))
    pairs.sort(key=lambda p: (-max(p[0].score, p[1].score), -(p[0].score + p[1].score),
                              min(p[0].rank, p[1].rank)))
    found = [Pairing(round_no, board, w.user, b.user) for board, (w, b) in enumerate(pairs, 1)]
    return found + ([Pairing(round_no, len(found) + 1, bye.user, None)] if bye else [])


def graph(field: list[Player]) -> nx.Graph:
    """The complete graph of `field` (and the bye node when it is odd), weighted as the module says."""
    import networkx  # (see pair)
    criteria = Criteria(field)
    g = networkx.Graph()
    for i, a in enumerate(field):
        for b in field[i + 1:]:
            g.add_edge(a, b, weight=criteria.weight(criteria.pair(a, b)))
        if len(field) % 2:
            g.add_edge(a, BYE, weight=criteria.weight(criteria.bye(a)))
    return g


class Criteria:
    """The criteria of the module's weight scheme for the edges of one round's graph."""

    def __init__(self, field: list[Player]) -> None:
        self.n = len(field)
        self.lowest = min(p.score for p in field)
        self.widest = self.half_points(max(p.score for p in field)) + 1
        self.groups: dict[float, list[Player]] = {}
        for player in field:
            self.groups.setdefault(player.score, []).append(player)
        self.place = {p.user: i for group in self.groups.values() for i, p in enumerate(group)}
        #        rematch, bye twice, absolute, score, float, bye rank, strong, mild, halves
        highest = (1, 1, 1, self.widest ** 2, self.widest, self.n, 1, 1, self.n)
        pairs_in_matching = (self.n + 1) // 2
        self.radix = [1]
        for top in reversed(highest[1:]):
            self.radix.insert(0, self.radix[0] * (top * pairs_in_matching + 1))

    def half_points(self, score: float) -> int:
        """`score` above the lowest, in half points."""
        return int(2 * (score - self.lowest))

    def weight(self, levels: tuple[int, ...]) -> int:
        return sum(level * base for level, base in zip(levels, self.radix))

    def pair(self, a: Player, b: Player) -> tuple[int, ...]:
        (pa, sa), (pb, sb) = a.preference, b.preference
        clash = min(sa, sb) if pa is not None and pa == pb else 0
        upper, lower = (a, b) if a.score >= b.score else (b, a)
        d = self.half_points(upper.score) - self.half_points(lower.score)
        if d:
            low_float, halves = self.widest - self.half_points(upper.score), self.n - self.place[lower.user]
        else:
            size = len(self.groups[a.score])
            low_float = self.widest
            halves = size - abs(abs(self.place[a.user] - self.place[b.user]) - size // 2)
        return (b.user not in a.opponents, 1, clash < ABSOLUTE, self.widest ** 2 - d ** 2, low_float,
                0, clash < STRONG, clash < MILD, halves)

    def bye(self, a: Player) -> tuple[int, ...]:
        d = self.half_points(a.score)
        return (1, not a.had_bye, 1, self.widest ** 2 - d ** 2, self.widest - d, a.rank, 1, 1,
                self.n)


def colours(high: Player, low: Player) -> tuple[Player, Player]:
    """(White, Black) for `high` (the higher ranked) and `low`, by the Dutch rules E.1-E.5."""
    (ph, sh), (pl, sl) = high.preference, low.preference
    if ph is None and pl is None:                        # E.5: odd numbers have White first
        return (high, low) if high.number % 2 else (low, high)
    if ph is None or pl is None or ph != pl:             # E.1: both preferences, or the only one
        wants_white = ph == "W" if ph is not None else pl == "B"
        return (high, low) if wants_white else (low, high)
    if sh != sl or sh == ABSOLUTE and abs(high.difference) != abs(low.difference):     # E.2
        stronger = max((high, low), key=lambda p: (p.preference[1], abs(p.difference)))
        other = low if stronger is high else high
        return (stronger, other) if ph == "W" else (other, stronger)
    mine = dict(zip(high.rounds, high.colours))          # E.3: alternate from the latest round
    for round_no, theirs in reversed(list(zip(low.rounds, low.colours))):   # they differed
        if mine.get(round_no, theirs) != theirs:
            return (high, low) if mine[round_no] == "B" else (low, high)
    return (high, low) if ph == "W" else (low, high)     # E.4: the higher ranked's preference
