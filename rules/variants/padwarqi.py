"""Padwar qi as the project plays it (docs/games.md "Padwar qi"): Xiangqi's board, palace,
river and starting points, with Jetan's pieces that move along walks of exactly N unit steps.

A walk never visits a point twice and passes only empty points (nothing leaps); different walks to the
same point are alternatives, and the point is reachable if any of them is open (`patterns.walks`).
Each piece plays the part of the Xiangqi piece it replaces (`role`), which is what the repetition
referee reasons about, and the FEN uses that piece's letter (spec "FEN").

Parameter `korean` is the seed's Korean variant.

Decisions where the spec is silent (docs/decisions.md): the Xiangqi draw after 120 plies without a
capture applies, since the seed plays "same as in Xiang-qi" where it does not say otherwise; the
`-korean` chief keeps its own move (the seed gives palace-diagonal steps only to warriors, dwars and
cannons, and the chief may step diagonally anywhere in its palace already).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rules.errors import RulesError
from rules.patterns import CANNON, HOP_ONLY, Leap, steps, walks, walks_of
from rules.said import N_
from rules.variant import PieceType, Variant, switch
from rules.variants import xiangqi

LINES = "drawn-diagonals"  # -korean: diagonal steps only along the drawn palace diagonals
FORWARD = ((0, 1), (1, 1), (-1, 1))
SIDEWAYS = ((1, 0), (-1, 0))

# Board letters: the initials, but the pathan is N (Burroughs' "panthan") since the padwar has P.
LEGEND = (
    "r = Red (moves first), b = Black.  C chief, W warrior, P padwar, T thoat,",
    "D dwar, M Martian cannon, N pathan.  Every piece walks exactly its number",
    "of steps through empty points: \"padwarqi help\" shows the walks.",
)


def pieces(korean: bool) -> tuple[PieceType, ...]:
    """The seven piece types; `korean` gives the seed's Korean variant."""
    # Warriors, dwars and cannons may mix steps along the drawn palace diagonals into their walks.
    orthogonal = {"kinds": "WF", "lines": LINES} if korean else {"kinds": "W"}
    three = walks(3, **orthogonal).paths
    if korean:  # the cannon moves and captures only over exactly one piece, never a cannon
        cannon = (Leap(three, mode=HOP_ONLY, lines=LINES),)
        padwar = walks_of("FFW")  # two diagonal and one orthogonal step, in any order, anywhere
        pathan = (steps(FORWARD + SIDEWAYS),)
    else:       # the cannon moves as a dwar and captures over exactly one piece
        cannon = (Leap(three, mode=CANNON),)
        padwar = walks(2, "F", stay_in="own-half")
        pathan = (steps(FORWARD), steps(SIDEWAYS, when="crossed"))
    return (
        PieceType("K", "chief", "king", "C", "K", (walks(2, "WF", stay_in="palace"),), royal=True),
        PieceType("A", "warrior", "advisor", "W", "A", (walks(2, **orthogonal, stay_in="palace"),)),
        PieceType("B", "padwar", "elephant", "P", "E", (padwar,)),
        PieceType("N", "thoat", "horse", "T", "H", (walks_of("WF"),)),
        PieceType("R", "dwar", "rook", "D", "R", (walks(3, **orthogonal),)),
        PieceType("C", "Martian cannon", "cannon", "M", "C", cannon),
        PieceType("P", "pathan", "soldier", "N", "P", pathan),
    )


_PIECES = {korean: pieces(korean) for korean in (False, True)}


def build(params: Mapping[str, str | bool]) -> Variant:
    """Parameter: `korean` (the seed's Korean variant)."""
    unknown = sorted(set(params) - {"korean"})
    if unknown:
        raise RulesError(f"padwarqi has no parameter {', '.join(unknown)}; its one parameter is korean "
                         f"(the Korean variant)")
    korean = switch("padwarqi", "korean", params.get("korean", False))
    # Xiangqi's board, palace, river, starting points, facing rule and draw rules; Jetan's pieces.
    return replace(
        xiangqi.build({}),
        name="padwarqi",
        title="Padwar qi",
        pieces=_PIECES[korean],
        notation="coordinates",
        legend=LEGEND,
        params=(("korean", True),) if korean else (),
        parameters=(("korean", N_("the Korean variant (see the rules above)")),),
    )
