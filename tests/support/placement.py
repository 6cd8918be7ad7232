"""FEN placements written from a dict of squares, for tests that build positions by hand."""
from __future__ import annotations


def placement(pieces: dict[str, str], ranks: int, files: str = "abcdefghi") -> str:
    """{"e5": "R", "a1": "+p", ...} -> the FEN placement, top rank first."""
    rows = []
    for rank in range(ranks, 0, -1):
        row, empty = "", 0
        for file in files:
            letter = pieces.get(f"{file}{rank}")
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
