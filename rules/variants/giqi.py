"""Gi-Qi-Game as the project plays it (docs/games.md "Gi-Qi-Game"): a 9x9 board of squares,
a river rank of strong and weak squares, shogi-like promotion and drops, castling with a lance, a king
bound to the 3x3 zones that hold one of its guards, and no position may be played twice.

Everything here is data: a piece is its patterns before crossing plus those it gains `when="crossed"`
("crossed" = the far half, or a strong river square), and its promoted form is another piece type
whose letter is "+" and the base letter.  The rules that are not patterns (drops, promotion choices,
the teleport, the king zones, castling, the repetition rule) are switches on the `Variant`, read by
`rules.hand_position.HandPosition`.

The opening diagram of the seed is lost; the setup is the spec's reconstruction, and the help page says
so.  Decisions where the spec is silent are in docs/decisions.md.
"""
from __future__ import annotations

from collections.abc import Mapping

from rules.errors import RulesError
from rules.patterns import (
    CANNON,
    DIAGONAL,
    HOP,
    ORTHOGONAL,
    Leap,
    Slide,
    mirrored,
    rotations,
    steps,
)
from rules.said import N_
from rules.variant import PieceType, Points, Region, Variant, switch

START_FEN = "lhegkgehl/1r2n2b1/fpfyfyfpf/9/9/9/FPFYFYFPF/1B2N2R1/LHEGKGEHL[] w KQkq - 0 1"
WIDTH = HEIGHT = 9
RIVER = 4                     # rank 5, counted from either side
STRONG_FILES = (0, 2, 4, 6, 8)  # a, c, e, g, i
PARAMETERS = (
    ("nodrops", N_("no drops: captured pieces leave the game")),
    ("koreancannons", N_("cannons and arrows must jump one piece to move as well, and may jump and "
                         "take their own kind")),
    ("warriorpromotion", N_("with -nodrops: peasants, foot soldiers and yeomen may promote to warrior")),
    ("swapriver", N_("the even river squares (b5 d5 f5 h5) are the strong ones")),
)

FORWARD, BACK = (0, 1), (0, -1)
SIDEWAYS = ((1, 0), (-1, 0))
FORWARD_DIAGONALS = ((1, 1), (-1, 1))
BACK_DIAGONALS = ((1, -1), (-1, -1))
KNIGHT = rotations(mirrored((((1, 2),),)))  # the eight knight leaps (nothing blocks them)
KING_STEPS = ORTHOGONAL + DIAGONAL
# Heavy cavalry: one orthogonal step to an empty square, then one or two diagonal steps outward.
HEAVY_CAVALRY = rotations(mirrored((((0, 1), (1, 2)), ((0, 1), (1, 2), (2, 3)))))

LEGEND = (
    "w = White (moves first), b = Black; + after a letter: promoted.  K king,",
    "G bodyguard (G+ warrior), E elephant (E+ arrow), H horse (H+ heavy cavalry),",
    "L lance (L+ cannon), R rook (R+ dragon rook), N knight (N+ dragon knight),",
    "B bishop (B+ dragon bishop), P peasant (P+ marshal), F foot soldier",
    "(F+ queen), Y yeoman (Y+ adjutant).  Row 5 is the river: * marks a strong",
    "square (a piece there has crossed), ~ a weak one.",
)


def _piece(letter: str, name: str, role: str, *patterns: Leap | Slide, **kw) -> PieceType:
    return PieceType(letter, name, role, letter.lstrip("+"), letter.lstrip("+"), tuple(patterns), **kw)


