"""Swiss pairing by FIDE's Dutch system (Handbook C.04.3, with the basic rules C.04.1): the players
as the pairing sees them, the absolute criteria, the colour allocation, and the round.

The brackets are paired one by one from the top score group down (pbm.tournaments.dutch).  This
module says who each player is before the round: rank (score, then pairing number), pairing
number (rating, then user id), colour history and preference, float history, whether the bye is
still open to them, and whether they are a topscorer (in the last round, over half the points
so far: C.04.3 1.8).  Only games played over the board count for colours and floats'
score differences (C.04.2: a forfeit is not played; the colours of the games played are compared from the latest,
as if the rounds not played came first); a round without a game is a downfloat only when the player
scored more in it than a loss (C.04.3 (2025) 1.4.3: a bye, a half-point bye, a forfeit win), not a
forfeit loss or a round not paired.  Forfeits still bar a rematch: a mail game
decided before its first move was nevertheless paired (a project decision).

When no pairing of the round meets the absolute criteria, the rules give the arbiter the choice;
pbm relaxes them in this documented order, as few times as possible, and says so in the round's
pairings (`Pairing.relaxed`): first the colour criterion (C3: a third game in a row with one colour,
or a colour difference of three; C.04.1 6 and 7 allow the systems such exceptions), then the
second bye (C2), last the rematch (C1), which the Swiss system exists to avoid.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pbm.tournaments.model import Entrant, Game, bye_points, score

ABSOLUTE, STRONG, MILD = 3, 2, 1
RELAXATIONS = ("colour", "bye", "rematch")    # the absolute criteria C3, C2, C1, dropped in turn


@dataclass(frozen=True, eq=False)
class Player:
    """A player as the pairing sees them before the round (a graph node: hashed by identity)."""
    user: str
    rank: int                     # 0 = first, by score, then pairing number
    number: int                   # 1.. by rating, then user id (the initial ranking, TPN)
    score: float
    opponents: frozenset[str]
    colours: str                  # "W"/"B" per game played over the board, in round order
    bye_barred: bool              # had the bye, or a win without playing (C.04.1 4)
    floats: tuple[str, ...] = ()  # "D", "U" or "" per round before this one
    unplayed: int = 0             # rounds without a game over the board
    topscorer: bool = field(default=False, compare=False)

    @property
    def difference(self) -> int:
        return self.colours.count("W") - self.colours.count("B")

    def floated(self, back: int) -> str:
        """The float `back` rounds ago (1: the last round): "D", "U" or ""."""
        return self.floats[-back] if len(self.floats) >= back else ""

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
            withdrawn: Iterable[str] = frozenset(), last: bool = False,
            virtual: dict[str, tuple[float, ...]] | None = None) -> list[Player]:
    """The players to pair in round `round_no`, ranked, from the games of the rounds before it;
    `last`: it is the tournament's last round (topscorers); `virtual`: each player's virtual points
    round by round (an accelerated Swiss, pbm.tournaments.acceleration), added to the scores the
    pairing compares (brackets, floats, the higher ranked) and nowhere else."""
    virtual = virtual or {}

    def extra(user: str, n: int) -> float:
        return virtual[user][n - 1] if user in virtual and n <= len(virtual[user]) else 0.0

    before = [g for g in games if g.round < round_no]
    if any(g.result is None and not g.bye for g in before):
        raise ValueError(f"round {round_no} cannot be paired before the rounds before it finish")
    numbers = pairing_numbers(entrants, before, withdrawn)
    scores_at = [{e.user: score("swiss", e.user, [g for g in before if g.round < r])
                  + extra(e.user, r) for e in entrants} for r in range(round_no)]
    found = []
    for entrant in entrants:
        if entrant.user in withdrawn:
            continue
        user = entrant.user
        mine = sorted((g for g in before if user in (g.white, g.black)), key=lambda g: g.round)
        played = [g for g in mine if not g.bye and not g.forfeit]
        by_round = {g.round: g for g in mine}
        floats = []
        for r in range(1, round_no):
            g = by_round.get(r)
            if g is None or g.bye or g.forfeit:      # 1.4.3: scored without playing, over a loss
                got = 0.0 if g is None else bye_points("swiss", g) if g.bye else g.points(user)
                floats.append("D" if got else "")
                continue
            own, theirs = scores_at[r][user], scores_at[r][g.opponent(user)]
            floats.append("D" if own > theirs else "U" if own < theirs else "")
        barred = any(g.bye and not g.requested or (g.forfeit and g.points(user) == 1.0)
                     for g in mine)
        points = score("swiss", user, before)
        found.append(Player(user, 0, numbers[user], points + extra(user, round_no),
                            frozenset(g.opponent(user) for g in mine if not g.bye),
                            "".join(g.colour(user) for g in played), barred, tuple(floats), round_no - 1 - len(played),
                            last and points * 2 > round_no - 1))
    found.sort(key=lambda p: (-p.score, p.number))
    return [Player(**{**p.__dict__, "rank": rank}) for rank, p in enumerate(found)]


def pairing_numbers(entrants: list[Entrant], before: list[Game],
                    withdrawn: Iterable[str]) -> dict[str, int]:
    """Pairing numbers by the initial ranking (rating, then user id) among the players in the
    pairing: those paired now and those paired before (a late entry or a player on a bye asked for
    has none until their first pairing, C.04.2), so that the colour rule 5.2.5 reads them as
    bbpPairings does."""
    away = set(withdrawn) - {u for g in before if not g.requested for u in (g.white, g.black)}
    ranked = sorted((e for e in entrants if e.user not in away), key=lambda e: (-e.rating, e.user))
    return {e.user: n for n, e in enumerate(ranked, start=1)}


def compatible(a: Player, b: Player, relaxed: frozenset[str] = frozenset()) -> bool:
    """C1 and C3: `a` and `b` may meet (unless the criterion is relaxed)."""
    if "rematch" not in relaxed and b.user in a.opponents:
        return False
    return "colour" in relaxed or not clash(a, b)


def clash(a: Player, b: Player) -> bool:
    """C3: two non-topscorers with the same absolute colour preference."""
    (pa, sa), (pb, sb) = a.preference, b.preference
    return sa == sb == ABSOLUTE and pa == pb and not (a.topscorer or b.topscorer)


def broken(white: Player, black: Player, relaxed: frozenset[str]) -> str | None:
    """The absolute criterion this pairing breaks, if one had to be relaxed."""
    if black.user in white.opponents:
        return "rematch"
    after = [p.colours + c for p, c in ((white, "W"), (black, "B"))]
    if "colour" in relaxed and any(abs(c.count("W") - c.count("B")) > 2 or c[-3:] in ("WWW", "BBB")
                                   for c in after):
        return "colour"
    return None


def colours(high: Player, low: Player, initial: str = "W") -> tuple[Player, Player]:
    """(White, Black) for `high` (the higher ranked) and `low`, by the Dutch rules (C.04.3 5.2);
    `initial`: the initial colour (pbm always draws White; a TRF may have drawn Black)."""
    (ph, sh), (pl, sl) = high.preference, low.preference
    if ph is None and pl is None:                        # 5.2.5: odd numbers have the initial colour
        return (high, low) if bool(high.number % 2) == (initial == "W") else (low, high)
    if ph is None or pl is None or ph != pl:             # 5.2.1: both preferences, or the only one
        wants_white = ph == "W" if ph is not None else pl == "B"
        return (high, low) if wants_white else (low, high)
    if sh != sl or sh == ABSOLUTE and abs(high.difference) != abs(low.difference):   # 5.2.2
        stronger = max((high, low), key=lambda p: (p.preference[1], abs(p.difference)))
        other = low if stronger is high else high
        return (stronger, other) if ph == "W" else (other, stronger)
    for mine, theirs in zip(reversed(high.colours), reversed(low.colours)):   # 5.2.3: alternate
        if mine != theirs:                               # from the latest game they differed in
            return (high, low) if mine == "B" else (low, high)
    return (high, low) if ph == "W" else (low, high)     # 5.2.4: the higher ranked's preference
