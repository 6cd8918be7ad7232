"""What is pasted onto an empty board to draw a position: each piece's disc, the last move's mark,
the check ring, the mate badge, a hand's count badge, drawn once and kept.

Each is drawn at SCALE times its size on a transparent square and scaled down with its alpha
premultiplied (so its edge blends into whatever it is pasted on, without a dark fringe); its centre
is the middle of the square, which is `half` pixels on each side.  A picture is then the cached
empty board and a few dozen pastes: no drawing per position.
"""
from __future__ import annotations

import functools
import math

from PIL import Image, ImageDraw

from pbm.pictures.lettering import font
from rules import board_svg
from rules.board_svg import BOARD, LINE, PIECE, RADIUS, STEP

SCALE = 3                               # drawn at this multiple and scaled down: smooth edges
CHECK = "#ff2a12"                       # the ring of a king in check (and mated), between
CHECK_INNER, CHECK_OUTER = RADIUS + 2, RADIUS + 5   # these radii, a gap of wood inside it
MATE = "#c8001e"                        # the badge of a mated king: its colour, radius, and
BADGE, BADGE_AT = 9, 0.8                # its centre's offset right and up, in radii of a piece
COUNT = 7                               # the radius of a hand's count badge
PROMOTED = 7                            # the radius of a promoted piece's + mark (at BADGE_AT, upper left)


class Sprite:
    """An RGBA picture at the final size and the offset of its top left corner from its centre."""

    def __init__(self, half: int, draw) -> None:
        big = Image.new("RGBA", (2 * half * SCALE, 2 * half * SCALE), (0, 0, 0, 0))
        draw(ImageDraw.Draw(big), half * SCALE)
        self.image = big.convert("RGBa").reduce(SCALE).convert("RGBA")
        self.half = half

    def paste(self, image: Image.Image, at: tuple[float, float]) -> None:
        """Paste it centred on `at` (in the picture's pixels)."""
        image.paste(self.image, (round(at[0]) - self.half, round(at[1]) - self.half), self.image)


def circle(pen: ImageDraw.ImageDraw, x: float, y: float, r: float, **how) -> None:
    pen.ellipse((x - r, y - r, x + r, y + r), **how)


@functools.lru_cache(maxsize=1024)
def piece(colour: str, text: str, points: float, promoted: bool, radius: int) -> Sprite:
    """A piece of radius `radius`: its side's ring (`colour`) and its face, `text` at `points`
    pixels; a promoted piece's face is inverted (the disc in its side's colour, the text in the
    face's cream)."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        r = radius * SCALE
        circle(pen, c, c, r + 1.25 * SCALE, fill=colour)
        circle(pen, c, c, r - 1.25 * SCALE, fill=colour if promoted else PIECE)
        ink = PIECE if promoted else colour
        circle(pen, c, c, r - 2.2 * SCALE, outline=ink, width=max(1, round(0.8 * SCALE)))
        pen.text((c, c), text, font=font(round(points * SCALE)), fill=ink, anchor="mm")
    return Sprite(radius + 2, draw)


@functools.lru_cache(maxsize=4)
def promotion_mark(colour: str) -> Sprite:
    """A promoted piece's mark, pasted over its upper left: a + in its side's `colour` on a small
    disc of the face's cream, as the ASCII board writes a + after the letter."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        r = PROMOTED * SCALE
        circle(pen, c, c, r, fill=PIECE, outline=colour, width=round(1.2 * SCALE))
        arm, width = 0.55 * r, round(1.8 * SCALE)
        pen.line(((c - arm, c), (c + arm, c)), fill=colour, width=width)
        pen.line(((c, c - arm), (c, c + arm)), fill=colour, width=width)
    return Sprite(PROMOTED + 1, draw)


@functools.lru_cache(maxsize=1)
def last_move() -> Sprite:
    """The last move's mark: a green square outline around a point, as rules.board_svg draws it."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        edge = (STEP / 2 - 1 + 1.5) * SCALE      # the SVG's stroke, centred on its square's edge
        pen.rectangle((c - edge, c - edge, c + edge, c + edge), outline=board_svg.MARK, width=3 * SCALE)
    return Sprite(STEP // 2 + 2, draw)


@functools.lru_cache(maxsize=1)
def check_ring() -> Sprite:
    """The ring around a king in check, a gap of wood between it and the king's disc."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        circle(pen, c, c, CHECK_OUTER * SCALE, fill=CHECK)
        circle(pen, c, c, CHECK_INNER * SCALE, fill=BOARD)
    return Sprite(CHECK_OUTER + 1, draw)


@functools.lru_cache(maxsize=1)
def mate_badge() -> Sprite:
    """A mated king's badge: a red disc with a white cross (pasted over the king's upper right)."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        r = BADGE * SCALE
        circle(pen, c, c, r, fill=MATE, outline="white", width=round(1.5 * SCALE))
        arm = 0.45 * r
        for dx in (arm, -arm):
            pen.line(((c - dx, c - arm), (c + dx, c + arm)), fill="white", width=round(2.2 * SCALE))
    return Sprite(BADGE + 2, draw)


@functools.lru_cache(maxsize=64)
def count(n: int) -> Sprite:
    """The dark badge that says how many of a kind a hand holds."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        circle(pen, c, c, COUNT * SCALE, fill=LINE, outline=BOARD, width=SCALE)
        pen.text((c, c), str(n), font=font(10 * SCALE), fill="white", anchor="mm")
    return Sprite(COUNT + 2, draw)


@functools.lru_cache(maxsize=8)
def words(text: str, points: int) -> Sprite:
    """`text` in the board's ink, centred (a hand's "none")."""
    def draw(pen: ImageDraw.ImageDraw, c: int) -> None:
        pen.text((c, c), text, font=font(points * SCALE), fill=LINE, anchor="mm")
    return Sprite(math.ceil(font(points).getlength(text) / 2) + 2, draw)
