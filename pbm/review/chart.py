"""The review's chart: the first player's win % ply by ply, drawn as a PNG with Pillow (as the board
is: pbm.pictures), so that every mail client shows it inline.  The area above the middle line is in
the first player's colour, below it the second's; the turning points are marked by their move
numbers, the numbers of the mail's move list.  Only ASCII is written on it (the shipped font's).
"""
from __future__ import annotations

import hashlib
import io

from PIL import Image, ImageDraw

from pbm.pictures import Picture
from pbm.pictures.lettering import font

WIDTH, HEIGHT = 600, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 12, 22, 26   # margins: the % labels, the move numbers
SCALE = 2                               # drawn at twice the size and scaled down: smooth lines
# The first player's and the second's colours, as their pieces: Xiangqi red and black, Janggi's Cho
# blue and Han red.
COLOURS = {"janggi": ("#1f5fa8", "#c0392b")}
DEFAULT = ("#c0392b", "#333333")
MARK = "#e67e22"


def chart_png(wins: list[float], marked: list[int], variant: str, alt: str) -> Picture:
    """The chart of `wins` (the first player's win % at the start and after each move) with the plies
    `marked`; `alt` says what it shows to a reader without pictures."""
    first, second = COLOURS.get(variant, DEFAULT)
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    image = Image.new("RGB", (w, h), "#ffffff")
    pen = ImageDraw.Draw(image)
    left, right, top, bottom = LEFT * SCALE, w - RIGHT * SCALE, TOP * SCALE, h - BOTTOM * SCALE
    plies = max(1, len(wins) - 1)

    def x(ply: float) -> float:
        return left + (right - left) * ply / plies

    def y(win: float) -> float:
        return bottom - (bottom - top) * win / 100

    middle = y(50)
    for ply in range(len(wins) - 1):            # each ply's slice, in the colour of who is ahead
        a, b = wins[ply], wins[ply + 1]
        if (a - 50) * (b - 50) >= 0:
            pen.polygon([(x(ply), middle), (x(ply), y(a)), (x(ply + 1), y(b)), (x(ply + 1), middle)],
                        fill=first if a + b >= 100 else second)
        else:                                   # the curve crosses the middle inside the slice
            cross = ply + (50 - a) / (b - a)
            pen.polygon([(x(ply), middle), (x(ply), y(a)), (x(cross), middle)], fill=first if a > 50 else second)
            pen.polygon([(x(cross), middle), (x(ply + 1), y(b)), (x(ply + 1), middle)],
                        fill=first if b > 50 else second)
    pen.rectangle([left, top, right, bottom], outline="#999999", width=SCALE)
    pen.line([(left, middle), (right, middle)], fill="#999999", width=SCALE)
    label = font(11 * SCALE)
    for win in (0, 50, 100):
        pen.text((left - 6 * SCALE, y(win)), f"{win}%", fill="#444444", font=label, anchor="rm")
    step = _step(plies)
    for ply in range(0, plies + 1, step):
        pen.text((x(ply), bottom + 5 * SCALE), str(ply), fill="#444444", font=label, anchor="mt")
    for ply in marked:
        pen.line([(x(ply), top), (x(ply), bottom)], fill=MARK, width=2 * SCALE)
        pen.text((x(ply), top - 3 * SCALE), str(ply), fill=MARK, font=font(12 * SCALE), anchor="mb")
    out = io.BytesIO()
    image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS).quantize(colors=64).save(out, "PNG")
    data = out.getvalue()
    return Picture(data, WIDTH, HEIGHT, alt, "chart-" + hashlib.sha256(data).hexdigest()[:24])


def _step(plies: int) -> int:
    """Ply labels every 5, 10, 20... so that about ten fit along the axis."""
    for step in (5, 10, 20, 50, 100):
        if plies / step <= 12:
            return step
    return 200
