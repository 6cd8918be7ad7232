"""Records' lines within a mail's 78 columns, counted as a fixed-width font shows them (a Chinese or
Korean character takes two), breaking only between the units given: a move never splits."""
from __future__ import annotations

from pbm.i18n import width

COLUMNS = 78


def fill(units: list[str], columns: int = COLUMNS) -> list[str]:
    """`units` joined by spaces, in lines of at most `columns` (a longer unit keeps a line)."""
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and width(f"{line} {unit}") > columns:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    if line:
        lines.append(line)
    return lines
