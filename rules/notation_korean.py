"""Korean notation for Janggi (08마87, 79졸78): the kibo of Korean game records and of the `.gib` files
of Korean apps, so that Korean players can write moves as they read them.

A move is its from-point, the piece, its to-point.  A point is two digits, the row counted from Han's
edge (1 ... 9, then 0 for Cho's back row) and the file from Cho's left (1 ... 9), the same for both
sides: the digits of Fairy-Stockfish's Janggi notation (H08-87), whose letter form is read too.  A
pass is written 한수쉼 ("one move rest"), as records write it.
"""
from __future__ import annotations

import re

from rules.errors import IllegalMove
from rules.position import Move, Position
from rules.said import said
from rules.variant import Variant

# Each role's name as written, for (Cho, Han): the soldiers are 卒 (졸) for Cho and 兵 (병) for Han.
HANGUL = {"king": ("장", "장"), "advisor": ("사", "사"), "elephant": ("상", "상"), "horse": ("마", "마"),
          "rook": ("차", "차"), "cannon": ("포", "포"), "soldier": ("졸", "병")}
# Read besides: the Hanja on the pieces, and the names records give the general (궁, 楚, 漢).
READ_NAMES = {c: role for role, pair in HANGUL.items() for c in pair} | {
    "궁": "king", "將": "king", "楚": "king", "漢": "king", "士": "advisor", "象": "elephant",
    "馬": "horse", "車": "rook", "包": "cannon", "卒": "soldier", "兵": "soldier"}
PASS = "한수쉼"
READ_PASS = (PASS, "pass")

_POINTS = r"(?P<fr>[0-9][1-9])\s*-?\s*{}\s*-?\s*(?P<to>[0-9][1-9])"
_KIBO = re.compile("^" + _POINTS.format(r"(?P<name>\S)") + "$")
# Fairy-Stockfish: H08-87, E45x73 for a capture, C88-85+ for a check.
_LETTERS = re.compile(r"^(?P<name>[A-Za-z])(?P<fr>[0-9][1-9])\s*[-x]?\s*(?P<to>[0-9][1-9])[+#]?$")


def point(v: Variant, sq: int) -> str:
    """`08` for h1: the row from Han's edge (10 written 0), then the file from Cho's left."""
    return f"{(v.height - sq // v.width) % 10}{sq % v.width + 1}"


def _square(v: Variant, digits: str) -> int:
    rank = v.height - (int(digits[0]) or 10)
    return rank * v.width + int(digits[1]) - 1


def write(pos: Position, move: Move) -> str:
    """`move` (legal in `pos`) in Korean notation."""
    fr, to = move[0], move[1]
    if fr == to:
        return PASS
    v = pos.t.variant
    name = HANGUL[pos.t.piece_type(pos.board[fr]).role][pos.side]
    return f"{point(v, fr)}{name}{point(v, to)}"


def _is_pass(text: str) -> bool:
    return "".join(text.split()).lower() in READ_PASS


def _parts(v: Variant, text: str) -> tuple[str, int, int] | None:
    """(role, from, to) of a move written in Korean notation; None for any other text."""
    s = text.strip()
    if m := _KIBO.match(s):
        role = READ_NAMES.get(m["name"])
    elif m := _LETTERS.match(s):
        role = next((p.role for p in v.pieces if p.wxf == m["name"].upper()), None)
    else:
        return None
    if role is None:
        return None
    return role, _square(v, m["fr"]), _square(v, m["to"])


def well_formed(v: Variant, text: str) -> bool:
    """Whether `text` has the form of a Korean move (the position not consulted: a premove)."""
    return _is_pass(text) or _parts(v, text) is not None


def read(pos: Position, text: str) -> Move | None:
    """The (from, to) move `text` names, legal or not (the game judges it as it judges coordinates);
    None when the text is not Korean notation.  The piece named must be the one on the from-point."""
    v = pos.t.variant
    if v.passing and _is_pass(text):
        king = pos.kings[pos.side]
        return king, king
    parts = _parts(v, text)
    if parts is None:
        return None
    role, fr, to = parts
    code = pos.board[fr]
    if code and pos.t.piece_type(code).role != role:
        ptype = pos.t.piece_type(code)
        named = next(p.name for p in v.pieces if p.role == role)
        raise IllegalMove(said("{move} is not a legal move: {why}", move=text.strip(), why=said(
            "the piece on {point} is {side}'s {piece} ({hangul}), not a {named}", point=point(v, fr),
            side=said(v.side_names[code & 1]), piece=said(ptype.name, side=code & 1),
            hangul=HANGUL[ptype.role][code & 1],
            named=said(named))))
    return fr, to
