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
    text = "".join(body(_mail_to(post.move(101, "alice", "h3e3"), "bob")).split("\n"))  # Chinese wraps anywhere
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


def test_move_times_in_the_readers_zone(post: PostOffice):
    """`movetimes=on`: each move's time in the reader's zone and how long it took; `status` always."""
    post.move(101, "alice", "h3e3")
    post.tick(1 + 4 / 24)                       # bob thinks a day and four hours
    post.send(f"set bob {PASSWORDS['bob']} movetimes=on tz=asia/seoul", sender="bob@example.org")
    mails = post.move(101, "bob", "h10g8")
    lines = body(_mail_to(mails, "bob")).splitlines()
    heading = lines.index("Moves, with when each was made (Asia/Seoul) and how long it took:")
    first, second = lines[heading + 1:heading + 3]
    played = [row[0] for row in post.db.execute("SELECT played_at FROM moves ORDER BY ply")]
    from datetime import datetime
    from zoneinfo import ZoneInfo
    seoul = [datetime.fromisoformat(p).astimezone(ZoneInfo("Asia/Seoul")).strftime("%Y-%m-%d %H:%M")
             for p in played]
    assert first.split()[:4] == ["1.", "alice", "h3e3", "C2=5"] and seoul[0] in first
    assert second.split()[:4] == ["2.", "bob", "h10g8", "H8+7"] and seoul[1] in second
    assert second.endswith("1 d 4 h")
    assert "Moves, with when each was made" not in body(_mail_to(mails, "alice"))   # alice: off
    status = body(post.send("xiangqi status 101", sender="alice@example.org")[0])
    assert "Moves, with when each was made (UTC) and how long it took:" in status
    assert f"{played[1][:16]}  1 d 4 h" in status


def test_a_wrong_zone_is_refused_with_the_right_form(post: PostOffice):
    reply = flat(post.send(f"set bob {PASSWORDS['bob']} tz=Mars/Olympus", sender="bob@example.org")[0])
    assert "tz=Mars/Olympus is not a preference" in reply and "tz=UTC|Area/City" in reply


def test_deadline_in_the_calendar_updated_and_cancelled(tmp_path):
    """The player to move gets an iCalendar event at their deadline; the next mail moves it (same
    UID, higher SEQUENCE); the player who moved gets it cancelled; calendar=off leaves it out."""
    import icalendar
    from datetime import datetime
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.challenge(extra="--clock=3+1")
    post.move(101, "alice", "h3e3")

    def event(mail):
        parts = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
        assert len(parts) == 1 and parts[0].get_param("method") == "PUBLISH"
        calendar = icalendar.Calendar.from_ical(parts[0].get_content())
        assert calendar["METHOD"] == "PUBLISH"
        [item] = calendar.walk("VEVENT")
        return item

    def deadline():
        return datetime.fromisoformat(post.db.execute("SELECT deadline FROM games").fetchone()[0])

    mails = post.move(101, "bob", "h10g8")
    alices, bobs = event(_mail_to(mails, "alice")), event(_mail_to(mails, "bob"))
    assert alices["STATUS"] == "CONFIRMED" and alices.decoded("DTSTART") == deadline()
    assert str(alices["UID"]) == "xiangqi-101-alice@pbm.test" and bobs["STATUS"] == "CANCELLED"
    post.tick(0.5)
    mails = post.move(101, "alice", "h1g3")         # alice moved: her event cancelled, later
    again = event(_mail_to(mails, "alice"))
    assert again["UID"] == alices["UID"] and again["SEQUENCE"] > alices["SEQUENCE"]
    assert again["STATUS"] == "CANCELLED"
    bobs = event(_mail_to(mails, "bob"))
    assert bobs["STATUS"] == "CONFIRMED" and bobs.decoded("DTSTART") == deadline()
    post.send(f"set alice {PASSWORDS['alice']} calendar=off")
    mails = post.move(101, "bob", "b10c8")
    assert not [p for p in _mail_to(mails, "alice").walk() if p.get_content_type() == "text/calendar"]
