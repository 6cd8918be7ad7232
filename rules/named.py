"""Points, pieces and moves in a said text (rules.said), named in each notation a reader may choose
beside coordinates, so that a server can say a refusal or a warning in the reader's notation.

Korean notation names a point by its two digits (02, as kibo does).  Chinese notation names no
points, only pieces by their files: a piece is named by its side and file as Chinese players say
it (黑方2路炮, 红方八路马; 前/后 where two of a kind share the file), and an empty point by the
file and the line counted from the mover's side, in the mover's numerals (八路第三线, 8路第3线), as
the picture labels the files for that reader (docs/notation.md).  A move is named as the notation
writes it."""
from __future__ import annotations

from rules import notation, notation_chinese, notation_korean, notation_styles
from rules.position import Move, Position
from rules.said import Said, named, said
from rules.variant import Variant

_CHINESE = ("chinese", "chinese-traditional")
# The words a Chinese name of a point or piece takes, per character set: the sides, file, line.
_WORDS = {"chinese": (("红方", "黑方"), "路", "线"), "chinese-traditional": (("紅方", "黑方"), "路", "線")}


def _number(side: int, n: int) -> str:
    """A file or line number as the side's own notation writes it (Red: 一...十; Black: 1...10)."""
    return (notation_chinese.RED_FILES + "十")[n - 1] if side == 0 else str(n)


def _line(pos: Position, side: int, sq: int) -> int:
    """The line of `sq` counted from `side`'s own edge, from 1."""
    v = pos.t.variant
    rank = sq // v.width
    return (rank if side == 0 else v.height - 1 - rank) + 1


def _file(pos: Position, side: int, sq: int) -> int:
    w = pos.t.variant.width
    return w - sq % w if side == 0 else sq % w + 1


def _chinese_point(pos: Position, sq: int, style: str, side: int | None = None) -> str:
    """`八路第三线`: the file and line of `sq` from `side`'s edge (by default the mover's)."""
    sides, file_word, line_word = _WORDS[style]
    side = pos.side if side is None else side
    return f"{_number(side, _file(pos, side, sq))}{file_word}第{_number(side, _line(pos, side, sq))}{line_word}"


def _chinese_piece(pos: Position, sq: int, style: str) -> str:
    """`黑方2路炮`: the piece on `sq` by its side and its file (前/中/后 for tandem pieces)."""
    code = pos.board[sq]
    side = code & 1
    w = pos.t.variant.width
    alike = sorted((s for s in pos.pieces[side] if pos.board[s] == code and s % w == sq % w),
                   key=lambda s: -_line(pos, side, s))
    script = notation_chinese.SCRIPTS[style]
    place = ""
    if len(alike) in (2, 3):
        place = script.places[alike.index(sq) * (2 if len(alike) == 2 else 1)]
    elif len(alike) > 3:
        place = notation_chinese.RED_FILES[alike.index(sq)]
    return _chinese_name(pos.t.variant, sq, pos.t.piece_type(code).role, side, style, place)


def _chinese_name(v: Variant, sq: int, role: str, side: int, style: str, place: str = "") -> str:
    sides, file_word, _ = _WORDS[style]
    file = v.width - sq % v.width if side == 0 else sq % v.width + 1
    return f"{sides[side]}{_number(side, file)}{file_word}{place}{notation_chinese.SCRIPTS[style].names[role][side]}"


def point(pos: Position, sq: int) -> Said:
    """The point `sq`: `b1` in coordinates; named in each notation of the game a reader may choose
    (the piece on it, where one stands, for a reader of Chinese notation)."""
    v = pos.t.variant
    names = {}
    if "korean" in v.notations:
        names["korean"] = notation_korean.point(v, sq)
    for style in _CHINESE:
        if style in v.notations:
            names[style] = _chinese_piece(pos, sq, style) if pos.board[sq] else _chinese_point(pos, sq, style)
    return named(notation.square_name(v, sq), names)


def place(pos: Position, sq: int, style: str) -> str:
    """Where the piece on `sq` stands, in `style`: `e1` in coordinates (and WXF, which names no
    points), `59` in Korean, `五路第一线` in Chinese, counted from the piece's own side as its
    player reads the board (a piece list for a reader who cannot see the board)."""
    v = pos.t.variant
    if style == "korean" and style in v.notations:
        return notation_korean.point(v, sq)
    if style in _CHINESE and style in v.notations:
        return _chinese_point(pos, sq, style, pos.board[sq] & 1)
    return notation.square_name(v, sq)


def piece(pos: Position, sq: int) -> Said:
    """`the horse on b1`; for a reader of Chinese notation the piece by its file (红方八路马)."""
    v = pos.t.variant
    code = pos.board[sq]
    # the piece's side goes with its name: a language may name one side's piece otherwise (卒, 병)
    text = said("the {piece} on {square}", piece=piece_name(pos, code), square=point(pos, sq))
    return named(text, {style: _chinese_piece(pos, sq, style) for style in _CHINESE if style in v.notations})


_READINGS = {"兵": "병", "卒": "졸"}      # a soldier's character read in Korean


def piece_name(pos: Position, code: int) -> Said:
    """A piece's name, with its side and faces: a language may name one side's piece otherwise
    (兵 and 卒, 병 and 졸), and the faces say which of its names is this side's in this game."""
    piece = pos.t.piece_type(code)
    glyph = piece.glyphs[code & 1] if piece.glyphs else ""
    faces = tuple(f for f in (glyph, piece.hangul[code & 1] if piece.hangul else "",
                              _READINGS.get(glyph, "")) if f)
    return said(piece.name, side=code & 1, faces=faces)


def move(pos: Position, played: Move) -> Said:
    """A legal move of `pos` in coordinates, with its name in each notation of the game."""
    v = pos.t.variant
    return named(notation.format_move(v, played, pos),
                 {style: notation_styles.write(pos, played, style) for style in v.notations
                  if style not in ("coordinates", "wxf")})


def points(pos: Position, squares: list[int], joint: str = ", ") -> Said:
    """Several points joined (`a3, c3`), named point by point."""
    each = [point(pos, sq) for sq in squares]
    return named(joint.join(each), {style: joint.join(p.names[style] for p in each)
                                    for style in (each[0].names if each else {})})


def destinations(pos: Position, fr: int, squares: list[int]) -> Said:
    """Where the piece on `fr` can go (`a3, c3`); for a reader of Chinese notation, as its moves
    there (马八进九, 马八进七), Chinese notation having no names of points."""
    text = points(pos, squares)
    moves = [move(pos, (fr, sq)) for sq in squares]
    for style in _CHINESE:
        if style in text.names:
            text.names[style] = "、".join(m.names[style] for m in moves)
    return text


def piece_of_record(v: Variant, square: str, piece: str, side: str) -> Said:
    """`piece` (its English name) of `side` (a side name) on `square` (coordinates) as a stored text
    gives them (`perpetual chase of the cannon on b7 by Red`), named as `piece` names it."""
    sq = notation.parse_square(v, square)
    role = next(p.role for p in v.pieces if p.name == piece)
    owner = v.side_names.index(side)
    names = {"korean": notation_korean.point(v, sq)} if "korean" in v.notations else {}
    text = said("the {piece} on {square}", piece=said(piece), square=named(square, names))
    return named(text, {style: _chinese_name(v, sq, role, owner, style) for style in _CHINESE
                        if style in v.notations})
