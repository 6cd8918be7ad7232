"""Paired games (`--paired`): every pairing is two games started together, colours reversed, and
the pairing's result is the two games' points (1.5-0.5 and so on).

A round robin or Swiss keeps each game in a round of its own, as FIDE's double round robin and
its TRF do: the pairing round r is the games' rounds 2r-1 (the first games) and 2r (the same
pairings, colours reversed; a bye or a forfeit twice).  So the standings, the tie-breaks (each
game counts as in a double round robin, FIDE's rule for double games), the TRF (two round blocks
a round) and the Swiss pairer all read the games as they are:

- A round robin's first games are the Berger table's round r.
- A Swiss pairs the first games by FIDE's Dutch system from every game before them: the score
  groups by the points of all the games, the colour history counting both games of every pairing
  (a pairing leaves the colour difference as it was, and the player who had Black last, in the
  second game, is due White in the next first game).  The second games are no new pairing: they
  only reverse the first.  This is what bbpPairings pairs from the same TRF, round 2r-1 from the
  rounds before it (it cannot know that round 2r repeats 2r-1, so its checker is asked only about
  the first games: pbm.tournaments.trf.check).  The tournament's rounds for the pairer are the
  games' rounds, so the last pairing round is not the last round to it: the topscorers' colour
  exceptions of the last round (C.04.3 1.8) do not arise in a paired Swiss.

A knockout keeps a match in its bracket round (pbm.tournaments.knockout with a `decider`): it goes
on by the pair's total; on a tie, by default ("pair") a further pair of games, again and again
until one is won, or ("seed") the higher seed goes through.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pbm.tournaments import dutch, knockout, roundrobin
from pbm.tournaments import rounds_needed as single_rounds
from pbm.tournaments.model import Entrant, Game, Pairing, forfeit_against

DECIDERS = ("pair", "seed")
REVERSED = {"1-0": "0-1", "0-1": "1-0", "+-": "-+", "-+": "+-"}


def second_games(first: list[Pairing], round_no: int) -> list[Pairing]:
    """The second games of `first`'s pairings, in round `round_no`: colours reversed, a bye or a
    forfeit again."""
    return [replace(p, round=round_no, relaxed=None) if p.black is None else
            replace(p, round=round_no, white=p.black, black=p.white,
                    result=REVERSED.get(p.result, p.result), relaxed=None) for p in first]


def rounds_needed(system: str, n_entrants: int, requested: int | None) -> int:
    """The games' rounds of a paired round robin or Swiss (two a pairing round), or a paired
    knockout's bracket rounds."""
    found = single_rounds(system, n_entrants, requested)
    return found if system == "knockout" else 2 * found


def pair_round(system: str, entrants: list[Entrant], games: list[Game], round_no: int, *,
               withdrawn: Iterable[str] = frozenset(), rounds: int | None = None) -> list[Pairing]:
    """The games of a round robin's or Swiss's pairing round that starts with the games' round
    `round_no` (odd): its first games, then the second ones in round `round_no` + 1."""
    if system == "roundrobin":
        first = [replace(p, round=round_no) for p in
                 roundrobin.pair(entrants, (round_no + 1) // 2, False, withdrawn)]
    else:
        first = dutch.pair(entrants, games, round_no, withdrawn, rounds)
    return first + second_games(first, round_no + 1)


def knockout_pairs(entrants: list[Entrant], games: list[Game], round_no: int,
                   withdrawn: Iterable[str], decider: str) -> list[Pairing]:
    """A paired knockout's round `round_no`: the first games board by board (byes last), then the
    second games on the boards after them."""
    first = knockout.pair(entrants, games, round_no, withdrawn, decider)
    matches = [p for p in first if p.black is not None]
    return first + [replace(p, board=len(first) + i) for i, p in
                    enumerate(second_games(matches, round_no), start=1)]


def deciders(entrants: list[Entrant], games: list[Game], round_no: int,
             withdrawn: Iterable[str], decider: str) -> list[Pairing]:
    """The decider pairs owed in round `round_no`: for each match whose games are all decided and
    tied on points, a further pair, the first game's colours as the match's first game (boards
    numbered by the caller)."""
    this_round = [g for g in games if g.round == round_no and not g.bye]
    if decider != "pair" or not this_round or any(g.result is None for g in this_round):
        return []
    first = []
    for a, b in knockout.matches(entrants, games, round_no, decider):
        played = [g for g in this_round if {g.white, g.black} == {a, b}]
        if b is None or not played or knockout.winner(entrants, played, (a, b), decider):
            continue
        opener = played[0]
        first.append(forfeit_against(round_no, 0, opener.white, opener.black, withdrawn))
    return first + second_games(first, round_no)


def next_knockout(entrants: list[Entrant], games: list[Game], withdrawn: Iterable[str],
                  decider: str) -> list[Pairing]:
    """What a paired knockout starts now: the decider pairs owed in the current round, or else the
    next round once the current one is decided; nothing while games are played or when it is over."""
    current = max((g.round for g in games), default=0)
    if current:
        owed = deciders(entrants, games, current, withdrawn, decider)
        if owed or knockout.winners(entrants, games, current, decider) is None:
            return owed
    if current >= knockout.rounds(len(entrants)):
        return []
    return knockout_pairs(entrants, games, current + 1, withdrawn, decider)


def pairing_score(user: str, games: Iterable[Game]) -> tuple[str, float, float] | None:
    """`user`'s opponent and the two scores of the pairing `games` (those of one pairing round
    that `user` played, all decided), `user`'s first; None for a bye or while one is played."""
    mine = [g for g in games if user in (g.white, g.black) and not g.bye]
    if not mine or any(g.result is None for g in mine):
        return None
    opponent = mine[0].opponent(user) or ""
    return (opponent, sum(g.points(user) or 0.0 for g in mine),
            sum(g.points(opponent) or 0.0 for g in mine))
