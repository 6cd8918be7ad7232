"""Reading a board picture's pixels against a position: at every point of the FEN a piece of the
right side (its ring) and face (a promoted piece's inverted), or bare board (or the river's colours);
the last move's points marked; a king's check ring and mate badge; Gi-Qi-Game's hands.  Used on the
PNG itself (test_board_png) and on a mail as a browser shows it (test_html_board).  Positions are
given in the picture's own pixels (pbm.pictures.drawing's geometry)."""
from __future__ import annotations

import re

from PIL import Image

import rules
from pbm.pictures import drawing as draw
from rules import board_svg
from rules.board_ascii import river_squares

# (game, params, FEN before the move, the move): found by random playouts from the start.
CHECKS = {
    "xiangqi": ("1r1akabn1/8r/2n1b4/p1p1p3p/P3P1p2/6P2/C1P1N4/B3B4/C3c3c/R2AKA1NR b - - 19 19", "e2e4"),
    "janggi": ("rnba2br1/3a5/c4k1cn/p1p1pp3/P7p/7CP/2PP3P1/1CN6/4K4/R1BARABN1 b - - 31 16", "h8e8"),
    "padwarqi": ("r1caka1n1/1n7/7rb/P5p1p/2p1P3c/3P4C/3Cp1P1P/N3BA3/3K2RN1/R1BA5 b - - 0 16", "e4d3"),
    "giqi": ("lh1gk2hb/1r1eng2l/f1f1f1+B1e/1py1y3f/F2Y3pF/2F4P1/HP2FYF1L/3K1GREN/L1EG3H1[F] w - - 1 24",
             "g7f8"),
}
MATES = {
    "xiangqi": ("3a2b1r/n2ka4/4b3n/2p1p4/p5P1p/2P1P1B2/7C1/1r7/C3A1cRN/R1B1KA1N1 b - - 18 40", "g2g1"),
    "janggi": ("rnb1a3r/4Ca3/4k4/1pp6/6c1n/4p3p/1PP1P1N1c/3K5/3CR4/2BA1A3 b - - 21 46", "a10a3"),
    "padwarqi": ("P1R2a3/3k5/4Na3/9/9/3n2B2/3c5/9/3K5/9 w - - 1 129", "c10c9"),
    "giqi": ("1he1F1eh1/1r1kgg2l/l1f1f4/fpy1ynf1P/1F1Y1Y3/1PFF4p/H1bl1fF2/L1GEN2E1/4KGRH1[b] b - - 5 44",
             "c3d2+"),
}
SQUARE = re.compile(r"[a-z]\d{1,2}")


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def near(pixel, colour: str, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb(colour)))


def placement(fen: str, height: int) -> dict[tuple[int, int], str]:
    """(file, rank) -> FEN letter ("+B" for a promoted bishop), read from the FEN's placement."""
    found, rows = {}, fen.split()[0].split("[")[0].split("/")
    for row, text in enumerate(rows):
        file = 0
        for token in re.findall(r"\d+|\+?[A-Za-z]", text):
            if token.isdigit():
                file += int(token)
            else:
                found[(file, height - 1 - row)] = token
                file += 1
    return found


def hands(fen: str) -> tuple[str, str]:
    """The letters in each side's hand, from the FEN's brackets: the first player's, the second's."""
    held = fen.split()[0].partition("[")[2].rstrip("]")
    return "".join(c for c in held if c.isupper()), "".join(c for c in held if c.islower())


def centre(v, turned: bool, file: int, rank: int) -> tuple[float, float]:
    column, row = (v.width - 1 - file, rank) if turned else (file, v.height - 1 - rank)
    return board_svg.centre(v, column, row)


def at(image: Image.Image, x: float, y: float):
    return image.getpixel((round(x), round(y)))


def check_board(image: Image.Image, game: rules.Game, turned: bool) -> None:
    """Every point as the FEN has it, and the last move's points marked."""
    v = game.variant
    occupied = placement(game.fen(), v.height)
    strong = river_squares(v)
    for file in range(v.width):
        for rank in range(v.height):
            x, y = centre(v, turned, file, rank)
            letter, where = occupied.get((file, rank)), f"{chr(97 + file)}{rank + 1}"
            if letter is None:
                ground = board_svg.BOARD
                if strong and rank == v.height // 2:
                    ground = draw.STRONG if strong[file] else draw.WEAK
                assert near(at(image, x + 11, y + 7), ground, 12), f"{where}: expected bare board"
                continue
            colour = v.colours[0 if letter[-1].isupper() else 1]
            face = colour if letter.startswith("+") else board_svg.PIECE
            assert near(at(image, x + 11.5, y + 2), face, 40), f"{where}: {letter}'s face"
            rings = [at(image, x + dx * board_svg.RADIUS, y + dy * board_svg.RADIUS)
                     for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            assert sum(near(p, colour, 60) for p in rings) >= 3, f"{where}: {letter}'s ring is {rings}"
    for name in SQUARE.findall(game.moves[-1] if game.moves else "")[-2:]:
        x, y = centre(v, turned, ord(name[0]) - 97, int(name[1:]) - 1)
        assert near(at(image, x + 19, y + 12), board_svg.MARK, 60), f"{name}: no last-move mark"


def king_marks(image: Image.Image, game: rules.Game, turned: bool, sq: int) -> tuple[bool, bool]:
    """Whether the king on `sq` has the check ring, and the mate badge."""
    v = game.variant
    x, y = centre(v, turned, sq % v.width, sq // v.width)
    middle = (draw.CHECK_INNER + draw.CHECK_OUTER) / 2
    ring = [at(image, x + dx * middle, y + dy * middle) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    bx, by = x + draw.BADGE_AT * board_svg.RADIUS, y - draw.BADGE_AT * board_svg.RADIUS
    badge = near(at(image, bx, by - draw.BADGE + 3), draw.MATE, 50) and near(at(image, bx, by), "#ffffff", 60)
    return all(near(p, draw.CHECK, 50) for p in ring), badge


def check_hands(image: Image.Image, game: rules.Game, turned: bool) -> None:
    """Each side's row under the board: a disc of its colour per kind held, a count where more."""
    v = game.variant
    held = hands(game.fen())
    for row, side in enumerate(draw.hand_sides(turned)):
        kinds = sorted(set(held[side].upper()), key=[p.letter for p in v.pieces].index)
        for index, letter in enumerate(kinds):
            x, y = draw.hand_point(v, row, index)
            rim = [at(image, x + dx * draw.HAND_RADIUS, y) for dx in (1, -1)]
            assert all(near(p, v.colours[side], 60) for p in rim), f"row {row}: {letter} is {rim}"
            count = held[side].upper().count(letter)
            badge = at(image, x + draw.HAND_RADIUS * 0.8 + 5, y + draw.HAND_RADIUS * 0.7)
            assert near(badge, board_svg.LINE, 40) == (count > 1), f"row {row}: {letter} x{count}"
        x, y = draw.hand_point(v, row, len(kinds))      # where one more kind would stand
        assert near(at(image, x, y - draw.HAND_RADIUS), board_svg.BOARD, 12), f"row {row}: more kinds"


def played(name: str, fen: str | None, move: str | None, params=None) -> rules.Game:
    game = rules.Game.new(name, params, fen)
    if move:
        game.play(move)
    return game
