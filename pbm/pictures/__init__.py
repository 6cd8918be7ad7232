"""Board pictures as PNG, for mail clients that show no SVG (Gmail and Outlook drop inline SVG).

    picture = board_png(game, turned=False)          # faces="hangul": Janggi in Hangul
    html = picture.img(f"cid:{picture.key}@{domain}")
    # the mail carries picture.data as image/png with Content-ID <{picture.key}@{domain}>

A picture is drawn once per distinct view (game and parameters, FEN, last move, check or mate,
side, faces) and kept in an in-process LRU cache, so every observer who sees the same side gets the
same bytes.  Pillow is the one library it needs; its font ships with the package (faces.py).
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from html import escape

import rules
from pbm.pictures.drawing import render
from pbm.pictures.view import View, view_of

CACHED = 256                            # pictures (about 20 KB each) kept per process


@dataclass(frozen=True)
class Picture:
    data: bytes                         # the PNG
    width: int
    height: int
    alt: str                            # the FEN: what a reader without pictures can paste
    key: str                            # a stable id of the content, usable as a MIME Content-ID

    def img(self, src: str, *, shrink: bool = True, alt: str | None = None) -> str:
        """The HTML <img> element showing the picture from `src` (e.g. "cid:KEY@DOMAIN"), shrunk to
        the reader's window (`shrink`), else at its own size (a strip the window scrolls along);
        `alt`: the reader's own words for it (the position in words), else the FEN."""
        fit = "max-width:100%;height:auto" if shrink else "max-width:none"
        return (f'<img src="{escape(src)}" width="{self.width}" height="{self.height}" '
                f'alt="{escape(self.alt if alt is None else alt)}" style="{fit}">')


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


__all__ = ["Picture", "View", "board_png", "cached_draw", "draw", "view_of"]
