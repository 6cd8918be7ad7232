"""The plain records a tournament is made of, and what a result is worth.

Everything here is data in, data out: the caller keeps entrants and games wherever it likes and
hands them back whole for each question, so every answer follows from them alone.

"White" is the player who moves first (Red in Xiangqi, Cho in Janggi), "black" the second.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SYSTEMS = ("roundrobin", "swiss", "knockout")

# A result as in PGN, with the points of White and Black; "+-" and "-+" are wins by forfeit (a game
# lost on time, a player who withdrew), which score like wins but were not decided over the board;
# "--" is a double forfeit (both withdrew): nobody scores.
POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5),
          "+-": (1.0, 0.0), "-+": (0.0, 1.0), "--": (0.0, 0.0)}
FORFEITS = frozenset({"+-", "-+", "--"})

# What a bye is worth: a Swiss bye counts as a win; in a round robin the "bye" is the round a player
# sits out against the dummy of an odd field, which every player has once, so it scores nothing; a
# knockout bye only carries the player into the next round.
BYE_POINTS = {"roundrobin": 0.0, "swiss": 1.0, "knockout": 0.0}

# A bye the player asked for in advance (a Swiss round they will not play, C.04.2): its `result`
# is "H", worth half a point (FIDE's half-point bye, TRF code H); it is no pairing-allocated bye.
REQUESTED_BYES = {"H": 0.5}


@dataclass(frozen=True)
class Entrant:
    """A player in a tournament.  `number` is the pairing number (1..n) of a round robin: the Berger
    tables pair numbers, and the caller decides how numbers are given (by lot, by order of entry).
    Swiss and knockout rank by rating, then user id, and ignore it."""
    user: str
    rating: float
    number: int = 0


@dataclass(frozen=True)
class Game:
    """One game of a round; `black` None is a bye; `result` None while it is played (and for a bye)."""
    round: int
    white: str
    black: str | None
    result: str | None = None

    def __post_init__(self) -> None:
        if self.result is not None and self.result not in POINTS and not (
                self.black is None and self.result in REQUESTED_BYES):
            raise ValueError(f"unknown result {self.result!r}")

    @property
    def bye(self) -> bool:
        return self.black is None

    @property
    def requested(self) -> bool:
        """A bye the player asked for (a half-point bye), not one the pairing allocated."""
        return self.black is None and self.result in REQUESTED_BYES

    @property
    def forfeit(self) -> bool:
        return self.result in FORFEITS

    def opponent(self, user: str) -> str | None:
        return self.black if user == self.white else self.white

    def colour(self, user: str) -> str:
        """"W" or "B": the colour `user` had in this game."""
        return "W" if user == self.white else "B"

    def points(self, user: str) -> float | None:
        """The points `user` scored in this game (not a pairing-allocated bye), None while it is
        played."""
        if self.result is None:
            return None
        if self.requested:
            return REQUESTED_BYES[self.result]
        white, black = POINTS[self.result]
        return white if user == self.white else black


@dataclass(frozen=True)
class Pairing:
    """A game to start: board number, White, Black (None: a bye).  `result` is set when the game is
    decided already at pairing time: a forfeit against a player who withdrew.  `relaxed` names the
    absolute criterion a Swiss pairing breaks when no pairing kept them all ("colour", "rematch",
    "bye"; pbm.tournaments.swiss)."""
    round: int
    board: int
    white: str
    black: str | None
    result: str | None = None
    relaxed: str | None = None

    def game(self) -> Game:
        """The game record of this pairing as it starts."""
        return Game(self.round, self.white, self.black, self.result)


@dataclass(frozen=True)
class Standing:
    """A player's place: `tiebreaks` are (name, value) pairs in the order they rank."""
    rank: int
    user: str
    points: float
    tiebreaks: tuple[tuple[str, float], ...]
    games: int


def check_system(system: str) -> None:
    if system not in SYSTEMS:
        raise ValueError(f"unknown tournament system {system!r} (one of {', '.join(SYSTEMS)})")


def games_of(user: str, games: Iterable[Game]) -> list[Game]:
    """`user`'s games (byes included) in round order."""
    return sorted((g for g in games if user in (g.white, g.black)), key=lambda g: g.round)


def score(system: str, user: str, games: Iterable[Game]) -> float:
    """`user`'s points from the decided games and the byes."""
    total = 0.0
    for game in games_of(user, games):
        if game.bye:
            total += bye_points(system, game)
        elif game.result is not None:
            total += game.points(user) or 0.0
    return total


def bye_points(system: str, game: Game) -> float:
    """What a bye scores: a requested bye its points, a pairing-allocated bye the system's."""
    return REQUESTED_BYES[game.result] if game.requested else BYE_POINTS[system]


def forfeit_against(pairing_round: int, board: int, white: str, black: str,
                    withdrawn: Iterable[str]) -> Pairing:
    """The pairing of `white` and `black`, decided by forfeit when one of them (or both) withdrew."""
    gone = {white, black} & set(withdrawn)
    result = {frozenset(): None, frozenset({white}): "-+", frozenset({black}): "+-"}.get(
        frozenset(gone), "--")
    return Pairing(pairing_round, board, white, black, result)
