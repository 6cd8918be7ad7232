"""Standings and tie-breaks: points, then the system's tie-breaks, then rating, then user id.

Round robin: Sonneborn-Berger ("SB"), the sum over games of the points scored times the
opponent's score.  Swiss: Buchholz ("Buch"), the sum of the opponents' scores, then median
Buchholz ("Med"), the same without the highest and the lowest of them.  Knockout ranks by the
round reached ("Round"), then points: a player knocked out later stands higher.

Games not played over the board (a bye, a forfeit either way) count as a game against a virtual
opponent with the player's own score, scored as it was scored (a project decision, close to FIDE's
dummy opponent for unplayed rounds): a Swiss bye adds the player's own score to Buchholz and to
Sonneborn-Berger; a forfeit loss adds it to Buchholz only; a round robin's bye, which scores
nothing, adds nothing.  Only decided games count; rounds a player missed after withdrawing do not.
"""
from __future__ import annotations

from pbm.tournaments import knockout
from pbm.tournaments.model import Entrant, Game, Standing, check_system, games_of, score

TIEBREAKS = {"roundrobin": ("SB",), "swiss": ("Buch", "Med"), "knockout": ("Round",)}


def opponent_scores(system: str, user: str, games: list[Game],
                    scores: dict[str, float]) -> list[tuple[float, float]]:
    """(points scored, opponent's score) for each of `user`'s decided games and byes."""
    found = []
    for game in games_of(user, games):
        if game.bye:
            points = score(system, user, [game])
        elif game.result is None:
            continue
        else:
            points = game.points(user) or 0.0
        virtual = game.bye or game.forfeit
        found.append((points, scores[user] if virtual else scores[game.opponent(user)]))
    return found


def tiebreaks(system: str, user: str, games: list[Game], scores: dict[str, float],
              reached: dict[str, int]) -> tuple[tuple[str, float], ...]:
    check_system(system)
    if system == "knockout":
        return (("Round", float(reached[user])),)
    faced = opponent_scores(system, user, games, scores)
    if system == "roundrobin":
        return (("SB", sum(points * theirs for points, theirs in faced)),)
    ordered = sorted(theirs for _, theirs in faced)
    return (("Buch", sum(ordered)), ("Med", sum(ordered[1:-1])))


def standings(system: str, entrants: list[Entrant], games: list[Game]) -> list[Standing]:
    """Everybody's place, first to last."""
    check_system(system)
    scores = {e.user: score(system, e.user, games) for e in entrants}
    reached = knockout.reached(entrants, games) if system == "knockout" else {}
    rows = []
    for entrant in entrants:
        breaks = tiebreaks(system, entrant.user, games, scores, reached)
        played = sum(1 for g in games_of(entrant.user, games) if not g.bye and g.result is not None)
        points, later = -scores[entrant.user], tuple(-v for _, v in breaks)
        key = ((later, points) if system == "knockout" else (points, later), -entrant.rating,
               entrant.user)
        rows.append((key, entrant.user, breaks, played))
    rows.sort()
    return [Standing(rank, user, scores[user], breaks, played)
            for rank, (_, user, breaks, played) in enumerate(rows, start=1)]

