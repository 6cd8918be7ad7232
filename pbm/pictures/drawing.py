"""The board drawn with Pillow: the same picture as rules.board_svg (its geometry and colours, so the
two agree point for point), with what a picture in a mail must show besides.

Marks (docs/board-picture.md shows them):
- the last move: a green square outline on its two points, as in the SVG;
- a king in check: a red ring around its disc, a thin gap of wood between them;
- a mated king: the red ring and a red badge with a white cross at its upper right;
- Gi-Qi-Game: a promoted piece has an inverted face (a disc of its side's colour, the letter in the
  face's cream); the river rank's strong squares are deep blue with `*`, the weak ones pale blue with
  `~`, as the ASCII board writes them; both hands stand under the board, the far player's first,
  one disc per kind held, with a count badge where more than one is held;
- a game played with a switch (Padwar qi -korean, Gi-Qi-Game -nodrops ...) is named with it in a
  caption at the bottom.

Drawn at SCALE times the size and scaled down, which smooths every edge; then reduced to a palette of
a few dozen colours, which keeps a PNG near 20 KB.
"""
from __future__ import annotations

import functools
import io

from PIL import Image, ImageDraw

from pbm.pictures.faces import face, font
from pbm.pictures.view import View
from rules import board_svg
from rules.board_ascii import drawn_files, drawn_ranks, river_squares
from rules.board_svg import BOARD, LINE, MARGIN, PIECE, RADIUS, STEP

SCALE = 3
CHECK = "#ff2a12"                       # the ring of a king in check (and mated), between
CHECK_INNER, CHECK_OUTER = RADIUS + 2, RADIUS + 5   # these radii, a gap of wood inside it
MATE = "#c8001e"                        # the badge of a mated king: its colour, radius, and
BADGE, BADGE_AT = 9, 0.8                # its centre's offset right and up, in radii of a piece
STRONG, WEAK = "#8dbcd9", "#d2e5ef"     # the river squares of a board of squares
HAND = 38                               # the height of a row of pieces in hand
HAND_RADIUS = 14
HAND_STEP = 34
HAND_LEFT = MARGIN + 60                 # the centre of a row's first piece (its label before it)
CAPTION = 24
COLOURS = 128                           # of the palette: enough to keep every flat colour


def caption(v) -> str:
    """The game and its switches in force, e.g. "Padwar qi -korean"; empty without any."""
    return " ".join([v.title, *v.switches()]) if v.switches() else ""


def size(v) -> tuple[int, int]:
    """(width, height) of the picture in pixels."""
    width, height = board_svg.size(v)
    return width, height + (2 * HAND + 8 if v.drops else 0) + (CAPTION if caption(v) else 0)


