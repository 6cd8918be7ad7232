"""A game's moves read back from a record a player sends (`GAME challenge -record`): PGN (with
moves in coordinates, WXF or Chinese, as pbm and xqbase write it), a DhtmlXQ block or a `.gib`.
The format is told from the text; each move is then played by the rules core, which reads every
notation the game has, so that the first move that cannot be read or played is named.
"""
from __future__ import annotations

import rules
from pbm.records import parsing
from pbm.records.parsing import Record
from rules.notation_chinese import READ_PLACES, READ_ROLES, READ_VERBS

__all__ = ["Record", "Unplayable", "text_of", "read", "replay", "LIMIT"]
LIMIT = 1024 * 1024         # bytes of a record read at most: a real DhtmlXQ with its variations is 546 KB


class Unplayable(Exception):
    """Move `number` of the record (`text`) cannot be read or played: `error` says why."""

    def __init__(self, number: int, text: str, error: rules.RulesError):
        super().__init__(number, text, error)
        self.number, self.text, self.error = number, text, error


# The characters a record's moves and tags are written in, to tell its charset: the notation's
# (炮二平五, 馬８進７), a .gib's Korean (초차림, 79졸78).  A wrong decoding yields other characters.
_KNOWN = frozenset("".join(READ_ROLES) + "".join(READ_VERBS) + "".join(READ_PLACES)
                   + "一二三四五六七八九１２３４５６７８９红黑胜负和棋象棋" + "초한차림대국자졸병포마상사장수쉼총결과완승")
# The charsets the field's programs write, in the order a tie is settled: xqbase's GBK (its superset
# GB18030 read for it), Big5 for traditional records, CP949 for the Korean programs' .gib.
CHARSETS = ("gb18030", "big5", "cp949")


def text_of(data: bytes) -> str:
    """A record's text: UTF-8 (with or without a BOM) if it is that, else the charset among CHARSETS
    in which most of it reads as a record's characters, else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    best, score = None, -1
    for charset in CHARSETS:
        try:
            text = data.decode(charset)
        except UnicodeDecodeError:
            continue
        known = sum(map(_KNOWN.__contains__, text))
        if known > score:
            best, score = text, known
    return best if best is not None else data.decode("latin-1")


def read(variant: str, text: str) -> Record | None:
    """The record in `text`, or None if it holds no moves and no position.  Raises rules.FenError
    for a start position that cannot be written down (a DhtmlXQ binit with two pieces on a point)."""
    if "[DhtmlXQ" in text:
        found = parsing.dhtmlxq(text)
    elif variant == "janggi" and (any(f"[{tag} " in text for tag in parsing.GIB_TAGS)
                                  or parsing.KIBO.search(text)):
        found = parsing.gib(text)
    else:
        found = parsing.pgn(text)
    return found if found.moves or found.fen else None


def replay(variant: str, record: Record) -> rules.Game:
    """The game after the record's moves; Unplayable for the first that cannot be played."""
    game = rules.Game.new(variant, None, record.fen)
    for number, text in enumerate(record.moves, start=1):
        try:
            if game.result != "*":
                raise rules.IllegalMove(f"the game was over after move {number - 1} ({game.reason})")
            game.play(text)
        except rules.RulesError as e:
            raise Unplayable(number, text, e) from None
    return game


