"""The drawn board: a board mail is multipart/alternative, the pbmserv text unchanged and
an HTML part with the board drawn as SVG.  A real browser (Debian's headless Chromium) renders the
HTML into a PNG, and the test reads the pixels: the picture has the board's size, and at every point
of the position's FEN there is a piece of the right colour (its ring), or bare board where the FEN
has none; the last move's points are marked; the second player's board is turned.  The points are
found from the picture itself (the board's wood colour gives its frame) and the geometry constants
of rules.board_svg."""
from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest
from support.browser import screenshot
from support.postoffice import PASSWORDS, PostOffice, text

import rules
from rules import board_svg

WOOD = (0xF0, 0xD9, 0xA0)

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def near(pixel, colour, tolerance=40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def pieces_of(fen: str, height: int) -> dict[tuple[int, int], str]:
    """(file, rank) -> FEN letter, read from the FEN's placement (rank 1 is the last row)."""
    found = {}
    for row, text_row in enumerate(fen.split()[0].split("/")):
        rank, file = height - 1 - row, 0
        number = ""
        for char in text_row + " ":
            if char.isdigit():
                number += char
                continue
            if number:
                file, number = file + int(number), ""
            if char.isalpha():
                found[(file, rank)] = char
                file += 1
    return found


def check_board(image, variant: rules.Game, turned: bool, last: tuple[str, str]) -> None:
    v = variant.variant
    wood = [(x, y) for y in range(image.height) for x in range(0, image.width, 2)
            if image.getpixel((x, y)) == WOOD]
    assert wood, "no board in the picture"
    left, top = min(x for x, _ in wood), min(y for _, y in wood)
    right = max(x for x, _ in wood)
    width, height = board_svg.size(v)
    scale = (right - left + 2) / width
    assert 0.9 < scale < 1.1, f"the board is {right - left}px wide, expected about {width}"
    occupied = pieces_of(variant.fen(), v.height)
    for file in range(v.width):
        for rank in range(v.height):
            column, row = (v.width - 1 - file, rank) if turned else (file, v.height - 1 - rank)
            cx, cy = board_svg.centre(v, column, row)
            x, y = left + cx * scale, top + cy * scale
            letter = occupied.get((file, rank))
            where = f"{chr(97 + file)}{rank + 1}"
            if letter is None:              # off every line (the diagonals too), inside a piece's face
                bare = image.getpixel((round(x + 11 * scale), round(y + 7 * scale)))
                assert near(bare, WOOD, 12), f"{where}: expected bare board, found {bare}"
                continue
            face = image.getpixel((round(x + 11.5 * scale), round(y + 2 * scale)))   # beside the glyph
            assert near(face, hex_rgb(board_svg.PIECE), 30), f"{where}: expected a piece, found {face}"
            colour = hex_rgb(v.colours[0 if letter.isupper() else 1])
            rings = [image.getpixel((round(x + dx * board_svg.RADIUS * scale), round(y + dy * board_svg.RADIUS * scale)))
                     for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            assert sum(near(p, colour, 60) for p in rings) >= 3, f"{where}: {letter} ring is {rings}"
    for square in last:
        file, rank = ord(square[0]) - 97, int(square[1:]) - 1
        column, row = (v.width - 1 - file, rank) if turned else (file, v.height - 1 - rank)
        cx, cy = board_svg.centre(v, column, row)
        edge = image.getpixel((round(left + (cx + 19) * scale), round(top + (cy + 12) * scale)))
        assert near(edge, hex_rgb(board_svg.MARK), 60), f"{square}: no last-move mark, found {edge}"


def html_part(mail) -> str:
    assert mail.get_content_type() == "multipart/alternative"
    plain, html = mail.get_body(preferencelist=("plain",)), mail.get_body(preferencelist=("html",))
    assert plain.get_content_type() == "text/plain" and html.get_content_type() == "text/html"
    body = html.get_content()
    assert "<script" not in body.lower() and "src=" not in body.lower()      # nothing remote
    return body


@pytest.mark.parametrize("variant, moves", [("xiangqi", ("h3e3", "h10g8")), ("janggi", ("b1c3", "h10g8")),
                                            ("padwarqi", ("a4a5", "i7i6")), ("giqi", ("a3a4", "i7i6"))])
def test_a_board_mail_draws_the_position_in_a_real_browser(tmp_path, variant, moves):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send(f"{variant} challenge alice bob")
    post.send(f"{variant} move 101 alice {PASSWORDS['alice']} {moves[0]}")
    mails = {m["To"]: m for m in post.send(f"{variant} move 101 bob {PASSWORDS['bob']} {moves[1]}",
                                           sender="bob@example.org")}
    game = rules.Game.new(variant)
    for move in moves:
        game.play(move)
    last = tuple(board_svg._SQUARE.findall(moves[1]))
    for user, turned in (("alice", False), ("bob", True)):
        mail = mails[f"{user}@example.org"]
        assert game.board(turned) in text(mail)             # the pbmserv board, unchanged
        image = screenshot(html_part(mail), tmp_path, user)
        assert image.width == 480 and image.height == 1800
        check_board(image, game, turned, last)


def test_a_wrong_picture_is_caught(tmp_path):
    """The pixel check is no formality: the board of one position does not pass for another."""
    game = rules.Game.new("xiangqi")
    game.play("h3e3")
    image = screenshot(f"<html><body>{game.board_svg()}</body></html>", tmp_path, "one")
    other = rules.Game.new("xiangqi")
    other.play("b3e3")
    with pytest.raises(AssertionError):
        check_board(image, other, False, ("b3", "e3"))
    check_board(image, game, False, ("h3", "e3"))


def test_players_who_want_no_board_get_plain_text(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send(f"set alice {PASSWORDS['alice']} board=off")
    mails = {m["To"]: m for m in post.send("xiangqi challenge alice bob")}
    assert mails["alice@example.org"].get_content_type() == "text/plain"
    assert mails["bob@example.org"].get_content_type() == "multipart/alternative"
    raw = BytesParser(policy=policy.default).parsebytes(mails["bob@example.org"].as_bytes())
    assert raw.get_body(preferencelist=("html",)) is not None
