"""What one board picture shows, read from a game once: the value a picture is drawn from, and
(by its compared fields) the key it is cached by.

Two readers who see the same position from the same side, with the same marks and faces, get the
same `View` and so share one picture.  The board and hands are the FEN's content in the form the
drawing reads; they are left out of the comparison, as the FEN already says them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import rules
from pbm.pictures.faces import FACES, hand_label
from rules import board_svg
from rules.board_svg import last_move_squares
from rules.tables import Tables
from rules.variant import Variant

# How a picture's edges are labelled: coordinates (a...i, 1...10), or as a reader of Chinese notation
# reads a printed Xiangqi board (Red's files 九...一 under it, Black's 1...9 over it), or a reader of
# Korean notation a Janggi board (files 1...9 from Cho's left, rows 1...9, 0 from Han's edge).
LABELS = {"coordinates": "coordinates", "chinese": "chinese", "chinese-traditional": "chinese",
          "korean": "korean"}
HAND = 38                               # the height of a row of pieces in hand
CAPTION = 24                            # the height of the caption (`caption`) under the board


def caption(v) -> str:
    """The game and its switches in force, e.g. "Padwar qi -korean"; empty without any."""
    return " ".join([v.title, *v.switches()]) if v.switches() else ""


def size(v) -> tuple[int, int]:
    """(width, height) of the picture in pixels."""
    width, height = board_svg.size(v)
    return width, height + (2 * HAND + 8 if v.drops else 0) + (CAPTION if caption(v) else 0)


def labels_for(variant: Variant, notation: str) -> str:
    """The labels a reader of `notation` (a preference) sees on a picture of `variant`."""
    return LABELS.get(notation, "coordinates") if notation in variant.notations else "coordinates"


def hands_in_words(variant: Variant) -> tuple[str, ...]:
    """The words beside each side's hand on a picture of `variant`, in the language being written
    (a picture is drawn later, where no reader is known: the mail's writer puts them in)."""
    return tuple(map(hand_label, variant.side_names)) if variant.drops else ()


@dataclass(frozen=True)
class View:
    """What one board picture shows (a picture is drawn and cached per view)."""
    variant: Variant                    # compared by identity: one value per game and parameters
    fen: str
    last: tuple[int, ...]               # the last move's points (none before the first move)
    king: int                           # the point of the king in check or mated, else -1
    mated: bool
    turned: bool                        # drawn from the second player's side
    faces: str                          # "hanja" or "hangul" (Janggi); "hanja" for the other games
    labels: str                         # the edges' labels: LABELS, in the reader's notation
    hand_labels: tuple[str, ...]        # the words beside each side's hand, in the reader's language
    tables: Tables = field(compare=False)
    board: tuple[int, ...] = field(compare=False)          # piece codes by point
    hands: tuple[tuple[int, ...], ...] = field(compare=False, default=())  # [side][piece type]


def view_of(game: rules.Game, *, turned: bool, faces: str = "hanja", labels: str = "coordinates",
            hand_labels: tuple[str, ...] = ()) -> View:
    """The picture `game` shows now to a reader on the first player's side (`turned`: the second's),
    with Janggi's pieces in `faces`.  A checkmate is "checkmate" in `game.reason`: the side to move
    is the mated one, as it is the one in check."""
    return view_from(game, last=game.moves[-1] if game.moves else "",
                     mated=game.reason == "checkmate", turned=turned, faces=faces, labels=labels,
                     hand_labels=hand_labels)


def view_from(game: rules.Game, *, last: str, mated: bool, turned: bool, faces: str,
              labels: str = "coordinates", hand_labels: tuple[str, ...] = ()) -> View:
    """The picture of `game`'s position with `last` (a move in coordinates, "" for none) marked and,
    if `mated`, its side to move mated: what a game rebuilt from a FEN cannot say of itself.
    `hand_labels`: the hands' words in the reader's language (`hands_in_words`; default: in the
    language being written)."""
    if faces not in FACES:
        raise ValueError(f"faces is one of {', '.join(FACES)}, not {faces!r}")
    if labels not in LABELS.values():
        raise ValueError(f"labels is one of {', '.join(sorted(set(LABELS.values())))}, not {labels!r}")
    v, pos = game.variant, game.position
    if not any(piece.hangul for piece in v.pieces):
        faces = "hanja"                 # the same picture either way: one cache entry
    king = pos.kings[pos.side] if mated or game.in_check() else -1
    hands = getattr(pos, "hands", None) if v.drops else None
    return View(variant=v, fen=game.fen(), last=tuple(last_move_squares(v, last)),
                king=king, mated=mated, turned=turned, faces=faces, labels=labels,
                hand_labels=(hand_labels or hands_in_words(v)) if v.drops else (), tables=game.tables,
                board=tuple(pos.board[:game.tables.n]),
                hands=tuple(tuple(hand) for hand in hands) if hands is not None else ())
