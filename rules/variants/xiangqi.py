"""Xiangqi as the project plays it (docs/games.md): the Fairy-Stockfish rules."""
from __future__ import annotations

from collections.abc import Mapping

from rules.errors import RulesError
from rules.patterns import (
    CANNON,
    DIAGONAL,
    ORTHOGONAL,
    Leap,
    Slide,
    mirrored,
    rotations,
    steps,
)
from rules.variant import PieceType, Region, Variant

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

REGIONS = {
    "palace": Region(files=range(3, 6), ranks=range(0, 3)),
    "own-half": Region(files=range(0, 9), ranks=range(0, 5)),
    "crossed": Region(files=range(0, 9), ranks=range(5, 10)),
}

PALACE_DIAGONALS = (
    ((3, 0), (4, 1), (5, 2)), ((5, 0), (4, 1), (3, 2)),
    ((3, 7), (4, 8), (5, 9)), ((5, 7), (4, 8), (3, 9)),
)

# The horse goes one point orthogonally (its leg, which must be empty), then one diagonally outward.
HORSE_PATHS = rotations(mirrored((((0, 1), (1, 2)),)))
# The elephant goes two points diagonally; the midpoint ("elephant eye") must be empty.
ELEPHANT_PATHS = tuple(((dx, dy), (2 * dx, 2 * dy)) for dx, dy in DIAGONAL)

PIECES = (
    PieceType("K", "king", "king", "K", "K", (steps(ORTHOGONAL, stay_in="palace"),), royal=True,
              glyphs=("帥", "將")),
    PieceType("A", "advisor", "advisor", "G", "A", (steps(DIAGONAL, stay_in="palace"),), glyphs=("仕", "士")),
    PieceType("B", "elephant", "elephant", "E", "E", (Leap(ELEPHANT_PATHS, stay_in="own-half"),),
              glyphs=("相", "象")),
    PieceType("N", "horse", "horse", "H", "H", (Leap(HORSE_PATHS),), glyphs=("傌", "馬")),
    PieceType("R", "rook", "rook", "R", "R", (Slide(ORTHOGONAL),), glyphs=("俥", "車")),
    PieceType("C", "cannon", "cannon", "C", "C", (Slide(ORTHOGONAL, mode=CANNON),), glyphs=("炮", "砲")),
    PieceType("P", "soldier", "soldier", "S", "P", (
        steps(((0, 1),)),
        steps(((1, 0), (-1, 0)), when="crossed"),
    ), glyphs=("兵", "卒")),
)


def build(params: Mapping[str, str | bool]) -> Variant:
    """Xiangqi takes no parameters."""
    if params:
        raise RulesError(f"xiangqi takes no parameters (got {', '.join('-' + p for p in params)})")
    return Variant(
        name="xiangqi",
        title="Xiangqi",
        width=9,
        height=10,
        side_names=("Red", "Black"),
        colour_prefix=("r", "b"),
        pieces=PIECES,
        regions=REGIONS,
        start_fen=START_FEN,
        diagonals=PALACE_DIAGONALS,
        river_after_rank=4,
        kings_may_face=False,
        stalemate_loses=True,
        no_capture_limit=120,
        dead_position_draw=True,
        fen_synonyms={"E": "B", "H": "N"},
        notations=("coordinates", "wxf", "chinese", "chinese-traditional"),
    )
