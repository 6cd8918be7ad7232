"""Chinese notation for Xiangqi (炮二平五, 马8进7, 前车进一): the form Chinese books, sites and players use.

A move is four characters: the piece and the file it stands on; how it goes (进 forward, 退 back, 平
along its rank); and where: the file it arrives on, or the number of points when it stays on its
file.  Files count from the mover's right, Red's in Chinese numerals, Black's in digits.  The tables
below hold everything the character sets and the sides differ in; one piece of code reads and
writes both sets.  Pieces are found by role, so any game whose pieces play these roles could list
the style.

Tandem pieces (two or more of one kind and side on a file) are told apart by place, as the tables of
Chinese Xiangqi software describe it (xqbase's 中国象棋着法表示规范, which cchess follows):
  - two on a file: 前 (nearer the enemy) or 后 replaces the file and goes first: 前车进一, 后炮平四;
  - three soldiers on a file: 前, 中, 后; four or five: 一, 二, 三, 四, 五 from the front: 二兵平四
    (cchess writes 前, 二, 三, 后 for four; both are read);
  - advisors and elephants keep their file even in tandem: of two on a file only the front one can go
    back and only the rear one forward, so 仕四进五 names one piece;
  - soldiers on two files that hold two or more each (2+2, 3+2): numbered as xqbase's table,
    ElephantEye and vschess do, files from the right and then from the front (一兵 ... 五兵:
    二兵平六).  pbm's earlier form, the file kept and the piece name dropped (前七平六, WXF's
    7+.6), is still read;
  - a record for other programs (`record=True`) names the middle soldier of three on a file 二兵,
    not 中兵: vschess reads no 中 in Chinese (it turns it into a WXF `.P` its own pattern refuses),
    and ElephantEye reads 二兵 as the second of the three, the same soldier; and Black's cannon 炮
    in traditional characters too, as ElephantEye writes it.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules.errors import IllegalMove, NotationError
from rules.position import Move, Position
from rules.said import either, listed, said

RED_FILES = "一二三四五六七八九"  # also the ordinals 一兵 ... 五兵, for both sides
DIGITS = "123456789"
_FULL_WIDTH = str.maketrans("１２３４５６７８９", DIGITS)


@dataclass(frozen=True)
class Script:
    """What one character set writes: each role's name for (Red, Black), the three ways of going
    (forward, back, along the rank) and the places of tandem pieces (front, middle, rear)."""

    names: dict[str, tuple[str, str]]
    verbs: tuple[str, str, str]
    places: tuple[str, str, str]


SCRIPTS = {
    "chinese": Script(
        {"king": ("帅", "将"), "advisor": ("仕", "士"), "elephant": ("相", "象"), "horse": ("马", "马"),
         "rook": ("车", "车"), "cannon": ("炮", "炮"), "soldier": ("兵", "卒")},
        ("进", "退", "平"), ("前", "中", "后")),
    # Red's chariot and horse as printed records write them (車, 馬), not as some sets carve them (俥, 傌).
    "chinese-traditional": Script(
        {"king": ("帥", "將"), "advisor": ("仕", "士"), "elephant": ("相", "象"), "horse": ("馬", "馬"),
         "rook": ("車", "車"), "cannon": ("炮", "砲"), "soldier": ("兵", "卒")},
        ("進", "退", "平"), ("前", "中", "後")),
}


def _characters(script: Script) -> set[str]:
    return {c for pair in script.names.values() for c in pair} | set(script.verbs) | set(script.places)


# Read: every name of either set and side, and the carved 俥 and 傌.
READ_ROLES = {c: role for script in SCRIPTS.values() for role, pair in script.names.items() for c in pair}
READ_ROLES |= {"俥": "rook", "傌": "horse"}
READ_VERBS = {c: way for script in SCRIPTS.values() for way, c in enumerate(script.verbs)}
READ_PLACES = {c: place for script in SCRIPTS.values() for place, c in enumerate(script.places)}
# A text with one of these is answered in traditional characters.
TRADITIONAL_ONLY = (_characters(SCRIPTS["chinese-traditional"]) | {"俥", "傌"}) \
    - _characters(SCRIPTS["chinese"])

BY_FILE_IN_TANDEM = ("advisor", "elephant")
FORWARD, BACK, ALONG = 0, 1, 2


@dataclass(frozen=True)
class Place:
    """Where a piece stands among its kind: its file (1.. from its side's right), its index from the
    front among those of its kind on that file, how many they are, how many files hold two or more of
    its kind, and its index among the pieces on those files (files from the right, then the front)."""

    role: str
    file: int
    index: int
    count: int
    tandem_files: int
    tandem_index: int | None


@dataclass(frozen=True)
class Query:
    """A text taken apart: role, file, place (index into Script.places: front, middle, rear), ordinal
    (一兵: 1..), way of going (index into Script.verbs) and target number."""

    role: str
    file: int | None
    place: int | None
    ordinal: int | None
    way: int
    target: int


def places(pos: Position) -> dict[int, Place]:
    """The Place of every piece of the side to move."""
    v = pos.t.variant
    side = pos.side
    by_code: dict[int, dict[int, list[int]]] = {}
    for sq in pos.pieces[side]:
        by_code.setdefault(pos.board[sq], {}).setdefault(_file(v.width, side, sq), []).append(sq)
    out: dict[int, Place] = {}
    for code, files in by_code.items():
        role = pos.t.piece_type(code).role
        for squares in files.values():
            squares.sort(key=lambda sq: -_forward(v.height, v.width, side, sq))
        tandem = [sq for f in sorted(files) if len(files[f]) >= 2 for sq in files[f]]
        tandem_files = sum(1 for squares in files.values() if len(squares) >= 2)
        for f, squares in files.items():
            for i, sq in enumerate(squares):
                out[sq] = Place(role, f, i, len(squares), tandem_files,
                                tandem.index(sq) if sq in tandem else None)
    return out


def _file(width: int, side: int, sq: int) -> int:
    return width - sq % width if side == 0 else sq % width + 1


def _forward(height: int, width: int, side: int, sq: int) -> int:
    """The rank counted from the side's own edge."""
    r = sq // width
    return r if side == 0 else height - 1 - r


def _going(pos: Position, move: Move) -> tuple[int, int]:
    """(way, target): the target is the arrival file, or the number of points along the file."""
    v = pos.t.variant
    fr, to = move[0], move[1]
    ahead = _forward(v.height, v.width, pos.side, to) - _forward(v.height, v.width, pos.side, fr)
    way = ALONG if ahead == 0 else FORWARD if ahead > 0 else BACK
    if fr % v.width == to % v.width:
        return way, abs(ahead)
    return way, _file(v.width, pos.side, to)


def _number(side: int, n: int) -> str:
    return RED_FILES[n - 1] if side == 0 else DIGITS[n - 1]


def _place_word(script: Script, place: Place) -> str:
    if place.count == 2:
        return script.places[0 if place.index == 0 else 2]
    if place.count == 3:
        return script.places[place.index]
    return RED_FILES[place.index]


def _twin_goes_alike(pos: Position, move: Move) -> bool:
    """Whether another piece of the same kind on the same file has a legal move going the same way to
    the same target: never for advisors and elephants on their own points, but a FEN may put an
    elephant elsewhere, and then it takes a place mark like any other piece."""
    v = pos.t.variant
    fr = move[0]
    going = _going(pos, move)
    return any(m[0] != fr and pos.board[m[0]] == pos.board[fr] and m[0] % v.width == fr % v.width
               and _going(pos, m) == going for m in pos.legal_moves())


def write(pos: Position, move: Move, style: str, record: bool = False) -> str:
    """`move` (legal in `pos`) in Chinese notation, in the character set `style` names; `record`:
    as other programs read it in a record (the middle of three soldiers 二兵, not 中兵)."""
    script = SCRIPTS[style]
    side = pos.side
    place = places(pos)[move[0]]
    # a record's cannon is 炮 for both sides, as ElephantEye writes traditional records (its 砲 is read)
    name = script.names[place.role][0 if record and place.role == "cannon" else side]
    if place.count == 1 or (place.role in BY_FILE_IN_TANDEM and not _twin_goes_alike(pos, move)):
        who = name + _number(side, place.file)
    elif place.tandem_files >= 2 and place.tandem_index is not None:
        who = RED_FILES[place.tandem_index] + name
    elif record and place.count == 3 and place.index == 1:
        who = RED_FILES[1] + name
    else:
        who = _place_word(script, place) + name
    way, target = _going(pos, move)
    return who + script.verbs[way] + _number(side, target)


def _value(c: str) -> int | None:
    if c in RED_FILES:
        return RED_FILES.index(c) + 1
    if c in DIGITS:
        return DIGITS.index(c) + 1
    return None


def parse(text: str) -> Query | None:
    """Take a text apart (its characters only, not the position); None when it is not Chinese
    notation.  Spaces are ignored, full-width digits read as digits, and a piece name may also come
    before its place (车前平三, as older books write it)."""
    s = "".join(text.split()).translate(_FULL_WIDTH)
    if len(s) != 4 or s[2] not in READ_VERBS or (target := _value(s[3])) is None:
        return None
    first, second = s[0], s[1]
    if first in READ_ROLES and second in READ_PLACES:
        first, second = second, first
    way = READ_VERBS[s[2]]
    if first in READ_ROLES and (f := _value(second)) is not None:
        return Query(READ_ROLES[first], f, None, None, way, target)
    if first in READ_PLACES and second in READ_ROLES:
        return Query(READ_ROLES[second], None, READ_PLACES[first], None, way, target)
    if first in READ_PLACES and (f := _value(second)) is not None:
        return Query("soldier", f, READ_PLACES[first], None, way, target)
    if (n := _value(first)) is not None and second in READ_ROLES:
        return Query(READ_ROLES[second], None, None, n, way, target)
    return None


def _fits(q: Query, p: Place) -> bool:
    """Whether the piece at `p` is one the query's designation can mean (its move aside)."""
    if p.role != q.role or (q.file is not None and p.file != q.file):
        return False
    if q.place is not None:
        last = p.count - 1
        return p.count >= 2 and p.index == (0 if q.place == 0 else last if q.place == 2 else 1) \
            and (q.place != 1 or p.count == 3)
    if q.ordinal is not None:
        if p.tandem_files >= 2:
            return p.tandem_index == q.ordinal - 1
        return p.count >= 2 and p.index == q.ordinal - 1
    return True


# How far a piece that leaves its file steps forward or back: by the files it crosses (the others
# move along one line, so the target names their point alone).
_DIAGONAL_RANKS = {"horse": {1: 2, 2: 1}, "elephant": {2: 2}, "advisor": {1: 1}}


def meant(pos: Position, text: str) -> Move | None:
    """The one move `text` names by its piece, way and target, legal or not: the move to explain
    when it is refused (rules.explain).  None where the text names no single such move."""
    q = parse(text)
    if q is None:
        return None
    v = pos.t.variant
    moves = set()
    for fr, p in places(pos).items():
        if not _fits(q, p):
            continue
        for to in range(v.width * v.height):
            if to == fr or _going(pos, (fr, to)) != (q.way, q.target):
                continue
            files, ranks = abs(to % v.width - fr % v.width), abs(to // v.width - fr // v.width)
            shape = _DIAGONAL_RANKS.get(p.role)
            if (shape.get(files) == ranks) if shape else (files == 0 or ranks == 0):
                moves.add((fr, to))
    return moves.pop() if len(moves) == 1 else None


def read(pos: Position, text: str, legal: list[Move]) -> Move | None:
    """The legal move `text` names; None when the text is not Chinese notation.  A designation that
    fits several pieces is read when only one of them can make the move (马二进三 for the one of two
    horses on file 二 that can go there); a text that fits several moves or none raises."""
    q = parse(text)
    if q is None:
        return None
    at = places(pos)
    pieces = [m for m in legal if m[0] in at and _fits(q, at[m[0]])]
    fits = [m for m in pieces if _going(pos, m) == (q.way, q.target)]
    style = "chinese-traditional" if TRADITIONAL_ONLY & set(text) else "chinese"
    if len(fits) > 1:
        raise NotationError(said("{move} fits more than one piece; write {moves}", move=text.strip(),
                                 moves=either([write(pos, m, style) for m in fits])))
    if not fits:
        if pieces:
            why = said("the piece it names can play {moves}",
                       moves=listed(sorted({write(pos, m, style) for m in pieces})))
        else:
            why = said("no piece of yours fits that name; the legal moves are {moves}",
                       moves=listed(sorted(write(pos, m, style) for m in legal)))
        raise IllegalMove(said("{move} is not a legal move: {why}", move=text.strip(), why=why))
    return fits[0]
