"""The board as a PNG (pbm.pictures): decoded again with Pillow, the picture shows at every point what
the FEN has there (a piece's ring in its side's colour around a cream face, an inverted face for a
promoted piece, else bare board or Gi-Qi-Game's river), from either side; the last move, a king in
check and a mated king are marked; Gi-Qi-Game's hands stand under the board.  The points are found
with the SVG's geometry (rules.board_svg), worked out here from file and rank, not asked of the code
under test."""
from __future__ import annotations

import io
import random
import re
import shutil
import subprocess
import sys

import pytest
from fontTools.ttLib import TTFont
from PIL import Image
from support.processes import REPO

import rules
from pbm import pictures
from pbm.pictures import drawing as draw
from pbm.pictures.faces import FONT, characters
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
GAMES = sorted(CHECKS)
SQUARE = re.compile(r"[a-z]\d{1,2}")


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def near(pixel, colour: str, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb(colour)))


def decode(picture: pictures.Picture) -> Image.Image:
    image = Image.open(io.BytesIO(picture.data))
    assert image.format == "PNG" and image.size == (picture.width, picture.height)
    return image.convert("RGB")


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


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("turned", [False, True])
def test_the_start_and_a_first_move_from_either_side(name, turned):
    game = played(name, None, None)
    image = decode(pictures.board_png(game, turned=turned))
    check_board(image, game, turned)
    game.play(game.legal_moves()[len(game.legal_moves()) // 2])
    check_board(decode(pictures.board_png(game, turned=turned)), game, turned)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("turned", [False, True])
def test_a_king_in_check_has_the_ring_and_a_mated_king_the_badge_too(name, turned):
    check = played(name, *CHECKS[name])
    assert check.in_check() and check.result == "*"
    image = decode(pictures.board_png(check, turned=turned))
    check_board(image, check, turned)
    pos = check.position
    assert king_marks(image, check, turned, pos.kings[pos.side]) == (True, False)
    assert king_marks(image, check, turned, pos.kings[1 - pos.side]) == (False, False)
    mate = played(name, *MATES[name])
    assert mate.reason == "checkmate"
    image = decode(pictures.board_png(mate, turned=turned))
    check_board(image, mate, turned)
    pos = mate.position
    assert king_marks(image, mate, turned, pos.kings[pos.side]) == (True, True)
    assert king_marks(image, mate, turned, pos.kings[1 - pos.side]) == (False, False)


@pytest.mark.parametrize("turned", [False, True])
def test_giqi_hands_promotions_and_river(turned):
    game = played("giqi", "lh1gk2hb/1r1eng2l/f1f1f1+B1e/1py1y3f/F2Y3pF/2F4P1/HP2FYF1L/3K1GREN/"
                          "L1EG3H1[FFPffe] w - - 1 24", "g7f8")
    assert [sorted(h) for h in hands(game.fen())] == [list("FFGP"), list("eff")]
    image = decode(pictures.board_png(game, turned=turned))
    check_board(image, game, turned)                # the promoted bishop on f8 among them
    check_hands(image, game, turned)
    start = played("giqi", None, None)
    image = decode(pictures.board_png(start, turned=turned))
    check_board(image, start, turned)               # the river rank is empty: strong and weak
    check_hands(image, start, turned)


def test_a_wrong_picture_is_caught():
    """The pixel checks are no formality: one position's picture does not pass for another's, nor
    one side's for the other's, nor a hand for another hand."""
    game = played("xiangqi", *CHECKS["xiangqi"])
    image = decode(pictures.board_png(game, turned=False))
    with pytest.raises(AssertionError):
        check_board(image, game, True)
    with pytest.raises(AssertionError):
        check_board(image, played("xiangqi", CHECKS["xiangqi"][0], "a7a6"), False)
    giqi = played("giqi", *MATES["giqi"])
    image = decode(pictures.board_png(giqi, turned=False))
    check_hands(image, giqi, False)
    with pytest.raises(AssertionError):
        check_hands(image, played("giqi", *CHECKS["giqi"]), False)


def test_janggi_in_hangul_is_another_picture_of_the_same_board():
    game = played("janggi", *CHECKS["janggi"])
    hanja, hangul = (pictures.board_png(game, turned=False, faces=f) for f in ("hanja", "hangul"))
    assert hanja.data != hangul.data
    check_board(decode(hangul), game, False)
    xiangqi = played("xiangqi", None, None)         # no Hangul faces: the same picture either way
    assert pictures.board_png(xiangqi, turned=False, faces="hangul") is \
        pictures.board_png(xiangqi, turned=False)
    with pytest.raises(ValueError):
        pictures.board_png(game, turned=False, faces="kanji")


def test_padwarqi_korean_is_captioned():
    korean, plain = played("padwarqi", None, None, {"korean": True}), played("padwarqi", None, None)
    assert draw.caption(korean.variant) == "Padwar qi -korean" and draw.caption(plain.variant) == ""
    tall, short = pictures.board_png(korean, turned=False), pictures.board_png(plain, turned=False)
    assert tall.height == short.height + draw.CAPTION
    strip = decode(tall).crop((0, short.height, tall.width, tall.height))
    ink = sum(n for n, colour in strip.getcolors(1 << 16) if near(colour, board_svg.LINE, 60))
    assert ink > 100, "the caption is not written"


def random_positions(name: str, count: int, seed: int) -> list[rules.Game]:
    rnd, out = random.Random(seed), []
    while len(out) < count:
        game = rules.Game.new(name)
        for _ in range(rnd.randrange(10, 120)):
            if game.result != "*":
                break
            game.play(rnd.choice(game.legal_moves()))
        out.append(game)
    return out


@pytest.mark.parametrize("name", GAMES)
def test_size_limits_over_random_positions(name):
    for game in random_positions(name, 4, seed=len(name)):
        for turned in (False, True):
            view = pictures.view_of(game, turned=turned, faces="hangul")
            picture = pictures.draw(view)
            assert picture.width >= 300 and picture.height >= 300
            assert len(picture.data) <= 60_000, f"{game.fen()}: {len(picture.data)} bytes"
            assert picture.alt == game.fen()
            assert decode(picture).size == (picture.width, picture.height)
            check_board(decode(picture), game, turned)


def test_the_same_view_is_drawn_once_and_shared():
    first = played("janggi", *MATES["janggi"])
    again = played("janggi", *MATES["janggi"])      # another reader's game object, same view
    before = pictures.cached_draw.cache_info()
    picture = pictures.board_png(first, turned=True)
    assert pictures.board_png(again, turned=True) is picture
    after = pictures.cached_draw.cache_info()
    assert after.hits - before.hits >= 1
    other = pictures.board_png(again, turned=False)
    assert other.key != picture.key and other.data != picture.data
    assert re.fullmatch(r"board-[0-9a-f]{24}", picture.key)
    assert pictures.draw(pictures.view_of(first, turned=True)).key == picture.key    # stable
    html = picture.img(f"cid:{picture.key}@example.org")
    assert f'width="{picture.width}" height="{picture.height}"' in html and first.fen() in html


def test_the_shipped_font_holds_exactly_the_drawn_characters():
    font = TTFont(REPO / "pbm" / "pictures" / "fonts" / FONT)
    assert {chr(c) for c in font.getBestCmap()} == set(characters())
    assert {"將", "帥", "楚", "漢", "장", "졸", "병", "K"} <= set(characters())
    licence = (REPO / "pbm" / "pictures" / "fonts" / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence


@pytest.mark.slow
def test_a_regular_install_ships_the_font(tmp_path):
    """`pip install .` (not editable) puts the font and its licence beside the code, and a picture
    is drawn from there."""
    source, target = tmp_path / "source", tmp_path / "site"
    source.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for name in ("rules", "pbm", "mail_templates"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                             str(target), str(source)], capture_output=True, text=True, timeout=300)
    if result.returncode and "Could not find a version" in result.stderr + result.stdout:
        pytest.skip(f"no package index to fetch the build backend from: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stderr
    fonts = target / "pbm" / "pictures" / "fonts"
    assert (fonts / FONT).is_file() and (fonts / "OFL.txt").is_file()
    script = ("import rules, pbm.pictures as p; print(p.__file__); "
              "print(len(p.board_png(rules.Game.new('xiangqi'), turned=False).data))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    where, size = out.stdout.split()
    assert where.startswith(str(target)) and 0 < int(size) <= 60_000
