"""What is written on a drawn piece (the font it is written in: pbm.pictures.lettering).

The font is shipped with the package (`fonts/`, a subset of Noto Serif CJK TC Bold made by
scripts/subset_font.py, under the SIL Open Font License in fonts/OFL.txt), so that a picture looks
the same on every machine whatever fonts it has.  `characters` is the one list of what the subset
must hold: the script builds the font from it and a test checks the font against it.
"""
from __future__ import annotations

import string

from pbm import i18n
from pbm.i18n import _

from rules.notation_chinese import RED_FILES
from rules.variant import PieceType
from rules.variants import get_variant, variant_names

FACES = ("hanja", "hangul")            # Janggi's pieces: the Chinese characters, or Hangul
FONT = "pbm-board-glyphs.otf"
# Coordinates, board letters, counts and captions are written in printable ASCII.
ASCII = "".join(c for c in string.printable if c.isprintable())


def face(piece: PieceType, side: int, faces: str = "hanja") -> tuple[str, bool]:
    """The text on a piece of `side` (Hangul where the reader chose it and the piece has it), and
    whether it is a character rather than a letter."""
    return piece.face(side, hangul=faces == "hangul"), bool(piece.glyphs or piece.hangul)


def characters() -> str:
    """Every character a picture may draw, sorted: the pieces' faces in both choices, ASCII, and
    the Chinese numerals of Red's files (the labels for a reader of Chinese notation), and the
    hands' labels in every language."""
    drawn = set(ASCII) | set(RED_FILES)
    for name in variant_names():
        for piece in get_variant(name).pieces:
            for faces in FACES:
                drawn.update(face(piece, side, faces)[0] for side in (0, 1))
        if get_variant(name).drops:
            for lang in i18n.LANGUAGES:
                with i18n.speaking(lang):
                    drawn.update(*map(hand_label, get_variant(name).side_names))
    return "".join(sorted(drawn))


def hand_label(side: str) -> str:
    """The words beside a row of pieces in hand, in the reader's language: `In White's hand:`,
    `白方手中：`, as the text under the picture says it."""
    return _("In {side}'s hand: {pieces}").format(side=_(side), pieces="").strip()
