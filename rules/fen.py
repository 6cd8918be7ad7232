"""FEN in and out, in the Fairy-Stockfish / pychess-variants form (spec/games.md, "FEN")."""
from __future__ import annotations

import re

from rules.errors import FenError
from rules.position import Position
from rules.tables import Tables
from rules.variant import Arrangement


def parse_fen(t: Tables, text: str) -> Position:
    """Read a FEN; the fields after the placement may be left out (first player to move, `0 1`)."""
    v = t.variant
    fields = text.strip().replace("_", " ").split()
    if not fields:
        raise FenError("the FEN is empty; a FEN starts with the placement, e.g. " + v.start_fen)
    # Fairy-Stockfish may append the (always empty here) holdings of drop variants: "...R1[]".
    placement = fields[0].removesuffix("[]")
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
        digits = ""
        for ch in row + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch == "/":
                break
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
    return f"{'/'.join(rows)} {'wb'[pos.side]} - - {pos.halfmove} {pos.fullmove}"


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
