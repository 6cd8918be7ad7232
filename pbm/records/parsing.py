"""The three record forms taken apart: PGN (moves in coordinates, WXF or Chinese), a DhtmlXQ block and
a `.gib`.  Each reader is linear in its input: a record comes from anyone, and a regular expression
that backtracks over unclosed input (`{` a million times) would hold the server for minutes.  So
comments are skipped by finding their end once, tags are read a line at a time, and no pattern can
restart inside a run it has already scanned.  Nothing here raises on bad input: what cannot be read
is left as a move text the rules core then refuses, by its number.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from rules.errors import FenError
from rules.said import said


class Record(NamedTuple):
    form: str                   # "pgn", "dhtmlxq" or "gib"
    fen: str | None             # the start, when not the game's standard one
    moves: list[str]            # as the record writes them


def tags(text: str) -> tuple[dict[str, str], str]:
    """The tag pairs (`[Name "value"]`, each on a line of its own) of the first game and the text
    after them (all of it when there is none); a file of several games is read for its first."""
    found: dict[str, str] = {}
    after = 0
    for line in _BRACKETED.finditer(text):
        m = _TAG.fullmatch(line[1].rstrip())
        if m:
            if found and text[after:line.start()].strip():
                break                   # the next game's tags, after the first one's moves
            found.setdefault(m[1], m[2].replace('\\"', '"').replace("\\\\", "\\"))
            after = line.end()
    return found, text[after:]


_BRACKETED = re.compile(r"^[ \t]*(\[[^\n]*)", re.M)
# The value unrolled (runs of plain characters between escapes): a failing line is scanned once.
_TAG = re.compile(r'\[(\w+)\s+"([^"\\]*(?:\\.[^"\\]*)*)"\s*\]')
# A comment to its end (or to the end of the text when unclosed: no retry), a line comment or a
# numeric annotation: each alternative consumes what it scans.
_SKIPPED = re.compile(r"\{[^}]*\}?|;[^\n]*|\$\d*")
# A move number (`12.`, `12...`) where a word begins: tried once a run of digits, as the lookbehind
# keeps it from starting inside one.
_NUMBER = re.compile(r"(?<!\S)\d+\.+")
_WORD = re.compile(r"[^\s()]+")
_WORD_OR_PARENTHESIS = re.compile(r"[()]|[^\s()]+")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def movetext(text: str) -> list[str]:
    """The moves of PGN movetext: comments, variations, annotations and move numbers left out, and
    whatever follows the result (xqbase's files end with an advertisement)."""
    text = _NUMBER.sub(" ", _SKIPPED.sub(" ", text))
    if "(" in text:
        tokens = _main_line(_WORD_OR_PARENTHESIS.findall(text))
    else:
        tokens = _WORD.findall(text)
    end = next((i for i, token in enumerate(tokens) if token in RESULTS), len(tokens))
    return [t for t in tokens[:end] if t.strip(".") and not t.startswith("...")]


def _main_line(tokens: list[str]) -> list[str]:
    """The tokens outside variations `( ... )`, however deep."""
    out = []
    depth = 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(token)
    return out


def pgn(text: str) -> Record:
    found, body = tags(text)
    if not found:                       # the command line may stand before the moves
        first = _FIRST.search(body)
        body = body[first.start():] if first else body
    return Record("pgn", found.get("FEN"), movetext(body))


_FIRST = re.compile(r"^[ \t]*1[ \t]*\.", re.M)


# --- DhtmlXQ -----------------------------------------------------------------------------------------

_FILES = "abcdefghi"
_DIGITS = "0123456789"
_BINIT_ORDER = "RNBAKABNRCCPPPPPrnbakabnrccppppp"


def field(text: str, name: str) -> str:
    """The first `[DhtmlXQ_name]...[/DhtmlXQ_name]` of the text ("" if none or unclosed): found by
    two searches, however many other fields, wrappers (`[DhtmlXQiFrame]`, `[DhtmlXQHTML]`) or
    variations (`[DhtmlXQ_move_1_2_3]`) stand around it."""
    start = text.find(f"[DhtmlXQ_{name}]")
    if start < 0:
        return ""
    start += len(name) + 10
    end = text.find(f"[/DhtmlXQ_{name}]", start)
    return text[start:end] if end >= 0 else ""


def dhtmlxq(text: str) -> Record:
    digits = "".join(c for c in field(text, "movelist") if c in _DIGITS)
    moves = [_point(m[0], m[1]) + _point(m[2], m[3]) for m in
             (digits[i:i + 4] for i in range(0, len(digits) - 3, 4))]
    binit = "".join(c for c in field(text, "binit") if c in _DIGITS)
    fen = None
    if len(binit) == 64:
        rows = [["."] * 9 for _ in range(10)]
        for letter, i in zip(_BINIT_ORDER, range(0, 64, 2)):
            file, rank = int(binit[i]), int(binit[i + 1])
            if binit[i:i + 2] == "99":
                continue
            if file > 8 or rows[rank][file] != ".":
                raise FenError(said("the record's binit cannot be read: its point {point} is off the "
                                    "board or holds another piece", point=binit[i:i + 2]))
            rows[rank][file] = letter
        placement = "/".join(re.sub(r"\.+", lambda m: str(len(m[0])), "".join(r)) for r in rows)
        # the format does not say who moves first: the first move's piece does
        first = "R"
        if digits[:2].isdigit() and int(digits[0]) <= 8:
            first = rows[int(digits[1])][int(digits[0])]
        fen = f"{placement} {'b' if first.islower() else 'w'} - - 0 1"
    return Record("dhtmlxq", fen, moves)


def _point(file: str, rank: str) -> str:
    """DhtmlXQ's `77` (file from Red's left 0-8, rank from Black's edge 0-9) as `h3`; digits that name
    no point are kept as they are, for the rules core to refuse."""
    return f"{_FILES[int(file)]}{10 - int(rank)}" if file in "012345678" else file + rank


# --- .gib --------------------------------------------------------------------------------------------

GIB_TAGS = ("초차림", "한차림", "총수", "초대국자", "한대국자", "대국결과")
# `1. 79졸78`, `13. 74상42병`, `5. 한수쉼`: the ply number (never begun inside a run of digits, so
# that no digit is scanned twice), the from-point, the piece (Hangul or Hanja), the to-point.
KIBO = re.compile(r"(?<!\d)\d{1,4}\. ?(한수쉼|(\d\d) ?(?:[楚漢] ?)?([가-힣一-鿿]) ?(\d\d))")
_SETUP = "{han}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho} w - - 0 1"


def gib(text: str) -> Record:
    found, rest = tags(text)
    body = " ".join(_SKIPPED.sub(" ", rest).split())    # one space apart
    moves = [kibo if kibo == "한수쉼" else f"{fr}{piece}{to}" for kibo, fr, piece, to in KIBO.findall(body)]
    fen = found.get("FEN")
    cho, han = found.get("초차림", ""), found.get("한차림", "")
    if fen is None and (cho or han):
        fen = _SETUP.format(han=back_rank(han or "마상상마"), cho=back_rank(cho or "마상상마").upper())
    return Record("gib", fen, moves)


def back_rank(name: str) -> str:
    """A 차림 (horses 마 and elephants 상 on files b, c, g, h, read from Cho's left) as a FEN rank."""
    pieces = ["n" if c == "마" else "b" for c in name if c in "마상"]
    if len(pieces) != 4:
        pieces = list("nbbn")
    return f"r{pieces[0]}{pieces[1]}a1a{pieces[2]}{pieces[3]}r"


def setup(han: str, cho: str) -> str:
    """The FEN of the plain start with these 차림 (Han's, Cho's)."""
    return _SETUP.format(han=back_rank(han), cho=back_rank(cho).upper())
