"""FIDE's Dutch system (C.04.3) round by round: the brackets paired from the top score group down.

Each bracket (its MDPs, the players moved down to it, and its residents) is paired by maximum-weight
matchings (networkx) of a graph that also holds every player below it, so that whatever the bracket
does, the rest of the round can still be paired (C4); the weights are pbm.tournaments.criteria's.
Three passes, each adding the Dutch system's order of generation as the least important digits:

  1. the quality alone gives the number of pairs the bracket makes;
  2. with MDPs: the MDPs paired are the highest ranked that can be (C.04.3 4.4's first sets), each
     against the first resident in order that still leaves an equally good pairing (S2's
     transpositions, 4.2); these pairs are fixed;
  3. the remainder (or a homogeneous bracket) is split into S1, its highest players, one per pair
     still to make, and S2; the pairing with the fewest exchanges between them (4.3), then the first
     transposition of S2 (4.2) is taken.

The bracket's players left unpaired float down to the next bracket; the last one left gets the bye.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx

from pbm.tournaments.criteria import Criteria, Digits, pack
from pbm.tournaments.model import Entrant, Game, Pairing
from pbm.tournaments.swiss import RELAXATIONS, Player, broken, colours, compatible, players

BYE = ("bye",)                    # the bye node: a tuple, so it never equals a Player


def pair(entrants: list[Entrant], games: list[Game], round_no: int,
         withdrawn: Iterable[str] = frozenset(), rounds: int | None = None,
         initial: str = "W", virtual: dict[str, tuple[float, ...]] | None = None
         ) -> list[Pairing]:
    """The pairings of Swiss round `round_no` (of `rounds`), board by board, the bye last; a
    pairing that breaks a relaxed absolute criterion names it in `relaxed`; `initial`: the colour
    drawn for the first player (White in pbm's own tournaments); `virtual`: an accelerated
    Swiss's virtual points (pbm.tournaments.swiss.players)."""
    field = players(entrants, games, round_no, withdrawn, last=round_no == rounds, virtual=virtual)
    if len(field) < 2:
        raise ValueError("a Swiss round needs two players")
    relaxed: frozenset[str] = frozenset()
    for rule in RELAXATIONS:
        if pairable(field, relaxed):
            break
        relaxed |= {rule}
    pairs, bye = brackets(field, relaxed)
    ordered = [colours(*sorted(p, key=lambda x: x.rank), initial) for p in pairs]
    ordered.sort(key=lambda p: (-max(p[0].score, p[1].score), -(p[0].score + p[1].score),
                                min(p[0].rank, p[1].rank)))          # C.04.2: the boards' order
    found = [Pairing(round_no, board, w.user, b.user, relaxed=broken(w, b, relaxed))
             for board, (w, b) in enumerate(ordered, 1)]
    if bye is not None:
        found.append(Pairing(round_no, len(found) + 1, bye.user, None,
                             relaxed="bye" if bye.bye_barred else None))
    return found


def graph(nodes: Sequence[Player], relaxed: frozenset[str]) -> networkx.Graph:
    """The pairs (and byes) the absolute criteria, less the relaxed ones, allow."""
    import networkx  # only when a round is paired: every `pbm deliver` would pay its 70 ms import
    g = networkx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from((a, b) for i, a in enumerate(nodes) for b in nodes[i + 1:]
                     if compatible(a, b, relaxed))
    if len(nodes) % 2:
        g.add_edges_from((a, BYE) for a in nodes if "bye" in relaxed or not a.bye_barred)
    return g


def pairable(field: Sequence[Player], relaxed: frozenset[str]) -> bool:
    """Whether everybody can be paired (one bye when odd) within the criteria not relaxed."""
    import networkx  # (see graph)
    matching = networkx.max_weight_matching(graph(field, relaxed), maxcardinality=True)
    return 2 * len(matching) == len(field) + len(field) % 2


def brackets(field: Sequence[Player], relaxed: frozenset[str]
             ) -> tuple[list[tuple[Player, Player]], Player | None]:
    """The round's pairs and bye, bracket by bracket from the top."""
    left, moved, pairs = list(field), [], []
    for score in sorted({p.score for p in field}, reverse=True):
        residents = [p for p in left if p.score == score and p not in moved]
        bracket = sorted([*moved, *residents], key=lambda p: p.rank)
        lower = [p for p in left if p.score < score and p not in moved]
        made = bracket_pairs(bracket, moved, residents, lower, relaxed)
        pairs += made
        done = {p for pair in made for p in pair}
        moved = [p for p in bracket if p not in done]
        left = [p for p in left if p not in done]
    return pairs, (moved[0] if moved else None)


def bracket_pairs(bracket: list[Player], moved: list[Player], residents: list[Player],
                  lower: list[Player], relaxed: frozenset[str]) -> list[tuple[Player, Player]]:
    """The pairs one bracket makes (the three passes of the module's docstring)."""
    if len(bracket) < 2:
        return []
    matcher = Matcher(bracket, moved, lower, relaxed)
    made, quality = matcher.best()
    fixed: list[tuple[Player, Player]] = []
    if moved and any(a in moved or b in moved for a, b in made):
        fixed = [p for p in matcher.best(mdp_order(moved, residents))[0]
                 if p[0] in moved or p[1] in moved]
        matcher.g.remove_nodes_from([p for pair in fixed for p in pair])
        quality = matcher.best()[1]
    remainder = [p for p in residents if p in matcher.g]
    s1, s2 = remainder[:len(made) - len(fixed)], remainder[len(made) - len(fixed):]
    if not s1:
        return fixed
    for x1, x2 in exchanges(s1, s2):
        first = sorted([*(p for p in s1 if p not in x1), *x2], key=lambda p: p.rank)
        second = sorted([*(p for p in s2 if p not in x2), *x1], key=lambda p: p.rank)
        found, value = matcher.best(transpositions(first, second), split=(set(first), set(second)))
        if value == quality and len(found) == len(s1):
            return fixed + found
    return fixed + matcher.best(transpositions(s1, s2))[0]


class Matcher:
    """One bracket's graph (the bracket, everybody below it, the bye) and its heaviest matchings."""

    def __init__(self, bracket: list[Player], moved: list[Player], lower: list[Player],
                 relaxed: frozenset[str]) -> None:
        self.inside = set(bracket)
        self.g = graph([*bracket, *lower], relaxed)
        self.weigh(Criteria(bracket, moved, lower, relaxed))
        if BYE in self.g:              # C9 only when the bracket's one downfloater has the bye
            matching = self.matching()[0]
            left = [p for a, b in matching for p in (a, b) if p in self.inside
                    and (a not in self.inside or b not in self.inside)]
            if len(left) == 1 and any(BYE in e and left[0] in e for e in matching):
                self.weigh(Criteria(bracket, moved, lower, relaxed, c9=True))

    def weigh(self, criteria: Criteria) -> None:
        size = (self.g.number_of_nodes() + 1) // 2
        self.quality = pack({e: criteria.bye(e[0] if e[1] == BYE else e[1]) if BYE in e
                             else criteria.pair(*e) for e in self.g.edges}, size)

    def best(self, order=None, split: tuple[set, set] | None = None
             ) -> tuple[list[tuple[Player, Player]], int]:
        """The bracket's pairs in the heaviest perfect matching (quality first, then `order`'s
        digits), and its quality; `split` (S1, S2): the bracket's pairs only across them, and only
        S2's players may float."""
        matching, g, radix = self.matching(order, split)
        if g is None:
            return [], -1 if radix else 0
        total = sum(g.edges[e]["weight"] for e in matching) // radix
        return [(a, b) for a, b in matching if a in self.inside and b in self.inside], total

    def matching(self, order=None, split: tuple[set, set] | None = None):
        """The heaviest perfect matching of `best`, the graph it was found in and the radix of the
        order digits (graph None: no edge, radix 0; or no perfect matching, radix 1)."""
        import networkx  # (see graph)
        g = self.g.copy() if split else self.g
        if split:
            s1, s2 = split
            g.remove_edges_from([(a, b) for a, b in self.g.edges
                                 if (a in self.inside and b in self.inside or {a, b} & s1)
                                 and not (a in s1 and b in s2 or b in s1 and a in s2)])
        quality = {e: w for e, w in self.quality.items() if e[0] in g and e[1] in g
                   and g.has_edge(*e)}
        if not quality:
            return set(), None, 0
        ordering = pack({e: order(*e) for e in quality}, (g.number_of_nodes() + 1) // 2) \
            if order else {e: 0 for e in quality}
        radix = max(ordering.values()) * g.number_of_nodes() + 1
        networkx.set_edge_attributes(g, {e: q * radix + ordering[e] for e, q in quality.items()},
                                     "weight")
        matching = networkx.max_weight_matching(g, maxcardinality=True)
        if 2 * len(matching) < g.number_of_nodes() - g.number_of_nodes() % 2:
            return set(), None, 1
        return matching, g, radix


def exchanges(s1: list[Player], s2: list[Player]):
    """(players of S1 to S2, players of S2 to S1): none first, then one, then two of each, in the
    order of C.04.3 4.3 (the smallest difference of the bracket sequence numbers exchanged, then the
    lowest of S1 and the highest of S2 first)."""
    bsn = {p: i for i, p in enumerate([*s1, *s2], start=1)}
    yield (), ()
    for k in (1, 2):
        found = [(x1, x2) for x1 in combinations(s1, k) for x2 in combinations(s2, k)]
        found.sort(key=lambda x: (sum(bsn[p] for p in x[1]) - sum(bsn[p] for p in x[0]),
                                  sorted((-bsn[p] for p in x[0])), sorted(bsn[p] for p in x[1])))
        yield from found


def mdp_order(moved: list[Player], residents: list[Player]):
    """Order digits: the highest MDPs paired, each with the first resident it can have (4.2, 4.4)."""
    base = len(residents) + 2
    rank = {p: i for i, p in enumerate(moved)}
    position = {p: i for i, p in enumerate(residents)}

    def digits(a: Player, b: Player) -> Digits:
        if b in rank and a not in rank:
            a, b = b, a
        if a not in rank or b == BYE or b not in position:
            return 0, 0
        weight = base ** (len(moved) - 1 - rank[a])
        return weight, (base - 1 - position[b]) * weight
    return digits


def transpositions(s1: list[Player], s2: list[Player]):
    """Order digits: the fewest exchanges between S1 and S2, then the exchange with the smallest
    difference of the bracket sequence numbers exchanged (4.3), then the first transposition of S2
    (4.2): S1's first player with the first of S2 that still allows the best pairing, and so on."""
    base = len(s1) + len(s2) + 2
    first = {p: i for i, p in enumerate(s1)}
    second = {p: i for i, p in enumerate(s2)}
    bsn = {p: i for i, p in enumerate([*s1, *s2], start=1)}

    def digits(a: Player, b: Player) -> Digits:
        if b in first and (a not in first or first[b] < first[a]):
            a, b = b, a
        if b == BYE or a == BYE or a not in bsn or b not in bsn:
            return 0, base, 0
        if a in first and b in second:
            return 1, base, (base - 1 - second[b]) * base ** (len(s1) - 1 - first[a])
        if a in first:                   # two of S1: the lower one goes to S2
            return 0, base + max(bsn[a], bsn[b]), 0
        return 0, base - min(bsn[a], bsn[b]), 0      # two of S2: the higher one goes to S1
    return digits
