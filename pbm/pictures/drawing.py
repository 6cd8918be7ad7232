"""The board drawn with Pillow: the same picture as rules.board_svg (its geometry and colours, so the
two agree point for point), with what a picture in a mail must show besides.

Marks (docs/board-picture.md shows them):
- the last move: a green square outline on its two points, as in the SVG;
- a king in check: a red ring around its disc, a thin gap of wood between them;
- a mated king: the red ring and a red badge with a white cross at its upper right;
- Gi-Qi-Game: a promoted piece has an inverted face (a disc of its side's colour, the letter in the
  face's cream) and a + mark at its upper left; the river rank's strong squares are deep blue with `*`, the weak ones pale blue with
  `~`, as the ASCII board writes them; both hands stand under the board, the far player's first,
  one disc per kind held, with a count badge where more than one is held;
- a game played with a switch (Padwar qi -korean, Gi-Qi-Game -nodrops ...) is named with it in a
  caption at the bottom.

A position costs little: the empty board of each game and side is drawn once (at SCALE times its
size, scaled down) and kept, the pieces and marks are sprites drawn once (sprites.py), and the
picture is the empty board with the sprites pasted, mapped onto one fixed palette per game (made
once from the board and every sprite it can show) and saved as an 8-bit PNG near 12 KB.
"""
from __future__ import annotations

import functools
import hashlib
import io
import itertools

from PIL import Image, ImageColor, ImageDraw

from pbm.pictures import Picture, sprites
from pbm.pictures.faces import face
from pbm.pictures.lettering import font
from pbm.pictures.sprites import (  # noqa: F401
    BADGE,
    BADGE_AT,
    CHECK,
    CHECK_INNER,
    CHECK_OUTER,
    MATE,
    SCALE,
    Sprite,
)
import rules
from pbm.pictures.view import CAPTION, HAND, View, caption, size, view_of  # noqa: F401
from rules import board_svg
from rules.board_ascii import drawn_files, drawn_ranks, river_squares
from rules.board_svg import BOARD, LINE, MARGIN, PIECE, RADIUS, STEP

# Pillow's PNG writer, loaded now (not at the first picture: see lettering._FONT_DATA), and alone: a
# picture is saved to a buffer named *.png, for which Pillow loads that one plugin, where saving with
# format="PNG" would load its five preinit plugins (JPEG, GIF, BMP, PPM) in every process that draws.
from PIL import PngImagePlugin  # noqa: E402,F401
STRONG, WEAK = "#8dbcd9", "#d2e5ef"     # the river squares of a board of squares
HAND_RADIUS = 14
HAND_STEP = 34
HAND_LEFT = MARGIN + 60                 # the centre of a row's first piece (its label before it)
BLENDS = 4                              # palette colours between each two flat colours
COMPRESSION = 6                         # zlib's level: 9 (or optimize) saves 7% for eight times the time


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
    image = _background(v, view.turned, view.labels, view.hand_labels).copy()
    for sq in view.last:
        sprites.last_move().paste(image, point(v, view.turned, sq))
    if view.king >= 0:
        sprites.check_ring().paste(image, point(v, view.turned, view.king))
    for sq, code in enumerate(view.board):
        if code:
            piece, (x, y) = view.tables.piece_type(code), point(v, view.turned, sq)
            _piece(v, piece, code & 1, view.faces, RADIUS).paste(image, (x, y))
            if piece.letter.startswith("+"):
                sprites.promotion_mark(v.colours[code & 1]).paste(
                    image, (x - BADGE_AT * RADIUS, y - BADGE_AT * RADIUS))
    if view.mated:
        x, y = point(v, view.turned, view.king)
        sprites.mate_badge().paste(image, (x + BADGE_AT * RADIUS, y - BADGE_AT * RADIUS))
    for row, side in enumerate(hand_sides(view.turned) if view.hands else ()):
        _hand(image, v, row, side, view.hands[side])
    out = io.BytesIO()
    out.name = "board.png"
    image.quantize(palette=_palette(v), dither=Image.Dither.NONE).save(out, compress_level=COMPRESSION)
    return out.getvalue(), image.width, image.height


def _piece(v, piece, side: int, faces: str, radius: int) -> Sprite:
    text, glyph = face(piece, side, faces)
    return sprites.piece(v.colours[side], text, board_svg.font_size(text, glyph) * radius / RADIUS,
                         piece.letter.startswith("+"), radius)


