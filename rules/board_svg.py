"""The board drawn as SVG, for the HTML part of a board mail: the points and lines (or the squares
of a board of squares), the river and the palace diagonals, round pieces with their characters
(PieceType.face) in their side's colour, the last move marked.

Same geometry as the ASCII board (rules.board_ascii): `turned` draws it from the second player's
side.  Plain SVG 1.1 with inline attributes only (no CSS, scripts or images), so that a mail client
can show it as it stands.  Fixed proportions: the geometry constants below are also what a test uses
to find the points on a rendered picture.
"""
from __future__ import annotations

import re
from functools import lru_cache
from html import escape

from rules.board_ascii import drawn_files, drawn_ranks
from rules.notation import parse_square
from rules.notation_chinese import RED_FILES
from rules.position import Position

STEP = 40                               # between two points (or the side of a square)
MARGIN = 44                             # from the outer lines to the picture's edge: the labels
RADIUS = 17                             # of a piece
LABEL = 13                              # from the edge to the middle of a label
BOARD = "#f0d9a0"                       # the wood
LINE = "#5a4326"
PIECE = "#fbf3df"                       # a piece's face
MARK = "#2e9e4f"                        # the last move's points
_SQUARE = re.compile(r"[a-z]\d{1,2}")


def size(v) -> tuple[int, int]:
    """(width, height) of the picture in its own units."""
    cells = (v.width, v.height) if v.board_style == "squares" else (v.width - 1, v.height - 1)
    return 2 * MARGIN + cells[0] * STEP, 2 * MARGIN + cells[1] * STEP


def centre(v, column: int, row: int) -> tuple[float, float]:
    """Where the point (or square) drawn in `column` from the left, `row` from the top, stands."""
    half = STEP / 2 if v.board_style == "squares" else 0
    return MARGIN + half + column * STEP, MARGIN + half + row * STEP


def last_move_squares(v, last_move: str) -> list[int]:
    """The points a move in coordinates names, to be marked: from and to (a drop: where it lands;
    a pass: none)."""
    return [parse_square(v, name) for name in _SQUARE.findall(last_move.lower())[-2:]]


