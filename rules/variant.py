"""A variant as data: board, regions, piece types and the few rule switches the games differ in.

Everything a game decides lives in one `Variant` value built by `rules.variants.<game>.build`; the
move generator, the referee, the notations and the ASCII board only read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.errors import NotationError, RulesError
from rules.patterns import Leap, Slide
from rules.said import N_, said


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
class Points:
    """A region given point by point, as (file, rank counted from the owning side's edge): Gi-Qi-Game's
    "crossed" is the far half plus the strong points of the river rank."""

    points: frozenset[tuple[int, int]]

    def contains(self, file: int, rank: int, side: int, height: int) -> bool:
        rel = rank if side == 0 else height - 1 - rank
        return (file, rel) in self.points


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
    # Gi-Qi-Game: the letters of the types this piece may promote to (the first is the usual one; a
    # promoted type's letter is "+" and its base letter, so capturing it gives the base to the hand);
    # `guard`: a bodyguard or warrior, which lets its king move in its 3x3 zone and may teleport.
    promotions: tuple[str, ...] = ()
    guard: bool = False
    # The characters on a drawn piece, first side's and second side's (帥 and 將); none: board_letter.
    glyphs: tuple[str, str] = ()
    # The Hangul faces a reader may choose instead of `glyphs` (Janggi: 장, 차, 졸 and 병 ...).
    hangul: tuple[str, str] = ()

    def face(self, side: int, hangul: bool = False) -> str:
        """What a drawn piece of `side` shows: its Hangul if asked for and it has one, else its
        characters, else its board letter."""
        if hangul and self.hangul:
            return self.hangul[side]
        return self.glyphs[side] if self.glyphs else self.board_letter


@dataclass(frozen=True)
class Arrangement:
    """One way a side may place some of its back-rank pieces before its first move (Janggi's horses
    and elephants).  Files count from the side's own left as it sits, so Han's left is the i-file.

    `placement` pairs such files with FEN letters; `letters` is the same from the player's left in
    board letters (what a player may type, e.g. HEEH); the names are what a player reads, `aliases`
    more words a player may type for it."""

    key: str
    hangul: str
    romanized: str
    letters: str
    english: str
    swap: str  # relative to the standard arrangement: "kept", "left swapped", ...
    placement: tuple[tuple[int, str], ...]
    aliases: tuple[str, ...] = ()

    def describe(self, number: int) -> str:
        """One line of a menu, e.g. `1 inner: 마상상마 (ma-sang-sang-ma), HEEH from your left: ...`."""
        return (f"{number} {self.key}: {self.hangul} ({self.romanized}), {self.letters} from your left: "
                f"{self.english} ({self.swap})")


def switch(game: str, name: str, value: str | bool) -> bool:
    """A yes/no parameter as a player may give it: alone (`-korean`), or `korean=yes` / `=no`."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower()
    if text in ("", "true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise RulesError(f"{game} parameter {name} is a switch: give it alone (-{name}) or as {name}=yes/no")


def _squash(text: str) -> str:
    return "".join(c for c in text.lower() if c not in " -_.'")


# A Chinese reader sees a setup's name glossed in Chinese (마상상마（马象象马）) and may type that.
_HANJA = str.maketrans({"马": "마", "馬": "마", "象": "상"})
NOT_A_SETUP = N_("{text} is not one of the setups; choose one of: {choices}")


def choose_arrangement(arrangements: tuple[Arrangement, ...], text: str) -> Arrangement:
    """The arrangement a player means by `text`: its number, key, names (the Hangul one also in
    Chinese characters), letters, swap or an alias; case, spaces and hyphens do not matter.
    Anything else raises NotationError listing the choices."""
    want = _squash(str(text).translate(_HANJA))
    for number, a in enumerate(arrangements, start=1):
        words = (str(number), a.key, a.hangul, a.romanized, a.letters, a.swap, *a.aliases)
        if want in {_squash(w) for w in words}:
            return a
    choices = "; ".join(a.describe(n) for n, a in enumerate(arrangements, start=1))
    raise NotationError(said(NOT_A_SETUP, text=repr(str(text).strip()), choices=choices))


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
    regions: dict[str, Region | Points]
    start_fen: str
    # Drawn diagonal lines, as chains of (file, rank) points: palace crosses.  Used for drawing and by
    # slides with lines="drawn-diagonals".
    diagonals: tuple[tuple[tuple[int, int], ...], ...] = ()
    river_after_rank: int | None = None  # a river row is drawn between this rank index and the next
    kings_may_face: bool = False          # Xiangqi: a move leaving the kings facing on a file is illegal
    stalemate_loses: bool = True          # Xiangqi: the stalemated side loses
    no_capture_limit: int | None = None   # plies without capture that end the game in a draw
    perpetual_chase: bool = True          # repetition: a perpetual chase loses (else only checks count)
    # The dead-position rule: a draw as soon as neither side can ever capture the other's king.
    dead_position_draw: bool = False
    # Janggi bikjang (with kings_may_face): a side whose king faces the other king on an open file must
    # break the facing or pass, and a pass while they face ends the game.
    facing_must_break: bool = False
    passing: bool = False                 # a side not in check may pass; two passes in a row end the game
    # Points scoring (piece letter -> value, plus a bonus per side): the endings that are otherwise
    # drawn (bikjang, two passes, the no-capture limit, repetition) go to the side with more points.
    points: dict[str, float] = field(default_factory=dict)
    points_bonus: tuple[float, float] = (0.0, 0.0)
    arrangements: tuple[Arrangement, ...] = ()  # setup choice: each side picks one before its first move
    notation: str = "wxf"                 # the human notation: "wxf" or "coordinates"
    # Every style the game reads and writes (rules.notation_styles), the one above among them: what a
    # player may choose to have moves named in.
    notations: tuple[str, ...] = ("coordinates",)
    legend: tuple[str, ...] = ()          # lines printed under the ASCII board (what the letters mean)
    fen_synonyms: dict[str, str] = field(default_factory=dict)  # accepted on input only
    params: tuple[tuple[str, str | bool], ...] = ()  # the parameters this variant was built with
    # The switches a player may give this game (name, what it does), for help pages and errors.
    parameters: tuple[tuple[str, str], ...] = ()
    # The directions along which two kings may not face each other (with kings_may_face=False).
    facing: tuple[tuple[int, int], ...] = ((0, 1), (0, -1))
    # Gi-Qi-Game's shogi-like rules, all off for the other games:
    drops: bool = False                   # captured pieces change side, demote and may be dropped
    promotion_zone: int = 0               # the last N ranks, where promotion is offered
    king_zones: int = 0                   # a king may only step into an N x N zone holding a guard
    teleport: bool = False                # guards may jump next to their own king
    castling: bool = False                # the king may castle with a lance from the corner
    repeat_is_illegal: bool = False       # a move recreating any earlier position is not allowed
    board_style: str = "points"           # ASCII board: "points" (Xiangqi lines) or "squares"
    colours: tuple[str, str] = ("#c3161c", "#1b1b1b")     # of the sides' pieces on a drawn board

    def switches(self) -> list[str]:
        """The switches in force, as a challenge gives them: ["-korean"]; none for the standard game."""
        return [f"-{name}" for name, value in self.params if value is True]

    def piece(self, letter: str) -> PieceType:
        return next(p for p in self.pieces if p.letter == letter)
