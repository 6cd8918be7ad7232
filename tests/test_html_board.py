"""The drawn board as a reader sees it: a board mail is multipart/alternative, the pbmserv text
unchanged and multipart/related holding the HTML part and the board as an inline PNG.

A real browser (Debian's headless Chromium) renders the HTML part as a mail client does: the PNG is
saved beside the page and the `cid:` source rewritten to its file name (what a client does with a
Content-ID), and every <svg> element is cut out first, as Gmail and Outlook drop them, so the board
seen can only come from the PNG.  The test then finds the picture in the screenshot (its top left
corner is the first pixel of wood) and reads its pixels against the position's FEN
(support.board_pixels): every point's piece and side, promoted faces, the last move, the check ring
and mate badge, Gi-Qi-Game's hands; a wrong position fails the same reading."""
from __future__ import annotations

import io
import re
from html import unescape

import pytest
from PIL import Image
from support.board_pixels import (
    CHECKS,
    MATES,
    check_board,
    check_hands,
    hands,
    king_marks,
    placement,
    played,
)
from support.browser import screenshot
from support.postoffice import PASSWORDS, PostOffice, text

import rules
from pbm.pictures import drawing as board_pictures
from pbm.pictures import deferred
from rules import board_svg

WOOD = tuple(int(board_svg.BOARD[i:i + 2], 16) for i in (1, 3, 5))

pytestmark = [pytest.mark.slow,      # a browser
              pytest.mark.post_office("alice", "bob")]


def alternative(mail):
    """The multipart/alternative of a board mail (inside multipart/mixed when the PGN is attached)."""
    found = [part for part in mail.walk() if part.get_content_type() == "multipart/alternative"]
    assert len(found) == 1, mail.get_content_type()
    return found[0]


def page_as_a_client_shows_it(mail, folder, name: str) -> tuple[str, Image.Image]:
    """The HTML part with its inline PNG saved beside it and the cid: source pointing at it, every
    <svg> cut out (as Gmail does); and the PNG as the mail carries it."""
    plain, related, *_calendar = alternative(mail).get_payload()     # and a deadline, where one is due
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html_part, png = related.get_payload()
    assert html_part.get_content_type() == "text/html" and png.get_content_type() == "image/png"
    assert png["Content-Disposition"].startswith("inline")
    html, content_id = html_part.get_content(), png["Content-ID"].strip("<>")
    assert "<script" not in html.lower() and "<svg" not in html.lower()
    image = Image.open(io.BytesIO(png.get_content()))
    img = re.search(r'<img src="cid:([^"]+)" width="(\d+)" height="(\d+)" alt="([^"]+)"', html)
    assert img and img[1] == content_id and (int(img[2]), int(img[3])) == image.size
    assert image.width >= 300 and image.height >= 300 and len(png.get_content()) <= 60_000
    (folder / f"{name}.png-part").write_bytes(png.get_content())
    html = html.replace(f"cid:{content_id}", f"{name}.png-part")
    return re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S | re.I), image.convert("RGB")


def seen(mail, folder, name: str) -> Image.Image:
    """The board picture as Chromium shows the mail's HTML part: cut out of the screenshot."""
    html, picture = page_as_a_client_shows_it(mail, folder, name)
    shot = screenshot(html, folder, name)
    corner = next((x, y) for y in range(shot.height) for x in range(shot.width)
                  if shot.getpixel((x, y)) == WOOD)
    crop = shot.crop((*corner, corner[0] + picture.width, corner[1] + picture.height))
    assert crop.size == picture.size
    return crop


def mails_of(post: PostOffice, variant: str, fen: str, move: str) -> dict[str, object]:
    """The board mails of `move` played by alice from `fen` (alice plays the side to move)."""
    new = post.send(f"{variant} challenge -fen={fen.replace(' ', '_')} alice bob")
    number = re.search(r"Board (\d+)", new[0]["Subject"])[1]
    mails = post.send(f"{variant} move {number} alice {PASSWORDS['alice']} {move}")
    return {m["To"].partition("@")[0]: m for m in mails}


