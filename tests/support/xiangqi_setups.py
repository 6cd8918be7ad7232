"""Random Xiangqi positions where records are hardest to name: soldiers stacked three to five on a
file or on two files at once, chariots, horses and cannons two on a file, advisors and elephants
in tandem on their own points; either side to move."""
from __future__ import annotations

import random

import rules
from rules.errors import RulesError

FILES = "abcdefghi"
ADVISOR_POINTS = ["d1", "f1", "e2", "d3", "f3"]
ELEPHANT_POINTS = ["c1", "g1", "a3", "e3", "i3", "c5", "g5"]


def _mirror(point: str) -> str:
    return f"{point[0]}{11 - int(point[1:])}"


def _fen(pieces: dict[str, str], side: str) -> str:
    rows = []
    for rank in range(10, 0, -1):
        row, empty = "", 0
        for f in FILES:
            letter = pieces.get(f"{f}{rank}")
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {side} - - 0 1"


def stacked_position(rnd: random.Random) -> str:
    """A legal position with tandem pieces of both sides (the side to move not mated, the other not
    in check, the kings not facing)."""
    while True:
        pieces: dict[str, str] = {}

        def put(letter: str, points: list[str]) -> None:
            free = [p for p in points if p not in pieces]
            if free:
                pieces[rnd.choice(free)] = letter

        for red, mirror in ((True, lambda p: p), (False, _mirror)):
            case = str.upper if red else str.lower
            put(case("k"), [mirror(p) for p in ("d1", "e1", "f1", "e2")])
            for _ in range(rnd.randrange(3)):
                put(case("a"), [mirror(p) for p in ADVISOR_POINTS])
            for _ in range(rnd.randrange(3)):
                put(case("b"), [mirror(p) for p in ELEPHANT_POINTS])
            # soldiers past the river, stacked on one to three files
            files = rnd.sample(FILES, rnd.choice((1, 2, 2, 3)))
            for _ in range(rnd.randrange(2, 6)):
                f = rnd.choice(files)
                put(case("p"), [mirror(f"{f}{r}") for r in range(6, 10)])
            for letter in "rnc":
                if rnd.random() < 0.6:
                    f = rnd.choice(FILES)
                    for _ in range(2):
                        put(case(letter), [mirror(f"{f}{r}") for r in range(1, 11)])
        side = rnd.choice("wb")
        fen = _fen(pieces, side)
        try:
            game = rules.Game.new("xiangqi", fen=fen)
            other = rules.Game.new("xiangqi", fen=_fen(pieces, "b" if side == "w" else "w"))
        except RulesError:
            continue
        if game.legal_moves() and not other.position.in_check() and game.result == "*":
            return fen


def random_game(rnd: random.Random, fen: str | None = None, plies: int = 40) -> rules.Game:
    """A game played at random from `fen` (the start if None) for up to `plies` moves, preferring
    soldiers' moves and moves along a file, which keep pieces in tandem."""
    game = rules.Game.new("xiangqi", fen=fen)
    for _ in range(plies):
        if game.result != "*":
            break
        legal = game.legal_moves()
        along = [m for m in legal if m[0] == m[2]]
        game.play(rnd.choice(along if along and rnd.random() < 0.5 else legal))
    return game
