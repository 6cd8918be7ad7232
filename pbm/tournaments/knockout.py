"""Knockout: a standard bracket seeded by rating, one game a match, one replay when it is drawn.

Seeds go by rating, then user id (seed 1 the highest).  The bracket is the standard one for the
next power of two (1 v 16, 8 v 9, 4 v 13, 5 v 12, ...), so the top seeds can only meet late, and
the places of missing seeds are byes, which fall to the top seeds.

A match is one game.  Its White is the player who has had White less often in the tournament so
far (the higher seed when equal).  A drawn game is replayed once with colours reversed; if the
replay is drawn too, the higher seed goes through (a project decision: seeding already ranked the
two, and mail play has no quick tie-break game).  A double forfeit (both withdrew) also sends the
higher seed through, who forfeits the next match in turn.  Rounds are the bracket's rounds: a
replay belongs to the round of the game it replays.  A paired knockout's matches (a `decider`:
pbm.tournaments.paired) are pairs of games instead, decided by their total.
"""
from __future__ import annotations

from collections.abc import Iterable

from pbm.tournaments.model import Entrant, Game, Pairing, forfeit_against

DRAW = "1/2-1/2"


def seeds(entrants: list[Entrant]) -> list[str]:
    """User ids by seed: rating, then user id."""
    return [e.user for e in sorted(entrants, key=lambda e: (-e.rating, e.user))]


def rounds(n_entrants: int) -> int:
    return max(1, (n_entrants - 1).bit_length())


def bracket(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of `size` (a power of two): adjacent
    places meet in the first round."""
    order = [1]
    while len(order) < size:
        order = [seed for top in order for seed in (top, 2 * len(order) + 1 - top)]
    return order


def matches(entrants: list[Entrant], games: list[Game], round_no: int,
            decider: str | None = None) -> list[tuple[str, str | None]]:
    """The matches of round `round_no` in bracket order (a second None: a bye); `decider`: a
    paired knockout's (pbm.tournaments.paired)."""
    order = seeds(entrants)
    if round_no == 1:
        places = [order[s - 1] if s <= len(order) else None
                  for s in bracket(1 << rounds(len(order)))]
        return list(zip(places[::2], places[1::2]))
    through = winners(entrants, games, round_no - 1, decider)
    if through is None:
        raise ValueError(f"round {round_no - 1} of the knockout is not decided yet")
    return list(zip(through[::2], through[1::2]))


def winner(entrants: list[Entrant], games: list[Game], match: tuple[str, str | None],
           decider: str | None = None) -> str | None:
    """Who goes through `match`, given its games (of its round), or None while it is undecided;
    `decider`: a paired knockout's, whose matches go by the total of pairs of games."""
    first, second = match
    if second is None:
        return first
    played = [g for g in games if {g.white, g.black} == {first, second}]
    if not played or any(g.result is None for g in played):
        return None
    if decider is not None:
        return paired_winner(entrants, played, first, second, decider)
    for game in played:
        if game.result not in (DRAW, "--"):
            return game.white if game.points(game.white) else game.black
    if len(played) == 1 and played[0].result == DRAW:
        return None                                      # a replay is owed
    order = seeds(entrants)
    return min(first, second, key=order.index)


def paired_winner(entrants: list[Entrant], played: list[Game], first: str, second: str,
                  decider: str) -> str | None:
    """A paired match, all its games decided: the higher total of points, once every pair of
    games is over; on a tie another pair is owed (None), or with `decider` "seed", or when the
    last pair holds a double forfeit (nobody is left to play one), the higher seed goes through."""
    if len(played) % 2:
        return None
    totals = {u: sum(g.points(u) or 0.0 for g in played) for u in (first, second)}
    if totals[first] != totals[second]:
        return max(totals, key=totals.__getitem__)
    if decider == "pair" and all(g.result != "--" for g in played[-2:]):
        return None
    order = seeds(entrants)
    return min(first, second, key=order.index)


def winners(entrants: list[Entrant], games: list[Game], round_no: int,
            decider: str | None = None) -> list[str] | None:
    """Who went through round `round_no`, in bracket order, or None while a match is undecided."""
    this_round = [g for g in games if g.round == round_no]
    found = [winner(entrants, this_round, match, decider)
             for match in matches(entrants, games, round_no, decider)]
    return None if None in found else found


def pair(entrants: list[Entrant], games: list[Game], round_no: int,
         withdrawn: Iterable[str] = frozenset(), decider: str | None = None) -> list[Pairing]:
    """The first games of round `round_no`, board by board in bracket order, byes last."""
    if not 1 <= round_no <= rounds(len(entrants)):
        raise ValueError(f"a knockout of {len(entrants)} has no round {round_no}")
    order = seeds(entrants)
    earlier = [g for g in games if g.round < round_no and not g.bye]

    def difference(user: str) -> int:
        return sum(1 if g.white == user else -1 for g in earlier if user in (g.white, g.black))

    found, byes = [], []
    for first, second in matches(entrants, games, round_no, decider):
        if second is None:
            byes.append(first)
            continue
        white, black = sorted((first, second), key=lambda u: (difference(u), order.index(u)))
        found.append(forfeit_against(round_no, len(found) + 1, white, black, withdrawn))
    return found + [Pairing(round_no, len(found) + 1 + i, user, None) for i, user in enumerate(byes)]


def replays(games: list[Game], round_no: int, withdrawn: Iterable[str] = frozenset()) -> list[Pairing]:
    """The replays owed in round `round_no`: one, colours reversed, for each match whose only game
    so far is drawn."""
    this_round = [g for g in games if g.round == round_no and not g.bye]
    found = []
    for game in this_round:
        again = [g for g in this_round if {g.white, g.black} == {game.white, game.black}]
        if len(again) == 1 and game.result == DRAW:
            found.append(forfeit_against(round_no, len(found) + 1, game.black, game.white, withdrawn))
    return found


def next_pairings(entrants: list[Entrant], games: list[Game],
                  withdrawn: Iterable[str] = frozenset()) -> list[Pairing]:
    """What to start now: the replays owed in the current round, or else the next round once the
    current one is decided; nothing while games are played or when the knockout is over."""
    current = max((g.round for g in games), default=0)
    if current:
        owed = replays(games, current, withdrawn)
        if owed or winners(entrants, games, current) is None:
            return owed
    return pair(entrants, games, current + 1, withdrawn) if current < rounds(len(entrants)) else []


def reached(entrants: list[Entrant], games: list[Game], decider: str | None = None
            ) -> dict[str, int]:
    """The round each player reached (was paired in, a bye included); the champion, once decided,
    one more than the last round."""
    found = {e.user: 0 for e in entrants}
    for game in games:
        for user in (game.white, game.black):
            if user is not None:
                found[user] = max(found[user], game.round)
    last = rounds(len(entrants))
    if any(g.round == last for g in games):
        champion = winners(entrants, games, last, decider)
        if champion:
            found[champion[0]] = last + 1
    return found