@pytest.mark.parametrize("variant", sorted(MATES))
def test_a_board_mail_shows_the_board_without_svg_in_a_real_browser(post, tmp_path, variant):
    for positions, readers, marks in ((CHECKS, ("bob",), (True, False)),
                                      (MATES, ("alice", "bob"), (True, True))):
        fen, move = positions[variant]
        game = played(variant, fen, move)
        mails = mails_of(post, variant, fen, move)
        for user in readers:
            turned = (user == "alice") == (fen.split()[1] == "b")
            mail = mails[user]
            assert game.board(turned) in text(mail)             # the pbmserv board, unchanged
            image = seen(mail, tmp_path, f"{variant}-{user}-{marks[1]}")
            check_board(image, game, turned)
            pos = game.position
            assert king_marks(image, game, turned, pos.kings[pos.side]) == marks
            assert king_marks(image, game, turned, pos.kings[1 - pos.side]) == (False, False)
            if variant == "giqi":
                check_hands(image, game, turned)


def test_giqi_mails_show_promotions_and_hands_in_the_picture_and_as_text(post, tmp_path):
    fen, move = MATES["giqi"]
    game = played("giqi", fen, move)
    assert any(letter.startswith("+") for letter in placement(game.fen(), 9).values())
    assert hands(game.fen()) != ("", "")
    mail = mails_of(post, "giqi", fen, move)["bob"]
    html = unescape(alternative(mail).get_payload()[1].get_payload()[0].get_content())
    for line in rules.board_ascii.hand_lines(game.position):      # "In Black's hand: B"
        assert line in text(mail) and f"<p style=\"margin:0 0 4px 0\">{line}</p>" in html
    image = seen(mail, tmp_path, "giqi")
    check_board(image, game, False)                 # the promoted piece's inverted face among them
    check_hands(image, game, False)


def test_a_wrong_position_is_caught(post, tmp_path):
    """The pixel reading is no formality: the mail of one position does not pass for another."""
    fen, move = CHECKS["xiangqi"]
    image = seen(mails_of(post, "xiangqi", fen, move)["bob"], tmp_path, "one")
    check_board(image, played("xiangqi", fen, move), False)
    with pytest.raises(AssertionError):
        check_board(image, played("xiangqi", fen, "a7a6"), False)
    with pytest.raises(AssertionError):
        check_board(image, played("xiangqi", fen, move), True)


def test_padwarqi_korean_is_said(post):
    for mail in post.send("padwarqi challenge -korean alice bob"):
        assert "Played with -korean." in text(mail)


def test_board_preferences_off_and_svg(post):
    post.send(f"set alice {PASSWORDS['alice']} board=off")
    post.send(f"set bob {PASSWORDS['bob']} board=svg", sender="bob@example.org")
    mails = {m["To"]: m for m in post.send("xiangqi challenge alice bob")}
    assert mails["alice@example.org"].get_content_type() == "text/plain"
    bob = alternative(mails["bob@example.org"])
    plain, html = bob.get_payload()
    assert html.get_content_type() == "text/html" and "<svg" in html.get_content()
    assert not [part for part in mails["bob@example.org"].walk() if part.get_content_maintype() == "image"]


def test_readers_who_see_the_same_side_share_one_picture(post, monkeypatch):
    monkeypatch.setattr(deferred, "_done", deferred.OrderedDict())   # no view's picture kept yet
    post.signup("carol")
    post.send("xiangqi challenge alice bob")
    post.send(f"xiangqi subscribe 101 carol {PASSWORDS['carol']}", sender="carol@example.org")
    board_pictures.cached_draw.cache_clear()        # (earlier tests in this process drew boards)
    drawn = board_pictures.cached_draw.cache_info().misses
    mails = {m["To"].partition("@")[0]: m for m in post.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")}
    assert board_pictures.cached_draw.cache_info().misses - drawn == 2       # one per side seen
    pictures = {user: [part for part in mail.walk() if part.get_content_type() == "image/png"]
                for user, mail in mails.items()}
    assert {user: len(found) for user, found in pictures.items()} == {"alice": 1, "bob": 1, "carol": 1}
    alice, bob, carol = (pictures[user][0] for user in ("alice", "bob", "carol"))
    assert alice["Content-ID"] == carol["Content-ID"] and alice.get_content() == carol.get_content()
    assert bob["Content-ID"] != alice["Content-ID"]            # bob sees the board turned