def pieces(korean_cannons: bool, warrior_promotion: bool) -> tuple[PieceType, ...]:
    """The eleven piece types and their promoted forms."""
    cannon_mode = HOP if korean_cannons else CANNON
    pawn_promotions = ("+G",) if warrior_promotion else ()
    knight = Leap(KNIGHT)
    return (
        _piece("K", "king", "king", steps(KING_STEPS), royal=True),
        # copper general, and gold general once crossed
        _piece("G", "bodyguard", "advisor", steps((FORWARD, BACK) + FORWARD_DIAGONALS),
               steps(SIDEWAYS, when="crossed"), promotions=("+G",), guard=True),
        _piece("E", "elephant", "elephant", Slide(FORWARD_DIAGONALS), promotions=("+E",)),
        _piece("H", "horse", "horse", steps(((1, 2), (-1, 2))), steps(((2, 1), (-2, 1)), when="crossed"),
               promotions=("+H",)),
        _piece("L", "lance", "rook", Slide((FORWARD,)), Slide(SIDEWAYS, when="crossed"), promotions=("+L",)),
        _piece("R", "rook", "rook", Slide(ORTHOGONAL), promotions=("+R",)),
        _piece("N", "knight", "horse", knight, promotions=("+N",)),
        _piece("B", "bishop", "elephant", Slide(DIAGONAL), promotions=("+B",)),
        # chess pawn without the double step; sideways moves (not captures) once crossed
        _piece("P", "peasant", "soldier", Leap(((FORWARD,),), captures=False),
               Leap(tuple((d,) for d in FORWARD_DIAGONALS), moves=False),
               Leap(tuple((d,) for d in SIDEWAYS), captures=False, when="crossed"),
               promotions=("+P",) + pawn_promotions),
        _piece("F", "foot soldier", "soldier", steps((FORWARD,)), steps(SIDEWAYS, when="crossed"),
               promotions=("+F",) + pawn_promotions),
        # Berolina pawn: moves diagonally forward, captures straight forward; sideways captures once crossed
        _piece("Y", "yeoman", "soldier", Leap(tuple((d,) for d in FORWARD_DIAGONALS), captures=False),
               Leap(((FORWARD,),), moves=False),
               Leap(tuple((d,) for d in SIDEWAYS), moves=False, when="crossed"),
               promotions=("+Y",) + pawn_promotions),
        # promoted forms
        _piece("+G", "warrior", "advisor", steps((FORWARD,) + FORWARD_DIAGONALS + BACK_DIAGONALS),
               steps(SIDEWAYS, when="crossed"), guard=True),     # silver general / drunk elephant
        _piece("+E", "arrow", "cannon", Slide(DIAGONAL, mode=cannon_mode)),
        _piece("+H", "heavy cavalry", "horse", Leap(HEAVY_CAVALRY)),
        _piece("+L", "cannon", "cannon", Slide(ORTHOGONAL, mode=cannon_mode)),
        _piece("+R", "dragon rook", "rook", Slide(ORTHOGONAL), steps(DIAGONAL)),
        _piece("+N", "dragon knight", "horse", knight, steps(KING_STEPS)),
        _piece("+B", "dragon bishop", "elephant", Slide(DIAGONAL), steps(ORTHOGONAL)),
        _piece("+P", "marshal", "rook", Slide(ORTHOGONAL), knight),
        _piece("+F", "queen", "rook", Slide(ORTHOGONAL + DIAGONAL)),
        _piece("+Y", "adjutant", "rook", Slide(DIAGONAL), knight),
    )


def regions(swap_river: bool) -> dict[str, Region | Points]:
    """"crossed": the far half (ranks 6-9 counted from the owner), and the strong river squares."""
    strong = tuple(f for f in range(WIDTH) if (f in STRONG_FILES) != swap_river)
    far = {(f, r) for f in range(WIDTH) for r in range(RIVER + 1, HEIGHT)}
    return {"crossed": Points(frozenset(far | {(f, RIVER) for f in strong}))}


def build(params: Mapping[str, str | bool]) -> Variant:
    """Parameters: nodrops, koreancannons, warriorpromotion (with nodrops only), swapriver."""
    names = [name for name, _ in PARAMETERS]
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise RulesError(f"giqi has no parameter {', '.join(unknown)}; its parameters are "
                         f"{', '.join(names)}")
    on = {name: switch("giqi", name, params.get(name, False)) for name in names}
    if on["warriorpromotion"] and not on["nodrops"]:
        raise RulesError("giqi parameter warriorpromotion needs nodrops too: the seed offers it only "
                         "for games without drops")
    return Variant(
        name="giqi",
        title="Gi-Qi-Game",
        width=WIDTH,
        height=HEIGHT,
        side_names=("White", "Black"),
        colour_prefix=("w", "b"),
        colours=("#a35200", "#1b1b1b"),  # drawn pieces: White's brown, Black's black
        pieces=pieces(on["koreancannons"], on["warriorpromotion"]),
        regions=regions(on["swapriver"]),
        start_fen=START_FEN,
        river_after_rank=None,
        kings_may_face=False,
        facing=KING_STEPS,
        stalemate_loses=True,
        notation="coordinates",
        legend=LEGEND,
        params=tuple((name, True) for name in names if on[name]),
        parameters=PARAMETERS,
        drops=not on["nodrops"],
        promotion_zone=3,
        king_zones=3,
        teleport=True,
        castling=True,
        repeat_is_illegal=True,
        board_style="squares",
    )
