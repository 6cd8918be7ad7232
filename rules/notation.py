"""Move text: coordinates (`h3e3`, the machine form) and WXF (`C2=5`, written as Fairy-Stockfish does).

Coordinates are files a.. from the first player's left and ranks 1.. from the first player's side, the
labels printed around every board (docs/games.md); the ICCS 0-based ranks are deliberately not read.
"""
from __future__ import annotations

import re
from functools import lru_cache

from rules.errors import IllegalMove, NotationError
from rules.notation_chinese import Place, places
from rules.position import Move, Position
from rules.said import either, said
from rules.variant import Variant

_COORD = re.compile(r"^([a-z])(\d{1,2})\s*[-x]?\s*([a-z])(\d{1,2})$", re.IGNORECASE)
_WXF_LETTERS = {"N": "H", "B": "E", "M": "E", "G": "A", "S": "P"}
_WXF_LOOSE = re.compile(r"^([A-Z])([1-9])([=+-])([1-9])$")


def square_name(v: Variant, sq: int) -> str:
    return f"{chr(ord('a') + sq % v.width)}{sq // v.width + 1}"


PASS = "pass"  # the pass (Janggi): inside the core, the king's move to its own point


def format_move(v: Variant, move: Move, pos: Position | None = None) -> str:
    """Coordinates: `b1c3`, `pass`; Gi-Qi-Game also `P*e5` (drop), `e6e7+` (the usual promotion) and
    `e6e7+G` (another promotion, named by its letter); those need `pos`, the position before the move."""
    fr, to = move[0], move[1]
    if fr == to:
        return PASS
    n = v.width * v.height
    if fr > n:
        letter = pos.t.piece_type(fr - n - 1).letter if pos else "?"
        return f"{letter}*{square_name(v, to)}"
    text = square_name(v, fr) + square_name(v, to)
    if len(move) > 2 and pos is not None:
        usual = pos.t.piece_type(pos.board[fr]).promotions[0]
        promoted = pos.t.piece_type(move[2]).letter
        text += "+" if promoted == usual else promoted
    return text


@lru_cache(maxsize=None)
def _squares(v: Variant) -> dict[str, int]:
    return {square_name(v, sq): sq for sq in range(v.width * v.height)}


def parse_square(v: Variant, text: str) -> int:
    sq = _squares(v).get(text.strip().lower())
    if sq is None:
        last = f"{chr(ord('a') + v.width - 1)}{v.height}"
        raise NotationError(f"{text!r} is not a point of the board; points go from a1 to {last}")
    return sq


def parse_coordinates(v: Variant, text: str) -> Move | None:
    """`e3e4`, `e3-e4`, `E3-E4`, `e3xe4` -> (from, to); None when the text is not in that form."""
    m = _COORD.match(text.strip())
    if not m:
        return None
    return (parse_square(v, m.group(1) + m.group(2)), parse_square(v, m.group(3) + m.group(4)))


_DROP = re.compile(r"^([a-z])\s*\*\s*([a-z]\d{1,2})$", re.IGNORECASE)
_PROMOTION = re.compile(r"^(.*?)\s*(=|\+[a-z]?)$", re.IGNORECASE)


def parse_move(pos: Position, text: str) -> Move | None:
    """Coordinates, or `pass` where the variant allows passing, or (Gi-Qi-Game) a drop `P*e5` or a move
    with a promotion suffix `+`, `+G` or `=` (declined); None when the text is none of these.  A move
    whose promotion is compulsory may be written without the suffix: it has no other reading."""
    v = pos.t.variant
    if v.passing and text.strip().lower() == PASS:
        king = pos.kings[pos.side]
        return (king, king)
    if not v.promotion_zone:
        return parse_coordinates(v, text)
    if drop := _DROP.match(text.strip()):
        letter, square = drop.group(1).upper(), parse_square(v, drop.group(2))
        index = next((i for i, p in enumerate(v.pieces) if p.letter == letter), None)
        if index is None:
            raise NotationError(f"{drop.group(1)!r} is not a piece letter of {v.title}; it uses "
                                f"{' '.join(p.letter for p in v.pieces if len(p.letter) == 1)}")
        return (pos.t.n + 1 + pos.t.code(index, pos.side), square)
    suffix = _PROMOTION.match(text.strip())
    move = parse_coordinates(v, suffix.group(1) if suffix else text)
    if move is None or not suffix or suffix.group(2) == "=" or not pos.board[move[0]]:
        return move
    ptype = pos.t.piece_type(pos.board[move[0]])
    wanted = suffix.group(2)[1:].upper()
    letter = ptype.promotions[0] if not wanted and ptype.promotions else "+" + wanted
    index = next((i for i, p in enumerate(v.pieces) if p.letter == letter), None)
    if index is None or letter not in ptype.promotions:
        raise IllegalMove(f"{text.strip()} is not a legal move: the {ptype.name} "
                          + (f"promotes only to {', '.join(_promoted_name(v, p) for p in ptype.promotions)}"
                             if ptype.promotions else "never promotes"))
    return (*move, pos.t.code(index, pos.board[move[0]] & 1))