@functools.lru_cache(maxsize=16)
def _palette(v) -> Image.Image:
    """The palette every picture of game `v` is mapped onto, made without drawing anything: the
    flat colours a picture uses, and BLENDS steps between each two of them (an edge smoothed by the
    scaling down is a blend of the two colours it parts), 231 colours in all."""
    flat = [ImageColor.getrgb(c) for c in dict.fromkeys(
        (BOARD, LINE, PIECE, board_svg.MARK, CHECK, MATE, "#ffffff", STRONG, WEAK, *v.colours))]
    colours = flat + [tuple(round(a + (b - a) * step / (BLENDS + 1)) for a, b in zip(one, other))
                      for one, other in itertools.combinations(flat, 2) for step in range(1, BLENDS + 1)]
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for colour in colours for channel in colour])
    return palette


@functools.lru_cache(maxsize=32)
def _background(v, turned: bool, labels: str, hand_labels: tuple[str, ...]) -> Image.Image:
    """The picture without pieces, marks or hands' pieces: the same for every position."""
    width, height = size(v)
    image = Image.new("RGB", (width * SCALE, height * SCALE), BOARD)
    pen = ImageDraw.Draw(image)
    line = round(1.5 * SCALE)
    if v.board_style == "squares":
        _squares(pen, v, turned, line)
    else:
        _lines(pen, v, turned, line)
    small = font(12 * SCALE)
    board_width, board_height = board_svg.size(v)
    edges = board_svg.edge_labels(v, turned, labels)
    for column, (top, bottom) in enumerate(zip(edges["top"], edges["bottom"])):
        x, _ = board_svg.centre(v, column, 0)
        for y, text in ((board_svg.LABEL, top), (board_height - board_svg.LABEL, bottom)):
            pen.text(_scaled((x, y)), text, font=small, fill=LINE, anchor="mm")
    for row, text in enumerate(edges["side"]):
        _, y = board_svg.centre(v, 0, row)
        for x in (board_svg.LABEL, board_width - board_svg.LABEL):
            pen.text(_scaled((x, y)), text, font=small, fill=LINE, anchor="mm")
    if v.drops:
        for row, side in enumerate(hand_sides(turned)):
            _, y = hand_point(v, row, 0)
            pen.text(_scaled((board_svg.LABEL - 4, y)), hand_labels[side], font=font(11 * SCALE),
                     fill=LINE, anchor="lm")
    if caption(v):
        pen.text(_scaled((width / 2, height - CAPTION / 2)), caption(v), font=font(13 * SCALE),
                 fill=LINE, anchor="mm")
    return image.reduce(SCALE)


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


def _scaled(xy: tuple[float, float]) -> tuple[float, float]:
    return xy[0] * SCALE, xy[1] * SCALE


def _hand(image: Image.Image, v, row: int, side: int, counts: tuple[int, ...]) -> None:
    """One side's pieces in hand: a disc per kind held, a count badge where more than one."""
    held = [(piece, n) for piece, n in zip(v.pieces, counts) if n]
    if not held:
        sprites.words("-", 12).paste(image, hand_point(v, row, 0))     # as the text says it
    for index, (piece, n) in enumerate(held):
        x, y = hand_point(v, row, index)
        _piece(v, piece, side, "hanja", HAND_RADIUS).paste(image, (x, y))
        if n > 1:
            sprites.count(n).paste(image, (x + HAND_RADIUS * 0.8, y + HAND_RADIUS * 0.7))


CACHED = 256                            # pictures (about 20 KB each) kept per process


def draw(view: View) -> Picture:
    """The picture of `view`, drawn now (uncached: the benchmark's measure)."""
    data, width, height = render(view)
    return Picture(data, width, height, view.fen, "board-" + hashlib.sha256(data).hexdigest()[:24])


cached_draw = functools.lru_cache(maxsize=CACHED)(draw)


def board_png(game: rules.Game, *, turned: bool, faces: str = "hanja") -> Picture:
    """The board of `game` as a reader on the first player's side sees it (`turned`: the second
    player's), the last move and a king in check or mated marked; `faces` ("hanja" or "hangul")
    chooses Janggi's characters."""
    return cached_draw(view_of(game, turned=turned, faces=faces))
