"""Tie-breaks as FIDE's Play-off and Tie-Break Regulations (Handbook C.07) define them, by their
FIDE abbreviations, unplayed rounds included, as FIDE's own tie-break exercise of 18 March 2024
computes them (tests/test_tournament_tiebreaks.py holds it with its answers).

A Swiss tournament's unplayed rounds follow Article 16.  pbm knows these unplayed rounds: the bye
(pairing-allocated, 16.2.1), a forfeit win (16.2.2) or loss (16.2.4; a double forfeit is a loss for
both), a half-point bye the player asked for, and the rounds a player was not paired in (not yet
entered, or withdrawn), which are zero-point byes (16.1.1).  For the tie-breaks of their opponents
a player's score is adjusted (16.3): a bye asked for or a round not paired that only voluntary
unplayed rounds follow (the rounds after withdrawing) counts as a draw, every other round as
scored.  For the player's own tie-break each unplayed round is a game against a dummy (16.4)
scored as awarded, whose score is the player's own (FIDE's exercise gives player 11, with a
forfeit win over a player on 1.5 points, the dummy's 2.5: Buchholz 13.5).  A cut (14.1-14.4) takes
first a voluntary unplayed round (a half-point bye, a forfeit loss or a round not paired: VUR) as
16.5 says.  A round robin's pairings are fixed beforehand, so its forfeits count as games (15.2),
but for the average rating of opponents (ARO, rounded to the nearest whole number, a half up) none
does and for games played with Black (BPG, a type B tie-break) a forfeit loss does not; Buchholz
does not apply to a round robin (8).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from pbm.i18n import N_
from pbm.tournaments.model import Entrant, Game, bye_points, games_of, score

# abbreviation: FIDE's name, translated where it is shown
NAMES = {"BH": N_("Buchholz"), "BH-C1": N_("Buchholz Cut-1"), "BH-C2": N_("Buchholz Cut-2"),
         "BH-M1": N_("Buchholz Median-1"), "BH-M2": N_("Buchholz Median-2"),
         "SB": N_("Sonneborn-Berger"), "SB-C1": N_("Sonneborn-Berger Cut-1"),
         "DE": N_("direct encounter"), "WIN": N_("number of wins"),
         "WON": N_("games won over the board"), "BPG": N_("games played with Black"),
         "BWG": N_("games won with Black"), "PS": N_("progressive score"),
         "ARO": N_("average rating of opponents")}
DEFAULTS = {"roundrobin": ("SB",), "swiss": ("BH", "BH-M1"), "knockout": ()}
NOT_IN_ROUND_ROBINS = ("BH", "BH-C1", "BH-C2", "BH-M1", "BH-M2")
CUTS = {"C1": ("least",), "C2": ("least", "least"), "M1": ("least", "most"),
        "M2": ("least", "least", "most", "most")}


@dataclass(frozen=True)
class Round:
    """One round of a player as the tie-breaks see it."""
    points: float
    opponent: str | None          # None: no opponent (bye, a round after withdrawing)
    played: bool                  # over the board
    voluntary: bool               # a VUR: a forfeit loss or a round after withdrawing
    colour: str | None
    forfeit: bool = False


def check(system: str, codes: tuple[str, ...]) -> None:
    """Refuse a list the system cannot use (ValueError naming the code)."""
    for code in codes:
        if code not in NAMES:
            raise ValueError(code)
        if system == "roundrobin" and code in NOT_IN_ROUND_ROBINS:
            raise ValueError(code)


class Tiebreaks:
    """Every player's tie-break values in one tournament, `rounds` long."""

    def __init__(self, system: str, entrants: list[Entrant], games: list[Game], rounds: int) -> None:
        self.system, self.rounds = system, rounds
        self.rating = {e.user: e.rating for e in entrants}
        decided = [g for g in games if g.bye or g.result is not None]
        self.last = max((g.round for g in decided), default=0)
        self.score = {e.user: score(system, e.user, decided) for e in entrants}
        self.record = {e.user: self._record(e.user, decided) for e in entrants}
        self.adjusted = {u: adjusted(rs) for u, rs in self.record.items()}
        self.games = decided

    def _record(self, user: str, games: list[Game]) -> list[Round]:
        mine = {g.round: g for g in games_of(user, games)}
        found = []
        for n in range(1, self.last + 1):
            g = mine.get(n)
            if g is None:
                if self.system == "swiss":
                    found.append(Round(0.0, None, False, True, None))
            elif g.bye:                   # a half-point bye is voluntary, the allocated one not
                found.append(Round(bye_points(self.system, g), None, False, g.requested, None))
            else:
                points = g.points(user) or 0.0
                swiss = self.system == "swiss"
                found.append(Round(points, g.opponent(user), not (g.forfeit and swiss),
                                   g.forfeit and swiss and points == 0, g.colour(user), g.forfeit))
        return found

    def contributions(self, user: str) -> list[tuple[float, float, bool]]:
        """(opponent's or dummy's score, points scored, voluntary) for each round that counts."""
        found = []
        for r in self.record[user]:
            if self.system == "roundrobin":
                if r.opponent is not None:
                    found.append((self.score[r.opponent], r.points, False))
                continue
            if r.played:
                found.append((self.adjusted[r.opponent], r.points, False))
                continue
            found.append((self.score[user], r.points, r.voluntary))
        return found

    def value(self, code: str, user: str) -> float:
        """One tie-break of `user` (DE is ranked by pbm.tournaments.standings, not valued here)."""
        base, _, cut = code.partition("-")
        played = [r for r in self.record[user] if r.played]
        if base in ("BH", "SB"):
            items = self.contributions(user)
            return sum(trim(items, CUTS.get(cut, ()), base))
        if base == "WIN":
            return float(sum(r.points == 1.0 for r in self.record[user]))
        if base == "WON":
            return float(sum(r.points == 1.0 for r in played))
        if base == "BPG":             # a type B tie-break: a forfeit loss is no game (15.2)
            return float(sum(r.colour == "B" and not (r.forfeit and r.points == 0) for r in played))
        if base == "BWG":
            return float(sum(r.colour == "B" and r.points == 1.0 for r in played))
        if base == "PS":
            running, total = 0.0, 0.0
            for r in self.record[user]:
                running += r.points
                total += running
            return total
        if base == "ARO":
            ratings = [self.rating[r.opponent] for r in played if not r.forfeit]     # 15.2
            return float(math.floor(sum(ratings) / len(ratings) + 0.5)) if ratings else 0.0
        return 0.0


