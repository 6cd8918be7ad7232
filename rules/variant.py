"""A variant as data: board, regions, piece types and the few rule switches the games differ in.

Everything a game decides lives in one `Variant` value built by `rules.variants.<game>.build`; the
move generator, the referee, the notations and the ASCII board only read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.patterns import Leap, Slide


@dataclass(frozen=True)
class Region:
    """Points given by file and rank ranges counted from the owning side's edge (rank 0 = its back rank).

    Regions are always per side: "palace" is Red's palace for Red and Black's for Black.
    """

    files: range
    ranks: range

    def contains(self, file: int, rank: int, side: int, height: int) -> bool:
        rel = rank if side == 0 else height - 1 - rank
        return file in self.files and rel in self.ranks


@dataclass(frozen=True)
class PieceType:
    """One kind of piece.  `role` is the Xiangqi piece it plays the part of (the repetition referee and
    the chase rules reason about roles, so Padwar qi's thoat is a "horse"); `letter` is its FEN letter,
    `board_letter` the pbmserv letter on the ASCII board, `wxf` its letter in WXF notation."""

    letter: str
    name: str
    role: str
    board_letter: str
    wxf: str
    patterns: tuple[Leap | Slide, ...]
    royal: bool = False


@dataclass(frozen=True, eq=False)
class Variant:
    """Compared and hashed by identity: the registry builds one value per (name, parameters)."""

    name: str
    title: str
    width: int
    height: int
    side_names: tuple[str, str]
    colour_prefix: tuple[str, str]
    pieces: tuple[PieceType, ...]
    regions: dict[str, Region]
    start_fen: str
    # Drawn diagonal lines, as chains of (file, rank) points: palace crosses.  Used for drawing and by
    # slides with lines="drawn-diagonals".
    diagonals: tuple[tuple[tuple[int, int], ...], ...] = ()
    river_after_rank: int | None = None  # a river row is drawn between this rank index and the next
    kings_may_face: bool = False          # Xiangqi: a move leaving the kings facing on a file is illegal
    stalemate_loses: bool = True          # Xiangqi: the stalemated side loses
    no_capture_limit: int | None = None   # plies without capture that end the game in a draw
    fen_synonyms: dict[str, str] = field(default_factory=dict)  # accepted on input only
    params: tuple[tuple[str, str], ...] = ()  # the parameters this variant was built with

    def piece(self, letter: str) -> PieceType:
        return next(p for p in self.pieces if p.letter == letter)
