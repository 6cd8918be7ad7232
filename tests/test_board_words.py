"""The position in words (pbm.commands.mails.piecelist): every board mail's text part lists each
side's pieces with their points in the reader's notation, the picture's alt text says the same, and
`board=list` puts the list in place of the board and the picture."""
from __future__ import annotations

import re

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat, text as body

import rules

pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


def _mail_to(mails, user: str):
    return next(m for m in mails if m["To"] == f"{user}@example.org")


def _listed(text: str) -> str:
    return text.split("The position in words:", 1)[1]


def test_every_board_mail_names_every_piece(post: PostOffice):
    mails = post.move(101, "alice", "h3e3")
    text = flat(_mail_to(mails, "bob"))
    words = _listed(text)
    assert "Red: king e1; advisor d1, f1; elephant c1, g1; horse b1, h1; rook a1, i1; cannon b3, e3;" in words
    assert "Black: king e10;" in words and "soldier a7, c7, e7, g7, i7." in words
    assert "Last move: h3e3 (C2=5)." in words
    assert "It is bob's turn." in words.split("Last move:")[1]
    html = _mail_to(mails, "bob").get_body(("html",)).get_content()
    alt = re.search(r'<img [^>]*alt="([^"]*)"', html)[1]
    assert "Red: king e1;" in alt and "Black: king e10;" in alt
    assert all(len(line) <= 78 for line in body(_mail_to(mails, "bob")).splitlines() if "://" not in line)


def test_board_list_replaces_board_and_picture(post: PostOffice):
    post.send(f"set bob {PASSWORDS['bob']} board=list", sender="bob@example.org")
    mails = post.move(101, "alice", "h3e3")
    mail = _mail_to(mails, "bob")
    text = flat(mail)
    assert "Red: king e1;" in text
    assert "+---" not in text and "|" not in _listed(text)          # no ASCII grid
    assert mail.get_body(("html",)) is None or "<img" not in mail.get_body(("html",)).get_content()
    assert not [part for part in mail.walk() if part.get_content_type() == "image/png"]


def test_in_chinese_and_korean_notation(post: PostOffice):
    post.send(f"set bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    text = flat(_mail_to(post.move(101, "alice", "h3e3"), "bob"))
    # Red's points from Red's side in Chinese numerals, Black's from Black's side in digits
    assert "红方：帅五路第一线；" in text and "炮八路第三线、五路第三线" in text
    assert "黑方：将5路第1线；" in text and "卒1路第4线、3路第4线" in text
    assert "上一步：炮二平五。" in text
    post.send(f"set bob {PASSWORDS['bob']} lang=ko notation=both", sender="bob@example.org")
    text = flat(_mail_to(post.move(101, "bob", "h10g8"), "bob"))
    assert "홍: 궁 e1;" in text and "마지막 수: h10g8 (H8+7)." in text


def test_every_piece_of_random_positions_is_named():
    """Every piece on the board is in the list, once, whatever the variant."""
    from pbm import i18n
    from pbm.commands.mails import piecelist
    for name in ("xiangqi", "janggi", "padwarqi", "giqi"):
        game = rules.Game.new(name)
        for _ in range(12):
            legal = game.legal_moves()
            if not legal:
                break
            game.play(legal[len(legal) // 3])
        with i18n.speaking("en", "coordinates"):
            words = " ".join(piecelist.sides(game))
        points = re.findall(r"\b[a-l](?:1[0-2]|[1-9])\b", words)
        assert len(points) == sum(len(s) for s in game.position.pieces), (name, words)