def adjusted(rounds: list[Round]) -> float:
    """A player's score for their opponents' tie-breaks (16.3): a bye asked for or a round not
    paired that only voluntary unplayed rounds follow (16.2's fifth kind: the rounds after
    withdrawing) counts as a draw, every other round as scored."""
    return sum(0.5 if r.opponent is None and r.voluntary and all(x.voluntary for x in rounds[i + 1:])
               else r.points for i, r in enumerate(rounds))


def trim(items: list[tuple[float, float, bool]], cuts: tuple[str, ...], base: str) -> list[float]:
    """The values left after the cuts (14.1-14.4, with 16.5 for VURs): Buchholz values are the
    opponents' scores, Sonneborn-Berger's the points times them."""
    left = list(items)

    def value(item: tuple[float, float, bool]) -> float:
        return item[0] if base == "BH" else item[0] * item[1]

    for cut in cuts:
        if not left:
            break
        if cut == "most":
            left.remove(max(left, key=lambda i: (i[0], value(i))))
            continue
        least = min(left, key=lambda i: (i[0], value(i)))
        vurs = [i for i in left if i[2]]
        if vurs:
            vur = min(vurs, key=value)
            least = vur if base == "BH" or value(vur) >= value(least) else least
        left.remove(least)
    return [value(i) for i in left]