def point(v, turned: bool, sq: int) -> tuple[float, float]:
    """Where the point (or square) `sq` stands in the picture, in pixels."""
    column = drawn_files(v, turned).index(sq % v.width)
    row = drawn_ranks(v, turned).index(sq // v.width)
    return board_svg.centre(v, column, row)


def hand_point(v, row: int, index: int) -> tuple[float, float]:
    """The centre of the `index`-th kind of piece in hand on `row` (0: the far player's, 1: the
    reader's)."""
    return HAND_LEFT + index * HAND_STEP, board_svg.size(v)[1] + row * HAND + HAND / 2


def hand_sides(turned: bool) -> tuple[int, int]:
    """The sides whose hands the rows show: the far player's, then the reader's."""
    return (0, 1) if turned else (1, 0)


def render(view: View) -> tuple[bytes, int, int]:
    """The PNG of `view`, and its width and height."""
    v = view.variant
    image = _background(v, view.turned).copy()
    pen = ImageDraw.Draw(image)
    for sq in view.last:
        x, y = _scaled(point(v, view.turned, sq))
        half = (STEP / 2 - 1 + 1.5) * SCALE      # the SVG's stroke, centred on its square's edge
        pen.rectangle((x - half, y - half, x + half, y + half), outline=board_svg.MARK, width=3 * SCALE)
    if view.king >= 0:
        x, y = _scaled(point(v, view.turned, view.king))
        _circle(pen, x, y, CHECK_OUTER * SCALE, fill=CHECK)
        _circle(pen, x, y, CHECK_INNER * SCALE, fill=BOARD)
    for sq, code in enumerate(view.board):
        if code:
            piece = view.tables.piece_type(code)
            text, glyph = face(piece, code & 1, view.faces)
            _paste(image, _piece(v, text, glyph, code & 1, piece.letter.startswith("+"), RADIUS),
                   point(v, view.turned, sq))
    if view.mated:
        _badge(pen, *_scaled(point(v, view.turned, view.king)))
    for row, side in enumerate(hand_sides(view.turned) if view.hands else ()):
        _hand(image, pen, v, row, side, view.hands[side])
    width, height = size(v)
    small = image.reduce(SCALE).quantize(COLOURS, method=Image.Quantize.MEDIANCUT,
                                         dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, "PNG", optimize=True)
    return out.getvalue(), width, height


def _scaled(xy: tuple[float, float]) -> tuple[float, float]:
    return xy[0] * SCALE, xy[1] * SCALE


def _circle(pen: ImageDraw.ImageDraw, x: float, y: float, r: float, **how) -> None:
    pen.ellipse((x - r, y - r, x + r, y + r), **how)


@functools.lru_cache(maxsize=16)
def _background(v, turned: bool) -> Image.Image:
    """The picture at SCALE without pieces, marks or hands' pieces: the same for every position."""
    width, height = size(v)
    image = Image.new("RGB", (width * SCALE, height * SCALE), BOARD)
    pen = ImageDraw.Draw(image)
    line = round(1.5 * SCALE)
    if v.board_style == "squares":
        _squares(pen, v, turned, line)
    else:
        _lines(pen, v, turned, line)
    labels = font(12 * SCALE)
    board_width, board_height = board_svg.size(v)
    for column, f in enumerate(drawn_files(v, turned)):
        x, _ = board_svg.centre(v, column, 0)
        for y in (board_svg.LABEL, board_height - board_svg.LABEL):
            pen.text(_scaled((x, y)), chr(ord("a") + f), font=labels, fill=LINE, anchor="mm")
    for row, r in enumerate(drawn_ranks(v, turned)):
        _, y = board_svg.centre(v, 0, row)
        for x in (board_svg.LABEL, board_width - board_svg.LABEL):
            pen.text(_scaled((x, y)), str(r + 1), font=labels, fill=LINE, anchor="mm")
    if v.drops:
        for row, side in enumerate(hand_sides(turned)):
            _, y = hand_point(v, row, 0)
            pen.text(_scaled((board_svg.LABEL - 4, y)), f"{v.side_names[side]}'s hand", font=font(11 * SCALE),
                     fill=LINE, anchor="lm")
    if caption(v):
        pen.text(_scaled((width / 2, height - CAPTION / 2)), caption(v), font=font(13 * SCALE),
                 fill=LINE, anchor="mm")
    return image


def _lines(pen: ImageDraw.ImageDraw, v, turned: bool, line: int) -> None:
    """A board of points: ranks, files (the inner ones broken by the river), palace diagonals and
    the frame, as rules.board_svg draws them."""
    files, ranks = drawn_files(v, turned), drawn_ranks(v, turned)
    (left, top), (right, bottom) = board_svg.centre(v, 0, 0), board_svg.centre(v, v.width - 1, v.height - 1)
    segments = [((left, y), (right, y)) for y in (board_svg.centre(v, 0, i)[1] for i in range(v.height))]
    river = v.river_after_rank
    for i in range(v.width):
        x, _ = board_svg.centre(v, i, 0)
        if river is None or i in (0, v.width - 1):
            segments.append(((x, top), (x, bottom)))
            continue
        near, far = sorted((ranks.index(river), ranks.index(river + 1)))
        segments.append(((x, top), (x, board_svg.centre(v, 0, near)[1])))
        segments.append(((x, board_svg.centre(v, 0, far)[1]), (x, bottom)))
    for chain in v.diagonals:
        for (f1, r1), (f2, r2) in zip(chain, chain[1:]):
            segments.append((board_svg.centre(v, files.index(f1), ranks.index(r1)),
                             board_svg.centre(v, files.index(f2), ranks.index(r2))))
    for a, b in segments:
        pen.line((_scaled(a), _scaled(b)), fill=LINE, width=line)
    frame = [c * SCALE for c in (left - 4, top - 4, right + 4, bottom + 4)]
    pen.rectangle(frame, outline=LINE, width=2 * SCALE)


def _squares(pen: ImageDraw.ImageDraw, v, turned: bool, line: int) -> None:
    """A board of squares, its river rank's strong and weak squares coloured and marked * and ~."""
    strong = river_squares(v)
    if strong:
        row = drawn_ranks(v, turned).index(v.height // 2)
        for column, f in enumerate(drawn_files(v, turned)):
            x, y = MARGIN + column * STEP, MARGIN + row * STEP
            pen.rectangle([c * SCALE for c in (x, y, x + STEP, y + STEP)], fill=STRONG if strong[f] else WEAK)
            pen.text(_scaled((x + 4, y + 1)), "*" if strong[f] else "~", font=font(12 * SCALE),
                     fill=LINE, anchor="lt")
    for i in range(v.width + 1):
        x = MARGIN + i * STEP
        pen.line((_scaled((x, MARGIN)), _scaled((x, MARGIN + v.height * STEP))), fill=LINE, width=line)
    for i in range(v.height + 1):
        y = MARGIN + i * STEP
        pen.line((_scaled((MARGIN, y)), _scaled((MARGIN + v.width * STEP, y))), fill=LINE, width=line)


@functools.lru_cache(maxsize=1024)
def _piece(v, text: str, glyph: bool, side: int, promoted: bool, radius: int) -> Image.Image:
    """A piece at SCALE, on a transparent square: its side's ring and its face; a promoted piece's
    face is inverted (the disc in its side's colour, the letter in cream)."""
    colour = v.colours[side]
    r = radius * SCALE
    c = r + 2 * SCALE                   # the centre, room left for the ring's outer half
    image = Image.new("RGBA", (2 * c + 1, 2 * c + 1), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    _circle(pen, c, c, r + 1.25 * SCALE, fill=colour)
    _circle(pen, c, c, r - 1.25 * SCALE, fill=colour if promoted else PIECE)
    ink = PIECE if promoted else colour
    _circle(pen, c, c, r - 2.2 * SCALE, outline=ink, width=max(1, round(0.8 * SCALE)))
    points = board_svg.font_size(text, glyph) * radius / RADIUS
    pen.text((c, c), text, font=font(round(points * SCALE)), fill=ink, anchor="mm")
    return image


def _paste(image: Image.Image, sprite: Image.Image, at: tuple[float, float]) -> None:
    x, y = _scaled(at)
    image.paste(sprite, (round(x - sprite.width // 2), round(y - sprite.height // 2)), sprite)


def _badge(pen: ImageDraw.ImageDraw, x: float, y: float) -> None:
    """A mated king's badge: a red disc with a white cross, over the king's upper right."""
    bx, by, r = x + BADGE_AT * RADIUS * SCALE, y - BADGE_AT * RADIUS * SCALE, BADGE * SCALE
    _circle(pen, bx, by, r, fill=MATE, outline="white", width=round(1.5 * SCALE))
    arm = 0.45 * r
    for dx in (arm, -arm):
        pen.line(((bx - dx, by - arm), (bx + dx, by + arm)), fill="white", width=round(2.2 * SCALE))


def _hand(image: Image.Image, pen: ImageDraw.ImageDraw, v, row: int, side: int,
          counts: tuple[int, ...]) -> None:
    """One side's pieces in hand: a disc per kind held, a count badge where more than one."""
    held = [(piece, n) for piece, n in zip(v.pieces, counts) if n]
    if not held:
        x, y = hand_point(v, row, 0)
        pen.text(_scaled((x, y)), "none", font=font(12 * SCALE), fill=LINE, anchor="mm")
    for index, (piece, n) in enumerate(held):
        x, y = hand_point(v, row, index)
        text, glyph = face(piece, side)
        _paste(image, _piece(v, text, glyph, side, False, HAND_RADIUS), (x, y))
        if n > 1:
            bx, by = _scaled((x + HAND_RADIUS * 0.8, y + HAND_RADIUS * 0.7))
            _circle(pen, bx, by, 7 * SCALE, fill=LINE, outline=BOARD, width=SCALE)
            pen.text((bx, by), str(n), font=font(10 * SCALE), fill="white", anchor="mm")
