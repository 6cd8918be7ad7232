"""Which records a game has and how each is named, typed and made: the PGN of every game, and for
Xiangqi and Janggi the forms their players' software reads.  `GAME record BOARD FORMAT` attaches
one, and the game's web page links each at its own URL plus `/record.<suffix>`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from pbm.model.play import pgn
from pbm.model.play.games import Board
from pbm.records import chinese, dhtmlxq, gib

Comments = list[tuple[int, str, str]]


class Format(NamedTuple):
    key: str                    # the word of `record BOARD KEY`
    suffix: str                 # after `record.` in a page's link, after the board in a file name
    media: str                  # its Content-Type, without the charset
    variants: tuple[str, ...]   # the games that have it; () for every game
    write: Callable[[Board, Comments, str, str], str]    # (board, comments, site, language)
    charset: Callable[[str], str] = lambda lang: "utf-8"  # the bytes its readers take, by language


FORMATS = {f.key: f for f in (
    Format("pgn", "pgn", "application/x-chess-pgn", (),
           lambda board, comments, site, lang: pgn.record(board, comments, site)),
    Format("zh", "zh.pgn", "application/x-chess-pgn", ("xiangqi",),
           lambda board, comments, site, lang: chinese.record(board, comments, site, lang == "zh-Hant"),
           lambda lang: chinese.TRADITIONAL_ENCODING if lang == "zh-Hant" else chinese.ENCODING),
    Format("dhtmlxq", "dhtmlxq", "text/plain", ("xiangqi",),
           lambda board, comments, site, lang: dhtmlxq.record(board, comments)),
    Format("gib", "gib", "text/plain", ("janggi",),
           lambda board, comments, site, lang: gib.record(board, site), lambda lang: gib.ENCODING),
)}
BY_SUFFIX = {f.suffix: f for f in FORMATS.values()}
UTF8_WORDS = ("utf-8", "utf8")           # `GAME record BOARD FORMAT utf-8`: the bytes in UTF-8


def of(variant: str) -> list[Format]:
    """The records a game of `variant` has, PGN first."""
    return [f for f in FORMATS.values() if not f.variants or variant in f.variants]


def filename(fmt: Format, board: Board) -> str:
    """`xiangqi-101.zh.pgn`, `janggi-102.gib`."""
    return f"{board.variant}-{board.number}.{fmt.suffix}"


def encoded(fmt: Format, text: str, utf8: bool = False, lang: str = "") -> tuple[bytes, str]:
    """The record's bytes and their charset: what the programs of its format read (a `.gib` in CP949,
    a Chinese PGN in GBK, or Big5 for a zh-Hant reader, as xqbase's programs), unless `utf8`; every
    other record in UTF-8.  A character the charset lacks (in a player's name) becomes `?`."""
    charset = "utf-8" if utf8 else fmt.charset(lang)
    return text.encode(charset, errors="replace" if charset != "utf-8" else "strict"), charset
