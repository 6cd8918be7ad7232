"""Standings: points, then the tournament's tie-breaks in their order, then rating, then user id.

The tie-breaks are FIDE's (pbm.tournaments.tiebreaks), chosen when the tournament is created; by
default Sonneborn-Berger (SB) for a round robin, Buchholz (BH) then Buchholz Median-1 (BH-M1)
for a Swiss.  Direct encounter (DE, C.07 6) ranks the players still tied by the points they scored
against each other, when all of them have met; otherwise it ranks first only a player sure to top
them whatever their games not played would have given, and leaves the others tied.
Knockout ranks by the round reached ("Round"), then points: a player knocked out later stands
higher.
"""
from __future__ import annotations

from pbm.tournaments import knockout
from pbm.tournaments.model import Entrant, Game, Standing, check_system, games_of, score
from pbm.tournaments.tiebreaks import DEFAULTS, Tiebreaks


def standings(system: str, entrants: list[Entrant], games: list[Game],
              tiebreaks: tuple[str, ...] | None = None, rounds: int | None = None,
              decider: str | None = None) -> list[Standing]:
    """Everybody's place, first to last; `rounds`: how many the tournament has (Article 16's
    limit for unplayed rounds; the rounds played when not given); `decider`: a paired
    knockout's (pbm.tournaments.paired)."""
    check_system(system)
    scores = {e.user: score(system, e.user, games) for e in entrants}
    played = {e.user: sum(1 for g in games_of(e.user, games) if not g.bye and g.result is not None)
              for e in entrants}
    if system == "knockout":
        reached = knockout.reached(entrants, games, decider)
        rows = sorted(entrants, key=lambda e: (-reached[e.user], -scores[e.user], -e.rating, e.user))
        return [Standing(rank, e.user, scores[e.user], (("Round", float(reached[e.user])),),
                         played[e.user]) for rank, e in enumerate(rows, start=1)]
    codes = DEFAULTS[system] if tiebreaks is None else tiebreaks
    values = Tiebreaks(system, entrants, games, rounds or 0)
    breaks = {e.user: {c: values.value(c, e.user) for c in codes} for e in entrants}
    groups = [[e for e in entrants if scores[e.user] == points]
              for points in sorted(set(scores.values()), reverse=True)]
    for code in codes:
        groups = [part for group in groups for part in split(group, code, breaks, games)]
    ranked = [e for group in groups for e in sorted(group, key=lambda e: (-e.rating, e.user))]
    return [Standing(rank, e.user, scores[e.user], tuple((c, breaks[e.user][c]) for c in codes),
                     played[e.user]) for rank, e in enumerate(ranked, start=1)]


def split(group: list[Entrant], code: str, breaks: dict[str, dict[str, float]],
          games: list[Game]) -> list[list[Entrant]]:
    """`group`, players tied on points and the tie-breaks before `code`, cut by `code` into groups
    still tied, best first; DE is valued here, within the group."""
    if code == "DE":
        for user, value in direct_encounter([e.user for e in group], games).items():
            breaks[user][code] = value
    values = sorted({breaks[e.user][code] for e in group}, reverse=True)
    return [[e for e in group if breaks[e.user][code] == v] for v in values]


def direct_encounter(users: list[str], games: list[Game]) -> dict[str, float]:
    """The points each of the tied `users` scored against the others, if all of them have met.
    If not, a player who scored more among them than any other could have scored by winning all
    their games among them not played is sure to top them: 1 for that player, 0 for the others;
    otherwise 0 for each (C.07 6: the tie-break does not apply)."""
    tied = set(users)
    among = [g for g in games if g.black is not None and g.result is not None
             and {g.white, g.black} <= tied]
    met = {frozenset((g.white, g.black)) for g in among}
    points = {u: sum(g.points(u) or 0.0 for g in among if u in (g.white, g.black)) for u in users}
    if len(users) < 2 or len(met) == len(users) * (len(users) - 1) // 2:
        return points if len(users) > 1 else {u: 0.0 for u in users}
    most = {u: points[u] + sum(frozenset((u, v)) not in met for v in users if v != u)
            for u in users}
    sure = [u for u in users if all(points[u] > most[v] for v in users if v != u)]
    return {u: float(u in sure) for u in users}
