"""The board picture's edges labelled in the reader's notation, read back from what Chromium shows:
for a reader of Chinese notation Red's files 九...一 under Red and Black's 1...9 over Black (turned
for Black), as printed boards do; for a reader of Korean notation the kibo digits (files 1...9 from
Cho's left, rows 1...9, 0 from Han's edge), so that 02마83 can be found on the board; coordinates
for every other reader.  Each label is cut out of the screenshot and matched against every label
any notation draws: the nearest must be the one the notation names."""
from __future__ import annotations

import re

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat
from support.postoffice import PostOffice, by_recipient
from test_html_board import seen

import rules
from pbm.pictures.drawing import SCALE
from pbm.pictures.lettering import font
from pbm.pictures.view import labels_for
from rules import board_svg
from rules.board_svg import edge_labels
from rules.notation_chinese import RED_FILES

pytestmark = pytest.mark.slow      # a browser
BOX = 16                           # the square cut around a label's centre
CANDIDATES = sorted({*RED_FILES, *"0123456789", *"abcdefghi", "10"})
WOOD = board_svg.BOARD
READERS = {"carol": ("zh-Hans", "chinese"), "erin": ("zh-Hant", "chinese-traditional"),
           "dave": ("ko", "korean"), "alice": ("en", "both"), "bob": ("en", "both")}


def drawn(text: str) -> Image.Image:
    """`text` as the picture draws a label, on a BOX square of wood."""
    image = Image.new("RGB", (BOX * SCALE, BOX * SCALE), WOOD)
    ImageDraw.Draw(image).text((BOX * SCALE / 2, BOX * SCALE / 2), text, font=font(12 * SCALE),
                               fill=board_svg.LINE, anchor="mm")
    return image.reduce(SCALE)


def read(image: Image.Image, x: float, y: float) -> str:
    """The label whose drawing is nearest to what stands at (x, y)."""
    cut = image.crop((round(x - BOX / 2), round(y - BOX / 2), round(x + BOX / 2), round(y + BOX / 2)))
    return min(CANDIDATES, key=lambda c: sum(ImageStat.Stat(ImageChops.difference(cut, drawn(c))).sum))


def labels_seen(image: Image.Image, v: rules.Variant) -> dict[str, list[str]]:
    width, height = board_svg.size(v)
    columns = [board_svg.centre(v, column, 0)[0] for column in range(v.width)]
    rows = [board_svg.centre(v, 0, row)[1] for row in range(v.height)]
    return {"top": [read(image, x, board_svg.LABEL) for x in columns],
            "bottom": [read(image, x, height - board_svg.LABEL) for x in columns],
            "left": [read(image, board_svg.LABEL, y) for y in rows],
            "right": [read(image, width - board_svg.LABEL, y) for y in rows]}


@pytest.fixture
def post(tmp_path) -> PostOffice:
    office = PostOffice(tmp_path)
    for user, (lang, style) in READERS.items():
        office.send(f"signup {user} {user.capitalize()}-Secret9 lang={lang} notation={style}",
                    sender=f"{user}@example.org")
    return office


def move(post: PostOffice, game: str, user: str, text: str) -> dict:
    return by_recipient(post.send(f"{game} move 101 {user} {user.capitalize()}-Secret9 {text}",
                                  sender=f"{user}@example.org"))


def test_the_picture_is_labelled_in_each_readers_notation(post, tmp_path):
    post.send("xiangqi challenge carol erin", sender="carol@example.org")
    move(post, "xiangqi", "carol", "炮二平五")
    xiangqi = move(post, "xiangqi", "erin", "馬8進7")
    post.send("janggi challenge dave alice", sender="dave@example.org")
    move(post, "janggi", "dave", "02마83")
    janggi = move(post, "janggi", "alice", "b10c8")
    expected = {
        "carol": ("xiangqi", False, {"top": list("123456789"), "bottom": list("九八七六五四三二一"),
                                    "left": None, "right": None}),
        "erin": ("xiangqi", True, {"top": list("一二三四五六七八九"), "bottom": list("987654321"),
                                  "left": None, "right": None}),
        "dave": ("janggi", False, {"top": list("123456789"), "bottom": list("123456789"),
                                   "left": list("1234567890"), "right": list("1234567890")}),
        "alice": ("janggi", True, {"top": list("ihgfedcba"), "bottom": list("ihgfedcba"),
                                   "left": [str(n) for n in range(1, 11)],
                                   "right": [str(n) for n in range(1, 11)]}),
    }
    for user, (game, turned, want) in expected.items():
        mail = (xiangqi if game == "xiangqi" else janggi)[f"{user}@example.org"]
        v = rules.get_variant(game)
        style = READERS[user][1]
        assert edge_labels(v, turned, labels_for(v, style))["top"] == want["top"]
        got = labels_seen(seen(mail, tmp_path, user), v)
        for edge, labels in want.items():
            if labels is not None:
                assert got[edge] == labels, (user, edge, got[edge])
        if want["left"] is None:        # a printed Xiangqi board has no rank numbers
            assert got["left"] != [str(n) for n in range(10, 0, -1)]


def test_the_picture_cache_is_keyed_by_the_labels():
    from pbm.pictures.deferred import Deferred
    from pbm.pictures.view import view_of
    game = rules.Game.new("xiangqi")
    keys = {labels: Deferred(game, turned=False, labels=labels).key for labels in ("coordinates", "chinese")}
    assert keys["coordinates"] != keys["chinese"]
    assert view_of(game, turned=False, labels="chinese") != view_of(game, turned=False)
    assert labels_for(rules.get_variant("janggi"), "chinese") == "coordinates"    # Janggi has no Chinese


def test_a_reader_of_svg_boards_gets_the_same_labels(post):
    post.send("set dave Dave-Secret9 board=svg", sender="dave@example.org")
    post.send("janggi challenge dave alice", sender="dave@example.org")
    mail = move(post, "janggi", "dave", "02마83")["dave@example.org"]
    html = mail.get_body(preferencelist=("html",)).get_content()
    drawn = [label for label in re.findall(r"<text [^>]*>([^<]+)</text>", html)]
    assert drawn[:2 * 9:2] == list("123456789") and "0" in drawn and "a" not in drawn
