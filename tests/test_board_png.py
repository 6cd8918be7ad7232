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
from support.board_pixels import (
    CHECKS,
    MATES,
    check_board,
    check_hands,
    hands,
    king_marks,
    near,
    played,
)
from support.playouts import random_games
from support.processes import REPO

from pbm import i18n
from pbm.pictures import drawing as draw
from pbm.pictures.faces import FONT, characters
from pbm.pictures.view import hands_in_words, view_of
from rules import board_svg

GAMES = sorted(CHECKS)


def decode(picture: draw.Picture) -> Image.Image:
    image = Image.open(io.BytesIO(picture.data))
    assert image.format == "PNG" and image.size == (picture.width, picture.height)
    return image.convert("RGB")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("turned", [False, True])
def test_the_start_and_a_first_move_from_either_side(name, turned):
    game = played(name, None, None)
    image = decode(draw.board_png(game, turned=turned))
    check_board(image, game, turned)
    game.play(game.legal_moves()[len(game.legal_moves()) // 2])
    check_board(decode(draw.board_png(game, turned=turned)), game, turned)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("turned", [False, True])
def test_a_king_in_check_has_the_ring_and_a_mated_king_the_badge_too(name, turned):
    check = played(name, *CHECKS[name])
    assert check.in_check() and check.result == "*"
    image = decode(draw.board_png(check, turned=turned))
    check_board(image, check, turned)
    pos = check.position
    assert king_marks(image, check, turned, pos.kings[pos.side]) == (True, False)
    assert king_marks(image, check, turned, pos.kings[1 - pos.side]) == (False, False)
    mate = played(name, *MATES[name])
    assert mate.reason == "checkmate"
    image = decode(draw.board_png(mate, turned=turned))
    check_board(image, mate, turned)
    pos = mate.position
    assert king_marks(image, mate, turned, pos.kings[pos.side]) == (True, True)
    assert king_marks(image, mate, turned, pos.kings[1 - pos.side]) == (False, False)


@pytest.mark.parametrize("turned", [False, True])
def test_giqi_hands_promotions_and_river(turned):
    game = played("giqi", "lh1gk2hb/1r1eng2l/f1f1f1+B1e/1py1y3f/F2Y3pF/2F4P1/HP2FYF1L/3K1GREN/"
                          "L1EG3H1[FFPffe] w - - 1 24", "g7f8")
    assert [sorted(h) for h in hands(game.fen())] == [list("FFGP"), list("eff")]
    image = decode(draw.board_png(game, turned=turned))
    check_board(image, game, turned)                # the promoted bishop on f8 among them
    check_hands(image, game, turned)
    start = played("giqi", None, None)
    image = decode(draw.board_png(start, turned=turned))
    check_board(image, start, turned)               # the river rank is empty: strong and weak
    check_hands(image, start, turned)


def test_the_hands_are_labelled_in_the_readers_language():
    """The words beside the hands are the reader's, as the text under the picture says them, and
    the shipped font draws them: a Chinese reader's picture differs from an English one's exactly
    in those words, and the empty hand is a dash in every language."""
    game = played("giqi", None, None)
    words = {}
    for lang in ("en", "zh-Hans", "zh-Hant", "ko"):
        with i18n.speaking(lang):
            words[lang] = hands_in_words(game.variant)
    assert words == {"en": ("In White's hand:", "In Black's hand:"), "zh-Hans": ("白方手中：", "黑方手中："),
                     "zh-Hant": ("白方手中：", "黑方手中："), "ko": ("백의 손:", "흑의 손:")}
    assert set("".join(words["ko"] + words["zh-Hant"])) <= set(characters())
    english = decode(draw.draw(view_of(game, turned=False, hand_labels=words["en"])))
    chinese = decode(draw.draw(view_of(game, turned=False, hand_labels=words["zh-Hans"])))
    board_height = board_svg.size(game.variant)[1]
    assert english.crop((0, 0, english.width, board_height)).tobytes() == \
        chinese.crop((0, 0, chinese.width, board_height)).tobytes()           # the board is the same
    assert english.tobytes() != chinese.tobytes()                              # the hands' words are not


def test_a_wrong_picture_is_caught():
    """The pixel checks are no formality: one position's picture does not pass for another's, nor
    one side's for the other's, nor a hand for another hand."""
    game = played("xiangqi", *CHECKS["xiangqi"])
    image = decode(draw.board_png(game, turned=False))
    with pytest.raises(AssertionError):
        check_board(image, game, True)
    with pytest.raises(AssertionError):
        check_board(image, played("xiangqi", CHECKS["xiangqi"][0], "a7a6"), False)
    giqi = played("giqi", *MATES["giqi"])
    image = decode(draw.board_png(giqi, turned=False))
    check_hands(image, giqi, False)
    with pytest.raises(AssertionError):
        check_hands(image, played("giqi", *CHECKS["giqi"]), False)


def test_janggi_in_hangul_is_another_picture_of_the_same_board():
    game = played("janggi", *CHECKS["janggi"])
    hanja, hangul = (draw.board_png(game, turned=False, faces=f) for f in ("hanja", "hangul"))
    assert hanja.data != hangul.data
    check_board(decode(hangul), game, False)
    xiangqi = played("xiangqi", None, None)         # no Hangul faces: the same picture either way
    assert draw.board_png(xiangqi, turned=False, faces="hangul") is \
        draw.board_png(xiangqi, turned=False)
    with pytest.raises(ValueError):
        draw.board_png(game, turned=False, faces="kanji")


def test_padwarqi_korean_is_captioned():
    korean, plain = played("padwarqi", None, None, {"korean": True}), played("padwarqi", None, None)
    assert draw.caption(korean.variant) == "Padwar qi -korean" and draw.caption(plain.variant) == ""
    tall, short = draw.board_png(korean, turned=False), draw.board_png(plain, turned=False)
    assert tall.height == short.height + draw.CAPTION
    strip = decode(tall).crop((0, short.height, tall.width, tall.height))
    ink = sum(n for n, colour in strip.getcolors(1 << 16) if near(colour, board_svg.LINE, 60))
    assert ink > 100, "the caption is not written"


@pytest.mark.parametrize("name", GAMES)
def test_size_limits_over_random_positions(name):
    for game in random_games(name, 4, random.Random(len(name)), longest=120):
        for turned in (False, True):
            view = draw.view_of(game, turned=turned, faces="hangul")
            picture = draw.draw(view)
            assert picture.width >= 300 and picture.height >= 300
            assert len(picture.data) <= 60_000, f"{game.fen()}: {len(picture.data)} bytes"
            assert picture.alt == game.fen()
            assert decode(picture).size == (picture.width, picture.height)
            check_board(decode(picture), game, turned)


def test_the_same_view_is_drawn_once_and_shared():
    first = played("janggi", *MATES["janggi"])
    again = played("janggi", *MATES["janggi"])      # another reader's game object, same view
    before = draw.cached_draw.cache_info()
    picture = draw.board_png(first, turned=True)
    assert draw.board_png(again, turned=True) is picture
    after = draw.cached_draw.cache_info()
    assert after.hits - before.hits >= 1
    other = draw.board_png(again, turned=False)
    assert other.key != picture.key and other.data != picture.data
    assert re.fullmatch(r"board-[0-9a-f]{24}", picture.key)
    assert draw.draw(draw.view_of(first, turned=True)).key == picture.key    # stable
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
    script = ("import rules, pbm.pictures.drawing as p; print(p.__file__); "
              "print(len(p.board_png(rules.Game.new('xiangqi'), turned=False).data))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    where, size = out.stdout.split()
    assert where.startswith(str(target)) and 0 < int(size) <= 60_000
