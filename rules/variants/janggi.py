"""Janggi as the project plays it (docs/games.md): the Fairy-Stockfish pieces and board.

Rule sets: by default the seed's rules (Fairy-Stockfish `janggitraditional`): bikjang and two passes in a
row are draws, as is 100 plies without capture.  Parameter `points` is tournament scoring (Fairy-Stockfish
`janggi`): those endings go to the side with more material, Han getting 1.5 for moving second.

Setup choice: parameters `cho` and `han` name the arrangement of each side's horses and elephants
(`ARRANGEMENTS`); a game may also change them before that side's first move (`Game.setup`).
"""
from __future__ import annotations

from collections.abc import Mapping

from rules.errors import RulesError
from rules.fen import with_arrangement
from rules.patterns import (
    DIAGONAL,
    HOP_ONLY,
    ORTHOGONAL,
    Leap,
    Slide,
    mirrored,
    rotations,
    steps,
)
from rules.said import N_
from rules.variant import (
    Arrangement,
    PieceType,
    Region,
    Variant,
    choose_arrangement,
    switch,
)
from rules.variants.xiangqi import HORSE_PATHS, PALACE_DIAGONALS

STANDARD_FEN = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
SIDES = ("cho", "han")  # the parameter naming each side's arrangement

REGIONS = {"palace": Region(files=range(3, 6), ranks=range(0, 3))}

LINES = "drawn-diagonals"  # diagonal moves only along the palace diagonals
# King and advisors: one step along the palace lines.
PALACE_STEPS = (steps(ORTHOGONAL, stay_in="palace"), steps(DIAGONAL, stay_in="palace", lines=LINES))
# The elephant goes one point orthogonally, then two diagonally outward; both points it passes must be
# empty.
ELEPHANT_PATHS = rotations(mirrored((((0, 1), (1, 2), (2, 3)),)))

PIECES = (
    PieceType("K", "king", "king", "K", "K", PALACE_STEPS, royal=True, glyphs=("楚", "漢"),
              hangul=("장", "장")),
    PieceType("A", "advisor", "advisor", "G", "A", PALACE_STEPS, glyphs=("士", "士"),
              hangul=("사", "사")),
    PieceType("B", "elephant", "elephant", "E", "E", (Leap(ELEPHANT_PATHS),), glyphs=("象", "象"),
              hangul=("상", "상")),
    PieceType("N", "horse", "horse", "H", "H", (Leap(HORSE_PATHS),), glyphs=("馬", "馬"),
              hangul=("마", "마")),
    PieceType("R", "chariot", "rook", "R", "R", (Slide(ORTHOGONAL), Slide(DIAGONAL, lines=LINES)),
              glyphs=("車", "車"), hangul=("차", "차")),
    # Moves and captures only over one screen that is not a cannon, and never takes a cannon.
    PieceType("C", "cannon", "cannon", "C", "C", (
        Slide(ORTHOGONAL, mode=HOP_ONLY),
        Slide(DIAGONAL, mode=HOP_ONLY, lines=LINES),
    ), glyphs=("包", "包"), hangul=("포", "포")),
    PieceType("P", "soldier", "soldier", "S", "P", (
        steps(((0, 1), (1, 0), (-1, 0))),
        steps(((1, 1), (-1, 1)), lines=LINES),  # forward along the (enemy) palace diagonals
    ), glyphs=("卒", "兵"), hangul=("졸", "병")),
)

POINTS = {"R": 13, "C": 7, "N": 5, "B": 3, "A": 3, "P": 2}
HAN_BONUS = 1.5

LEGEND = (
    "c = Cho (moves first), h = Han.  K king, G guard (advisor), E elephant,",
    "H horse, R chariot, C cannon, S soldier.",
)


def _arrangement(key: str, hangul: str, romanized: str, letters: str, english: str, swap: str,
                 aliases: tuple[str, ...]) -> Arrangement:
    fen_letters = {"H": "N", "E": "B"}
    placement = tuple(zip((1, 2, 6, 7), (fen_letters[c] for c in letters)))
    return Arrangement(key, hangul, romanized, letters, english, swap, placement,
                       aliases + (key + " elephant", key + " elephants"))