def _promoted_name(v: Variant, letter: str) -> str:
    return next(f"{p.name} ({letter})" for p in v.pieces if p.letter == letter)


def human(pos: Position, move: Move) -> str:
    """`move` (legal in `pos`) in the variant's human notation: WXF, or coordinates where the game has
    no established notation of its own (Janggi)."""
    if pos.t.variant.notation == "wxf":
        return wxf(pos, move)
    return format_move(pos.t.variant, move, pos)


# --- WXF ---------------------------------------------------------------------------------------------

def _wxf_file(pos: Position, sq: int) -> str:
    w = pos.t.variant.width
    return str(w - sq % w if pos.side == 0 else sq % w + 1)


def _rel_rank(pos: Position, sq: int) -> int:
    v = pos.t.variant
    r = sq // v.width
    return r if pos.side == 0 else v.height - 1 - r


def _region_of(pos: Position, code: int) -> str | None:
    """The region a piece type can never leave (Fairy-Stockfish's mobility region), if any."""
    regions = {getattr(p, "stay_in", None) for p in pos.t.piece_type(code).patterns}
    return regions.pop() if len(regions) == 1 else None


def wxf(pos: Position, move: Move) -> str:
    """WXF for a legal move, as Fairy-Stockfish writes it (tandem pieces `C+=5`, pawn columns `27=8`)."""
    v = pos.t.variant
    w = v.width
    fr, to = move
    code = pos.board[fr]
    same = [s for s in pos.pieces[pos.side] if pos.board[s] == code]
    per_file: dict[int, int] = {}
    for s in same:
        per_file[s % w] = per_file.get(s % w, 0) + 1
    multi = sum(1 for c in per_file.values() if c >= 2) >= 2
    on_file = [s for s in same if s % w == fr % w]
    ahead = sum(1 for s in on_file if _rel_rank(pos, s) > _rel_rank(pos, fr))
    if len(on_file) >= 3 - multi:
        text = str(ahead + 1)
    else:
        text = pos.t.piece_type(code).wxf
    rank_marker = False
    if len(on_file) == 2 and not multi:
        other = on_file[0] if on_file[1] == fr else on_file[1]
        other_rank = other // w + (to // w - fr // w)
        if 0 <= other_rank < v.height:
            region = _region_of(pos, code)
            target = other_rank * w + to % w
            tf, tr = target % w, target // w
            rank_marker = region is None or v.regions[region].contains(tf, tr, pos.side, v.height)
    text += ("-" if ahead else "+") if rank_marker else _wxf_file(pos, fr)
    if fr // w == to // w:
        text += "="
    else:
        text += "+" if _rel_rank(pos, to) > _rel_rank(pos, fr) else "-"
    text += str(abs(to // w - fr // w)) if fr % w == to % w else _wxf_file(pos, to)
    return text


_BY_FILE = ("king", "advisor", "elephant")


def wxf_record(pos: Position, move: Move, at: dict[int, Place] | None = None) -> str:
    """WXF as ElephantEye and vschess write it in a record, which their readers take: a tandem piece
    always marked (`C+-1`, `C-.4`, whether or not the other could make the same move), the soldiers
    on files holding two or more counted together (two: `P+`/`P-`, three: `P+`, `P.`, `P-`, more:
    `Pa` ... `Pe`, files from the right, then from the front), a move along the rank with `.`.
    Kings, advisors and elephants keep their file.  `at`: places(pos), when the caller has it."""
    fr = move[0]
    code = pos.board[fr]
    piece = pos.t.piece_type(code)
    at = places(pos) if at is None else at
    place = at[fr]
    marked = [p for sq, p in at.items() if pos.board[sq] == code and p.tandem_index is not None]
    if piece.role in _BY_FILE or place.tandem_index is None:
        who = _wxf_file(pos, fr)
    elif len(marked) == 2:
        who = "+-"[place.tandem_index]
    elif len(marked) == 3:
        who = "+.-"[place.tandem_index]
    else:
        who = "abcde"[place.tandem_index]
    return piece.wxf + who + wxf(pos, move)[-2:].replace("=", ".")


def _normalise_wxf(text: str) -> str:
    s = text.strip().upper().replace(".", "=")
    if len(s) >= 2 and s[0] in "+-=" and s[1].isalpha():  # "+C.5": front/rear marker written first
        s = s[1] + s[0] + s[2:]
    if s and s[0] in _WXF_LETTERS:
        s = _WXF_LETTERS[s[0]] + s[1:]
    return s


_WXF_SHAPE = re.compile(r"^[A-Z1-9][1-9A-E=+-][=+-][1-9]$")


def parse_wxf(pos: Position, text: str, legal: list[Move]) -> Move | None:
    """The legal move `text` names in WXF; None when the text is not WXF at all.  Well-formed WXF that
    names no legal move raises IllegalMove.  Also reads a plain `C2=5` where Fairy-Stockfish would
    have written a tandem marker, when only one piece fits."""
    want = _normalise_wxf(text)
    for move in legal:
        if wxf(pos, move) == want:
            return move
    if not _WXF_SHAPE.match(want):
        return None
    at = places(pos)
    for move in legal:      # ElephantEye's and vschess's forms: C+-1, Pa.5, P..4
        if _normalise_wxf(wxf_record(pos, move, at)) == want:
            return move
    check_wxf_letter(pos.t.variant, want)
    move = _loose_wxf(pos, text, want, legal)
    if move is None:
        raise IllegalMove(f"{text.strip()} is not a legal move: {_wxf_options(pos, want, legal)}")
    return move


def reads_as_wxf(v: Variant, text: str) -> bool:
    """Whether `text` has the form of a WXF move (the piece letter checked, nothing else)."""
    want = _normalise_wxf(text)
    if not _WXF_SHAPE.match(want):
        return False
    check_wxf_letter(v, want)
    return True


def check_wxf_letter(v: Variant, want: str) -> None:
    letters = list(dict.fromkeys(p.wxf for p in v.pieces if p.wxf))
    if want[0].isalpha() and want[0] not in letters:
        raise NotationError(f"{want[0]} is not a piece letter; WXF uses {' '.join(letters)}")


def _wxf_options(pos: Position, want: str, legal: list[Move]) -> str:
    """What the pieces the WXF text points at could do instead."""
    v = pos.t.variant
    same_letter = [m for m in legal if pos.t.piece_type(pos.board[m[0]]).wxf == want[0]]
    on_file = [m for m in same_letter if _wxf_file(pos, m[0]) == want[1]] or same_letter
    if not on_file:
        return "no piece of that kind can move; the legal moves are " + \
            ", ".join(sorted(wxf(pos, m) for m in legal))
    starts = sorted({m[0] for m in on_file})
    parts = []
    for sq in starts:
        name = pos.t.piece_type(pos.board[sq]).name
        dests = sorted(square_name(v, m[1]) + f" ({wxf(pos, m)})" for m in on_file if m[0] == sq)
        parts.append(f"the {name} on {square_name(v, sq)} can go to {', '.join(dests)}")
    return "; ".join(parts)


def _loose_wxf(pos: Position, text: str, want: str, legal: list[Move]) -> Move | None:
    m = _WXF_LOOSE.match(want)
    if not m:
        return None
    letter, file_no, op, dest = m.groups()
    fits = []
    for move in legal:
        code = pos.board[move[0]]
        if pos.t.piece_type(code).wxf != letter or _wxf_file(pos, move[0]) != file_no:
            continue
        if wxf(pos, move)[-2:] == op + dest:
            fits.append(move)
    if len(fits) > 1:
        raise NotationError(said("{move} fits more than one piece; write {moves}", move=text.strip(),
                                 moves=either([wxf(pos, m) for m in fits])))
    return fits[0] if fits else None