def render(pos: Position, turned: bool = False, last_move: str = "", labels: str = "coordinates") -> str:
    """The board of `pos` in SVG, `last_move` marked, its edges labelled as `edge_labels` says."""
    v = pos.t.variant
    column, row = _layout(v, turned)
    out = [_background(v, turned, labels)]
    for sq in last_move_squares(v, last_move):
        x, y = centre(v, column[sq % v.width], row[sq // v.width])
        h = STEP / 2 - 1
        out.append(f'<rect x="{x - h}" y="{y - h}" width="{2 * h}" height="{2 * h}" fill="none" '
                   f'stroke="{MARK}" stroke-width="3"/>')
    for sq, code in enumerate(pos.board):
        if code:
            x, y = centre(v, column[sq % v.width], row[sq // v.width])
            piece = pos.t.piece_type(code)
            side = code & 1
            out.append(_piece(v, piece.face(side), bool(piece.glyphs), side, x, y))
    out.append("</g></svg>")
    return "\n".join(out)


@lru_cache(maxsize=None)
def _layout(v, turned: bool) -> tuple[dict[int, int], dict[int, int]]:
    """Where each file and rank is drawn: its column from the left, its row from the top."""
    return ({f: i for i, f in enumerate(drawn_files(v, turned))},
            {r: i for i, r in enumerate(drawn_ranks(v, turned))})


def edge_labels(v, turned: bool, labels: str = "coordinates") -> dict[str, list[str]]:
    """The labels of the board's edges in drawing order (files left to right, ranks top to bottom):
    "top", "bottom" (files) and "side" (ranks, on both sides).  `labels`: "coordinates" (a...i,
    1...10); "chinese", as a printed Xiangqi board (Red's files 九...一 from its right in Chinese
    numerals, Black's 1...9 from its right, each under its own side; no rank numbers); "korean", as
    Korean notation counts (files 1...9 from Cho's left, rows 1...9 and 0 from Han's edge)."""
    files, ranks = drawn_files(v, turned), drawn_ranks(v, turned)
    if labels == "chinese":
        def named(f: int, side: int) -> str:
            return RED_FILES[v.width - 1 - f] if side == 0 else str(f + 1)
        near, far = (1, 0) if turned else (0, 1)
        return {"top": [named(f, far) for f in files], "bottom": [named(f, near) for f in files], "side": []}
    if labels == "korean":
        numbers = [str(f + 1) for f in files]
        return {"top": numbers, "bottom": numbers, "side": [str((v.height - r) % 10) for r in ranks]}
    letters = [chr(ord("a") + f) for f in files]
    return {"top": letters, "bottom": letters, "side": [str(r + 1) for r in ranks]}


@lru_cache(maxsize=None)
def _background(v, turned: bool, labels: str = "coordinates") -> str:
    """The picture without pieces -- the same for every position of a game -- open for them."""
    width, height = size(v)
    column, row = _layout(v, turned)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" style="max-width:100%;height:auto" role="img" '
           f'aria-label="{escape(v.title)} board">',
           f'<rect width="{width}" height="{height}" fill="{BOARD}"/>']
    out.append(f'<g stroke="{LINE}" stroke-width="1.5">')
    out += _squares(v) if v.board_style == "squares" else _lines(v, column, row)
    out.append(f'</g><g font-family="sans-serif" font-size="12" fill="{LINE}" text-anchor="middle" '
               f'dominant-baseline="central">')
    edges = edge_labels(v, turned, labels)
    for i, (top, bottom) in enumerate(zip(edges["top"], edges["bottom"])):
        x, _ = centre(v, i, 0)
        out += [_label(x, LABEL, top), _label(x, height - LABEL, bottom)]
    for i, text in enumerate(edges["side"]):
        _, y = centre(v, 0, i)
        out += [_label(LABEL, y, text), _label(width - LABEL, y, text)]
    out.append("</g>")
    out.append(_discs(v))               # the pieces' group stays open for `render`
    return "\n".join(out)


def _lines(v, column: dict[int, int], row: dict[int, int]) -> list[str]:
    """The lines of a board of points: ranks, files (the inner ones broken by the river), diagonals."""
    out = []
    ends = [centre(v, 0, 0), centre(v, v.width - 1, v.height - 1)]
    (left, top), (right, bottom) = ends
    for i in range(v.height):
        _, y = centre(v, 0, i)
        out.append(_line(left, y, right, y))
    river = v.river_after_rank
    for i in range(v.width):
        x, _ = centre(v, i, 0)
        if river is None or i in (0, v.width - 1):
            out.append(_line(x, top, x, bottom))
            continue
        near, far = sorted((row[river], row[river + 1]))
        out.append(_line(x, top, x, centre(v, 0, near)[1]))
        out.append(_line(x, centre(v, 0, far)[1], x, bottom))
    for chain in v.diagonals:
        for (f1, r1), (f2, r2) in zip(chain, chain[1:]):
            x1, y1 = centre(v, column[f1], row[r1])
            x2, y2 = centre(v, column[f2], row[r2])
            out.append(_line(x1, y1, x2, y2))
    out.append(f'<rect x="{left - 4}" y="{top - 4}" width="{right - left + 8}" height="{bottom - top + 8}" '
               f'fill="none" stroke="{LINE}" stroke-width="2"/>')
    return out


def _squares(v) -> list[str]:
    out = []
    for i in range(v.width + 1):
        x = MARGIN + i * STEP
        out.append(_line(x, MARGIN, x, MARGIN + v.height * STEP))
    for i in range(v.height + 1):
        y = MARGIN + i * STEP
        out.append(_line(MARGIN, y, MARGIN + v.width * STEP, y))
    return out


def _line(x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}"/>'


def _label(x: float, y: float, text: str) -> str:
    return f'<text x="{x:g}" y="{y:g}">{text}</text>'


def _discs(v) -> str:
    """A piece's disc for each side, drawn once and used (<use>) at every piece: a board mail's
    SVG is a quarter of the size it would be with each piece drawn in full."""
    return "<defs>" + "".join(
        f'<g id="disc{side}"><circle r="{RADIUS}" fill="{PIECE}" stroke="{colour}" stroke-width="2.5"/>'
        f'<circle r="{RADIUS - 2.2}" fill="none" stroke="{colour}" stroke-width="0.8"/></g>'
        for side, colour in enumerate(v.colours)) + "</defs>" + (
        '<g font-family="\'Noto Serif CJK SC\',\'Noto Serif CJK TC\',\'Songti SC\',\'SimSun\',serif" '
        'font-weight="bold" text-anchor="middle" dominant-baseline="central">')


def font_size(text: str, glyph: bool) -> int:
    """The size of a piece's text on a piece of RADIUS: a character fills the face, a letter less."""
    return 19 if glyph else 16 if len(text) == 1 else 12


@lru_cache(maxsize=8192)     # a game has few pieces and points: each drawn once, not once a mail
def _piece(v, text: str, glyph: bool, side: int, x: float, y: float) -> str:
    """A piece: its character (`glyph`) or board letter, on its side's disc."""
    size = font_size(text, glyph)
    return (f'<use href="#disc{side}" x="{x}" y="{y}"/><text x="{x}" y="{y}" font-size="{size}" '
            f'fill="{v.colours[side]}">{escape(text)}</text>')