# The four arrangements of horses (ma) and elephants (sang) on the b, c, g and h files, named from the
# player's own seat (Han's left is the i-file).  Koreans also name them by where the elephants stand:
# inner (an-sang), outer (bakkat-sang), left (oen-sang: the left elephant outside), right (oreun-sang).
# The romanized name is translated: into Chinese as the pieces' characters (马象象马), a gloss of the
# Hangul name that Chinese readers see beside it.
ARRANGEMENTS: tuple[Arrangement, ...] = (
    _arrangement("inner", "마상상마", N_("ma-sang-sang-ma"), "HEEH",
                 N_("horses beside the chariots, elephants inside: the standard arrangement"), N_("kept"),
                 ("안상", "an-sang", "standard", "default")),
    _arrangement("left", "상마상마", N_("sang-ma-sang-ma"), "EHEH",
                 N_("on your left the elephant beside the chariot, on your right the horse"),
                 N_("left swapped"), ("왼상", "oen-sang")),
    _arrangement("right", "마상마상", N_("ma-sang-ma-sang"), "HEHE",
                 N_("on your left the horse beside the chariot, on your right the elephant"),
                 N_("right swapped"), ("오른상", "oreun-sang")),
    _arrangement("outer", "상마마상", N_("sang-ma-ma-sang"), "EHHE",
                 N_("elephants beside the chariots, horses inside"), N_("both swapped"),
                 ("바깥상", "bakkat-sang")),
)
STANDARD = ARRANGEMENTS[0]


def describe(a: Arrangement) -> str:
    """One line a player can choose from, e.g. `1 inner: 마상상마 (ma-sang-sang-ma), HEEH from your
    left: horses beside the chariots, elephants inside: the standard arrangement (kept)`."""
    return a.describe(ARRANGEMENTS.index(a) + 1)


def parse_arrangement(text: str) -> Arrangement:
    """The arrangement a player means by `text`: its number 1-4, key (inner, left, right, outer), Korean
    name in hangul or romanized (마상상마, ma-sang-sang-ma, 안상, an-sang), the letters from the player's
    left (HEEH) or the swap (kept, left swapped, ...); case, spaces and hyphens do not matter.  Anything
    else raises NotationError listing the four."""
    return choose_arrangement(ARRANGEMENTS, text)


def build(params: Mapping[str, str | bool]) -> Variant:
    """Parameters: `cho` and `han` (arrangements, see parse_arrangement) and `points`."""
    unknown = sorted(set(params) - {*SIDES, "points"})
    if unknown:
        raise RulesError(f"janggi has no parameter {', '.join(unknown)}; its parameters are cho=SETUP and "
                         f"han=SETUP (SETUP: {', '.join(a.key for a in ARRANGEMENTS)}) and points "
                         f"(tournament scoring)")
    chosen: dict[str, str | bool] = {}
    start = STANDARD_FEN
    for side, name in enumerate(SIDES):
        if name in params:
            arrangement = parse_arrangement(str(params[name]))
            chosen[name] = arrangement.key
            start = with_arrangement(start, 9, 10, side, arrangement)
    points = switch("janggi", "points", params.get("points", False))
    if points:
        chosen["points"] = True
    return Variant(
        name="janggi",
        title="Janggi",
        width=9,
        height=10,
        side_names=("Cho", "Han"),
        colour_prefix=("c", "h"),
        colours=("#1552a5", "#c3161c"),  # Cho blue, Han red
        pieces=PIECES,
        regions=REGIONS,
        start_fen=start,
        diagonals=PALACE_DIAGONALS,
        river_after_rank=None,
        kings_may_face=True,
        facing_must_break=True,
        passing=True,
        no_capture_limit=100,
        perpetual_chase=False,
        points=POINTS if points else {},
        points_bonus=(0.0, HAN_BONUS) if points else (0.0, 0.0),
        arrangements=ARRANGEMENTS,
        notation="coordinates",
        notations=("coordinates", "korean"),
        legend=LEGEND,
        fen_synonyms={"E": "B", "H": "N"},
        params=tuple(sorted(chosen.items())),
        parameters=(("points", N_("tournament scoring: drawn endings decided on material")),),
    )
