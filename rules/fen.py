"""FEN in and out, in the Fairy-Stockfish / pychess-variants form (docs/games.md, "FEN")."""
from __future__ import annotations

import re

from rules.errors import FenError
from rules.hand_position import CASTLING, HandPosition, hand_rules
from rules.position import Position
from rules.tables import Tables
from rules.variant import Arrangement


def parse_fen(t: Tables, text: str) -> Position:
    """Read a FEN; the fields after the placement may be left out (first player to move, `0 1`)."""
    v = t.variant
    fields = text.strip().replace("_", " ").split()
    if not fields:
        raise FenError("the FEN is empty; a FEN starts with the placement, e.g. " + v.start_fen)
    # Pieces in hand follow the placement in brackets ("...L[Pp]"); Fairy-Stockfish may write empty
    # brackets for games without drops.
    placement, _, hand_text = fields[0].partition("[")
    if hand_text and not v.drops and hand_text != "]":
        raise FenError(f"{v.title} has no pieces in hand; leave out {'[' + hand_text!r}")
    rows = placement.split("/")
    if len(rows) != v.height:
        raise FenError(f"the placement has {len(rows)} ranks separated by '/'; {v.title} has {v.height}")
    letters = {}
    for i, p in enumerate(v.pieces):
        letters[p.letter] = t.code(i, 0)
        letters[p.letter.lower()] = t.code(i, 1)
    for alias, letter in v.fen_synonyms.items():
        letters[alias] = letters[letter]
        letters[alias.lower()] = letters[letter.lower()]
    board = [0] * (t.n + 1)
    for row_index, row in enumerate(rows):
        rank = v.height - 1 - row_index
        file = 0
        digits = plus = ""
        for ch in row + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch == "/":
                break
            if ch == "+":
                plus = "+"
                continue
            ch, plus = plus + ch, ""
            if ch not in letters:
                known = "".join(p.letter for p in v.pieces)
                raise FenError(f"unknown piece letter {ch!r} on rank {rank + 1}; {v.title} uses "
                               f"{known} (uppercase for {v.side_names[0]}, lowercase for {v.side_names[1]})")
            if file < v.width:
                board[rank * v.width + file] = letters[ch]
            file += 1
        if file != v.width:
            raise FenError(f"rank {rank + 1} ({row!r}) describes {file} points; it must describe {v.width}")
    side = 0
    if len(fields) > 1:
        if fields[1].lower() not in ("w", "r", "b"):
            raise FenError(f"the side to move is {fields[1]!r}; write w (or r) for "
                           f"{v.side_names[0]} or b for {v.side_names[1]}")
        side = 0 if fields[1].lower() in ("w", "r") else 1
    counters = fields[4:6] if len(fields) > 4 else []
    try:
        halfmove = int(counters[0]) if counters else 0
        fullmove = int(counters[1]) if len(counters) > 1 else 1
    except ValueError:
        raise FenError("the last two FEN fields must be numbers: plies since the last capture, "
                       "then the move number") from None
    if halfmove < 0 or fullmove < 1:
        raise FenError("the move counters must be a non-negative ply count and a move number from 1")
    if v.drops or v.castling:
        hands = _hands(t, letters, hand_text.removesuffix("]"))
        rights = fields[2] if len(fields) > 2 and fields[2] != "-" else ""
        pos: Position = HandPosition(t, board, side, halfmove, fullmove, hands, _castling(t, board, rights))
    else:
        pos = Position(t, board, side, halfmove, fullmove)
    for sq in pos.pieces[0] | pos.pieces[1]:
        ptype, owner = t.piece_type(board[sq]), board[sq] & 1
        bounds = {getattr(p, "stay_in", None) for p in ptype.patterns}
        region = bounds.pop() if len(bounds) == 1 else None
        if region and not v.regions[region].contains(sq % v.width, sq // v.width, owner, v.height):
            raise FenError(f"the {v.side_names[owner]} {ptype.name} on {chr(97 + sq % v.width)}"
                           f"{sq // v.width + 1} stands outside its {region.replace('-', ' ')}, "
                           f"which it can never leave")
    for s in (0, 1):
        kings = sum(1 for sq in pos.pieces[s] if board[sq] in t.royal)
        if kings != 1:
            raise FenError(f"{v.side_names[s]} has {kings} kings; each side needs exactly one")
    if pos.in_check(1 - side):
        raise FenError(f"{v.side_names[1 - side]} is in check (or the kings face each other) with "
                       f"{v.side_names[side]} to move; such a position cannot arise")
    return pos


def _hands(t: Tables, letters: dict[str, int], text: str) -> list[list[int]]:
    hands = [[0] * len(t.variant.pieces) for _ in (0, 1)]
    for ch in text:
        code = letters.get(ch)
        if code is None or t.piece_type(code).royal or t.piece_type(code).letter.startswith("+"):
            raise FenError(f"{ch!r} cannot be in hand; a hand holds unpromoted pieces other than the king")
        hands[code & 1][(code >> 1) - 1] += 1
    return hands


def _castling(t: Tables, board: list[int], rights: str) -> str:
    """The castling field, checked: each right needs its king and lance where they started."""
    v = t.variant
    if not rights or not v.castling:
        return ""
    x = hand_rules(t)
    for letter in rights:
        if letter not in CASTLING:
            raise FenError(f"{letter!r} in the castling field; write {CASTLING} or - (K, Q: White's "
                           f"i-file and a-file lance; k, q: Black's)")
        side = CASTLING.index(letter) // 2
        corner = x.corners[side][1 - CASTLING.index(letter) % 2]
        if board[x.king_start[side]] not in t.royal or board[corner] != x.lance[side]:
            raise FenError(f"castling right {letter} needs the {v.side_names[side]} king on its starting "
                           f"square and the lance on its corner")
    return "".join(c for c in CASTLING if c in rights)


def format_fen(pos: Position) -> str:
    t = pos.t
    v = t.variant
    rows = []
    for rank in range(v.height - 1, -1, -1):
        row, empty = "", 0
        for file in range(v.width):
            code = pos.board[rank * v.width + file]
            if not code:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            letter = t.piece_type(code).letter
            row += letter if code & 1 == 0 else letter.lower()
        rows.append(row + (str(empty) if empty else ""))
    placement = "/".join(rows)
    rights = "-"
    if isinstance(pos, HandPosition):
        placement += "[" + "".join(p.letter if s == 0 else p.letter.lower() for s in (0, 1)
                                   for p, n in zip(v.pieces, pos.hands[s]) for _ in range(n)) + "]"
        rights = pos.castling or "-"
    return f"{placement} {'wb'[pos.side]} {rights} - {pos.halfmove} {pos.fullmove}"


def with_arrangement(fen: str, width: int, height: int, side: int, arrangement: Arrangement) -> str:
    """`fen` with one side's back rank set up as `arrangement` says (its files count from that side's
    own left, so the second player's run from the i-file)."""
    fields = fen.split(" ")
    rows = fields[0].split("/")
    index = height - 1 if side == 0 else 0  # rows run from the top rank down
    cells: list[str] = []
    for token in re.findall(r"\d+|\D", rows[index]):
        cells += ["1"] * int(token) if token.isdigit() else [token]
    for file, letter in arrangement.placement:
        cells[file if side == 0 else width - 1 - file] = letter.upper() if side == 0 else letter.lower()
    rows[index] = re.sub(r"1+", lambda m: str(len(m.group())), "".join(cells))
    return " ".join(["/".join(rows), *fields[1:]])
