"""The pbmserv ASCII board (pbmserv's Xiangqi help page), drawn from the variant's geometry rather than from a picture.

Point (file f) sits at column 5 + 4f; a piece is its colour letter and pbmserv letter, written over the
point and the column before it.  Rank labels stand on both sides, files on top and bottom, the drawn
diagonals of the variant appear between the ranks, and a river row where the variant has one; the
variant's legend (what the letters mean) follows the board.  `turned` draws it from the second
player's side: rotated half a turn, so that their pieces stand at the bottom (the letters and labels
stay upright).
"""
from __future__ import annotations

import functools

from rules.position import Position


def drawn_files(v, turned: bool) -> list[int]:
    """The files from left to right as drawn."""
    return list(range(v.width - 1, -1, -1)) if turned else list(range(v.width))


def drawn_ranks(v, turned: bool) -> list[int]:
    """The ranks from top to bottom as drawn."""
    return list(range(v.height)) if turned else list(range(v.height - 1, -1, -1))


def _rank_line(v, rank: int) -> str:
    """A rank's line without its pieces: a piece of the column drawn c-th goes at 4 + 4c (its
    colour letter) and 5 + 4c (its letter)."""
    row = [" "] * (5 + 4 * (v.width - 1) + 1)
    for f in range(v.width):
        row[5 + 4 * f] = "+"
        if f < v.width - 1:
            row[6 + 4 * f:9 + 4 * f] = "---"
    label = str(rank + 1).rjust(2)
    line = f"{label}  {''.join(row[4:])} {label}"
    if rank == v.height - 1:
        line += "   " + v.side_names[1]
    elif rank == 0:
        line += "   " + v.side_names[0]
    return line


def _between_line(v, upper: int, turned: bool) -> str:
    """The row of `|` (and diagonal strokes) between rank `upper` and rank `upper - 1` (drawn below
    it, or above it when `turned`: a stroke turned half round keeps its slant)."""
    if v.river_after_rank is not None and upper == v.river_after_rank + 1:
        inner = 4 * (v.width - 1) - 1
        return "     |" + "R  I  V  E  R".center(inner) + "|"
    row = [" "] * (5 + 4 * (v.width - 1) + 1)
    for f in range(v.width):
        row[5 + 4 * f] = "|"
    for chain in v.diagonals:
        for (f1, r1), (f2, r2) in zip(chain, chain[1:]):
            if {r1, r2} != {upper, upper - 1}:
                continue
            (fu, _), (fl, _) = ((f1, r1), (f2, r2)) if r1 == upper else ((f2, r2), (f1, r1))
            left = v.width - 1 - max(fu, fl) if turned else min(fu, fl)
            row[7 + 4 * left] = "\\" if fu < fl else "/"
    return "".join(row).rstrip()


@functools.lru_cache(maxsize=64)
def _frame(v, turned: bool) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """The board of points without its pieces, and (line, rank) of each rank: drawn once per
    variant and side, since every board mail of every move needs it."""
    files = "     " + "   ".join(chr(ord("A") + f) for f in drawn_files(v, turned))
    lines, rank_lines = [files, ""], []
    ranks = drawn_ranks(v, turned)
    for rank, below in zip(ranks, ranks[1:] + [None]):
        rank_lines.append((len(lines), rank))
        lines.append(_rank_line(v, rank))
        if below is not None:
            lines.append(_between_line(v, max(rank, below), turned))
    lines += ["", files]
    if v.legend:
        lines += ["", *v.legend]
    return tuple(lines), tuple(rank_lines)


def river_squares(v) -> dict[int, bool]:
    """A board of squares' river rank (Gi-Qi-Game: rank 5, `v.height // 2`): file -> whether that
    square is a strong one (a piece there has crossed); empty where the variant has no such river."""
    crossed = v.regions.get("crossed")
    if v.board_style != "squares" or crossed is None:
        return {}
    return {f: crossed.contains(f, v.height // 2, 0, v.height) for f in range(v.width)}


def _squares(pos: Position, turned: bool) -> list[str]:
    """A board of squares (Gi-Qi-Game): each cell is a river mark (* strong, ~ weak, on the river
    rank only), the colour letter, the piece letter and + for a promoted piece."""
    v, t = pos.t.variant, pos.t
    files = "      " + "    ".join(chr(ord("A") + f) for f in drawn_files(v, turned))
    rule = "   " + "+----" * v.width + "+"
    strong = river_squares(v)
    river = v.height // 2
    lines = [files, rule]
    for rank in drawn_ranks(v, turned):
        cells = []
        for f in drawn_files(v, turned):
            mark = " "
            if rank == river and strong:
                mark = "*" if strong[f] else "~"
            code = pos.board[rank * v.width + f]
            if code:
                letter = t.piece_type(code).letter
                piece = v.colour_prefix[code & 1] + letter.lstrip("+") + ("+" if letter[0] == "+" else " ")
            else:
                piece = "   "
            cells.append(mark + piece)
        label = str(rank + 1).rjust(2)
        side = {v.height - 1: "   " + v.side_names[1], 0: "   " + v.side_names[0]}.get(rank, "")
        if rank == river:
            side = "   river"
        lines += [f"{label} |{'|'.join(cells)}| {label}{side}", rule]
    lines.append(files)
    if hand_lines(pos):
        lines += ["", *hand_lines(pos)]
    return lines


def hand_lines(pos: Position) -> list[str]:
    """`In White's hand: F F`, one line per side, where the game has hands (Gi-Qi-Game)."""
    v, hands = pos.t.variant, getattr(pos, "hands", None)
    if hands is None or not v.drops:
        return []
    return [f"In {v.side_names[s]}'s hand: "
            + (" ".join(p.letter for p, n in zip(v.pieces, hands[s]) for _ in range(n)) or "-")
            for s in (0, 1)]


def render(pos: Position, turned: bool = False) -> str:
    v = pos.t.variant
    if v.board_style == "squares":
        lines = _squares(pos, turned)
        if v.legend:
            lines += ["", *v.legend]
        return "\n".join(lines) + "\n"
    frame, rank_lines = _frame(v, turned)
    lines, files, t = list(frame), drawn_files(v, turned), pos.t
    for index, rank in rank_lines:
        codes = pos.board[rank * v.width:(rank + 1) * v.width]
        if any(codes):
            line = list(lines[index])
            for column, f in enumerate(files):
                if codes[f]:
                    line[4 + 4 * column] = v.colour_prefix[codes[f] & 1]
                    line[5 + 4 * column] = t.piece_type(codes[f]).board_letter
            lines[index] = "".join(line)
    return "\n".join(lines) + "\n"
