"""A ruling's cycle as one picture: the position after each of its plies, small boards side by side,
each numbered with its move (the numbers the mail's lines begin with), one PNG.

Each board is the board picture (drawing.render, with the move's points marked and a king in check
ringed) scaled down, so the strip agrees with the board mails.  Drawn once per cycle and side, and
kept: every reader of a ruling who sees the same side gets the same bytes.
"""
from __future__ import annotations

import rules
from pbm import Later
from pbm.pictures import Picture

# Drawn by pbm.pictures.strip_drawing, loaded with Pillow by the first ruling that shows a cycle.
_STRIP = Later("pbm.pictures.strip_drawing:strip")


def strip_png(game: rules.Game, start: int, plies: int, *, turned: bool, faces: str = "hanja") -> Picture:
    """The positions after moves `start + 1` to `start + plies` of `game`, seen from the first
    player's side (`turned`: the second's)."""
    return _STRIP(game.variant.name, tuple(sorted(game.params.items())), game.start_fen,
                  tuple(game.moves[:start + plies]), start, turned, faces)
