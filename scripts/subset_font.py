"""Make the font that pbm.pictures ships: Noto Serif CJK TC Bold cut down to the characters the
pictures draw (pbm.pictures.faces.characters), with its licence beside it.

    python scripts/subset_font.py [--source /usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc]

A developer's tool (fontTools; Debian's fonts-noto-cjk), run again when a game gains a character;
the output is committed, so an installed pbm needs neither.  The subset is a Modified Version under
the SIL Open Font License 1.1: it is renamed (pbm board glyphs) and ships with the licence, whose
copyright notice is read from the source font, and whose text from Debian's copyright file.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbm.pictures.faces import FONT, characters  # noqa: E402

SOURCE = pathlib.Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
FACE = "Noto Serif CJK TC Bold"     # traditional characters, as the pieces are written
COPYRIGHT = pathlib.Path("/usr/share/doc/fonts-noto-cjk/copyright")
FAMILY = "pbm board glyphs"
OUT = ROOT / "pbm" / "pictures" / "fonts"


def licence_text(copyright_file: pathlib.Path) -> str:
    """The SIL-1.1 licence paragraph of a Debian copyright file (the one with a body), as text."""
    lines: list[str] = []
    inside = False
    for line in copyright_file.read_text(encoding="utf-8").splitlines():
        if inside and line.startswith(" "):
            lines.append("" if line.strip() == "." else line[1:])
        elif lines:
            break
        else:
            inside = line.strip() == "License: SIL-1.1"
    if not lines:
        raise SystemExit(f"no SIL-1.1 licence text in {copyright_file}")
    return "\n".join(lines).strip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=pathlib.Path, default=SOURCE)
    parser.add_argument("--copyright", type=pathlib.Path, default=COPYRIGHT)
    args = parser.parse_args()
    font = next(f for f in TTCollection(str(args.source)).fonts if f["name"].getDebugName(4) == FACE)
    notice, version = font["name"].getDebugName(0), font["name"].getDebugName(5)
    options = subset.Options()
    options.layout_features = []            # single characters: no ligatures, no kerning
    options.hinting = False                 # drawn at 3x and scaled down: hints do nothing
    options.name_IDs = []
    options.notdef_outline = True
    options.drop_tables += ["BASE", "VORG", "vhea", "vmtx", "DSIG"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters())
    subsetter.subset(font)
    name = font["name"]
    for record_id, value in ((0, notice), (1, FAMILY), (2, "Bold"), (3, f"{FAMILY} Bold"),
                             (4, f"{FAMILY} Bold"), (5, version), (6, "pbm-board-glyphs-Bold"),
                             (10, f"A subset of {FACE} for pbm's board pictures")):
        name.setName(value, record_id, 3, 1, 0x409)
    font["CFF "].cff.fontNames = ["pbm-board-glyphs-Bold"]
    OUT.mkdir(parents=True, exist_ok=True)
    font.recalcTimestamp = False            # the source's date: the same input makes the same file
    font.save(str(OUT / FONT))
    (OUT / "OFL.txt").write_text(
        f"{FONT} is a subset of {FACE} (Noto CJK, https://github.com/notofonts/noto-cjk),\n"
        f"made by scripts/subset_font.py and renamed \"{FAMILY}\".\n\n{notice}\n\n"
        + licence_text(args.copyright), encoding="utf-8")
    print(f"{OUT / FONT}: {(OUT / FONT).stat().st_size} bytes, {len(characters())} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
