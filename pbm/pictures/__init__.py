"""Board pictures as PNG, for mail clients that show no SVG (Gmail and Outlook drop inline SVG).

    picture = board_png(game, turned=False)          # faces="hangul": Janggi in Hangul
    html = picture.img(f"cid:{picture.key}@{domain}")
    # the mail carries picture.data as image/png with Content-ID <{picture.key}@{domain}>

A picture is drawn once per distinct view (game and parameters, FEN, last move, check or mate,
side, faces) and kept in an in-process LRU cache, so every observer who sees the same side gets the
same bytes.  Pillow is the one library it needs; its font ships with the package (lettering.py).

Here: `Picture`, what a drawn picture is.  Pillow is imported by the modules that draw (`drawing`,
`sprites`, `lettering`, `strip`) and by nothing a mail is queued with (`deferred`, `view`, `faces`):
a board mail is drawn when it is sent, and a process that sends none loads no Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Picture:
    """A drawn board picture: the PNG, its size, its alt text and content id."""
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


__all__ = ["Picture"]
