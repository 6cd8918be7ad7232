"""A game's moves read back from a record a player sends (`GAME challenge -record`): PGN (with
moves in coordinates, WXF or Chinese, as pbm and xqbase write it), a DhtmlXQ block or a `.gib`.
The format is told from the text; each move is then played by the rules core, which reads every
notation the game has, so that the first move that cannot be read or played is named.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import rules


class Record(NamedTuple):
    form: str                   # "pgn", "dhtmlxq" or "gib"
    fen: str | None             # the start, when not the game's standard one
    moves: list[str]            # as the record writes them


class Unplayable(Exception):
    """Move `number` of the record (`text`) cannot be read or played: `error` says why."""

    def __init__(self, number: int, text: str, error: rules.RulesError):
        super().__init__(number, text, error)
        self.number, self.text, self.error = number, text, error


def text_of(data: bytes) -> str:
    """A record's text: UTF-8, else CP949 (the Korean programs' .gib), else Latin-1."""
    for charset in ("utf-8-sig", "cp949"):
        try:
            return data.decode(charset)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def read(variant: str, text: str) -> Record | None:
    """The record in `text`, or None if it holds no moves and no position."""
    if "[DhtmlXQ" in text:
        found = _dhtmlxq(text)
    elif variant == "janggi" and (_GIB_TAG.search(text) or _KIBO.search(text)):
        found = _gib(text)
    else:
        found = _pgn(text)
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


# --- PGN ---------------------------------------------------------------------------------------------

_TAG = re.compile(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$', re.M)
_NOT_MOVES = re.compile(r"\{[^}]*\}|;[^\n]*|\([^()]*\)|\$\d+")
_NUMBER = re.compile(r"^\d+\.+")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def _pgn(text: str) -> Record:
    tags = {name: value for name, value in _TAG.findall(text)}
    movetext = _TAG.sub("", text)
    first = re.search(r"^\s*1\s*\.", movetext, re.M)      # the command line may stand before it
    if first and tags == {}:
        movetext = movetext[first.start():]
    moves = []
    for token in _NOT_MOVES.sub(" ", movetext).split():
        token = _NUMBER.sub("", token)
        if token and token not in _RESULTS and token.strip(".") and not token.startswith("..."):
            moves.append(token)
    return Record("pgn", tags.get("FEN"), moves)


# --- DhtmlXQ -----------------------------------------------------------------------------------------

_FILES = "abcdefghi"
_BINIT_ORDER = "RNBAKABNRCCPPPPPrnbakabnrccppppp"


def _dhtmlxq(text: str) -> Record:
    fields = dict(re.findall(r"\[DhtmlXQ_(\w+)\](.*?)\[/DhtmlXQ_\1\]", text, re.S))
    digits = re.sub(r"\D", "", fields.get("movelist", ""))
    moves = [f"{_FILES[int(m[0])]}{10 - int(m[1])}{_FILES[int(m[2])]}{10 - int(m[3])}"
             for m in (digits[i:i + 4] for i in range(0, len(digits) - 3, 4))]
    binit = re.sub(r"\D", "", fields.get("binit", ""))
    fen = None
    if len(binit) == 64:
        rows = [["."] * 9 for _ in range(10)]
        for letter, i in zip(_BINIT_ORDER, range(0, 64, 2)):
            if binit[i:i + 2] != "99":
                rows[int(binit[i + 1])][int(binit[i])] = letter
        placement = "/".join(re.sub(r"\.+", lambda m: str(len(m[0])), "".join(r)) for r in rows)
        # the format does not say who moves first: the first move's piece does
        first = rows[10 - int(moves[0][1:-2])][_FILES.index(moves[0][0])] if moves else "R"
        fen = f"{placement} {'b' if first.islower() else 'w'} - - 0 1"
    return Record("dhtmlxq", fen, moves)


# --- .gib --------------------------------------------------------------------------------------------

_GIB_TAG = re.compile(r'\[(초차림|한차림|총수|초대국자)\s')
_KIBO = re.compile(r"(\d+)\.\s*(한수쉼|(\d\d)\s*[楚漢]?\s*(\S)\s*(\d\d))")


def _gib(text: str) -> Record:
    tags = {name: value for name, value in _TAG.findall(text)}
    body = _TAG.sub("", text)
    moves = [kibo if kibo == "한수쉼" else f"{fr}{piece}{to}"
             for _, kibo, fr, piece, to in _KIBO.findall(_NOT_MOVES.sub(" ", body))]
    fen = tags.get("FEN")
    cho, han = tags.get("초차림", ""), tags.get("한차림", "")
    if fen is None and (cho or han):
        fen = (f"{_back_rank(han or '마상상마')}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/"
               f"{_back_rank(cho or '마상상마').upper()} w - - 0 1")
    return Record("gib", fen, moves)


def _back_rank(name: str) -> str:
    """A 차림 (horses 마 and elephants 상 on files b, c, g, h, read from Cho's left) as a FEN rank."""
    pieces = ["n" if c == "마" else "b" for c in name if c in "마상"]
    if len(pieces) != 4:
        pieces = list("nbbn")
    return f"r{pieces[0]}{pieces[1]}a1a{pieces[2]}{pieces[3]}r"
