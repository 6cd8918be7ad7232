"""What one board picture shows, read from a game once: the value a picture is drawn from, and
(by its compared fields) the key it is cached by.

Two readers who see the same position from the same side, with the same marks and faces, get the
same `View` and so share one picture.  The board and hands are the FEN's content in the form the
drawing reads; they are left out of the comparison, as the FEN already says them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import rules
from pbm.pictures.faces import FACES
from rules.board_svg import last_move_squares
from rules.tables import Tables
from rules.variant import Variant


@dataclass(frozen=True)
class View:
    variant: Variant                    # compared by identity: one value per game and parameters
    fen: str
    last: tuple[int, ...]               # the last move's points (none before the first move)
    king: int                           # the point of the king in check or mated, else -1
    mated: bool
    turned: bool                        # drawn from the second player's side
    faces: str                          # "hanja" or "hangul" (Janggi); "hanja" for the other games
    tables: Tables = field(compare=False)
    board: tuple[int, ...] = field(compare=False)          # piece codes by point
    hands: tuple[tuple[int, ...], ...] = field(compare=False, default=())  # [side][piece type]


def view_of(game: rules.Game, *, turned: bool, faces: str = "hanja") -> View:
    """The picture `game` shows now to a reader on the first player's side (`turned`: the second's),
    with Janggi's pieces in `faces`.  A checkmate is "checkmate" in `game.reason`: the side to move
    is the mated one, as it is the one in check."""
    return view_from(game, last=game.moves[-1] if game.moves else "",
                     mated=game.reason == "checkmate", turned=turned, faces=faces)


def view_from(game: rules.Game, *, last: str, mated: bool, turned: bool, faces: str) -> View:
    """The picture of `game`'s position with `last` (a move in coordinates, "" for none) marked and,
    if `mated`, its side to move mated: what a game rebuilt from a FEN cannot say of itself."""
    if faces not in FACES:
        raise ValueError(f"faces is one of {', '.join(FACES)}, not {faces!r}")
    v, pos = game.variant, game.position
    if not any(piece.hangul for piece in v.pieces):
        faces = "hanja"                 # the same picture either way: one cache entry
    king = pos.kings[pos.side] if mated or game.in_check() else -1
    hands = getattr(pos, "hands", None) if v.drops else None
    return View(variant=v, fen=game.fen(), last=tuple(last_move_squares(v, last)),
                king=king, mated=mated, turned=turned, faces=faces, tables=game.tables,
                board=tuple(pos.board[:game.tables.n]),
                hands=tuple(tuple(hand) for hand in hands) if hands is not None else ())
