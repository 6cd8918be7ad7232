"""The bytes of a reply, as `render` writes them (headers without the email generator):
RFC 5322 line lengths and folding, RFC 2047 words for what is not ASCII, CRLF line ends -- checked
by parsing them back with the `email` package, as a mail client would."""
from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from email import message_from_bytes, policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.config import load_config
from pbm.mail.messages import Outgoing
from pbm.outbox import render as rendering

NOW = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)
CONFIG = load_config(None)


def render(out: Outgoing, name: str = "pbm") -> bytes:
    config = dataclasses.replace(CONFIG, server=dataclasses.replace(CONFIG.server, name=name))
    return rendering.render(config, out, NOW)[1]


def header_lines(raw: bytes) -> list[bytes]:
    return raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")


def test_a_plain_reply() -> None:
    out = Outgoing(to="bob@example.org", subject="Xiangqi Board 101 bob", body="one\ntwo\n",
                   in_reply_to="<a@example.org>", references=("<xiangqi-101@pbm.test>",),
                   reply_to="pbm+xiangqi-101-bob-abcdefgh@localhost", auto_submitted="auto-generated")
    raw = render(out)
    head, body = raw.split(b"\r\n\r\n", 1)
    assert body == b"one\r\ntwo\r\n"
    assert b"\n" not in head.replace(b"\r\n", b"")
    # the recipient's own lines first: the rest is what copies of a mail share (pbm.outbox.queue)
    assert head.startswith(b"To: bob@example.org\r\nMessage-ID: <20240301120000.")
    assert b"\r\nFrom: pbm <pbm@localhost>\r\nSubject: Xiangqi Board 101 bob\r\n" \
        b"Date: Fri, 01 Mar 2024 12:00:00 +0000\r\n" in head
    mail = message_from_bytes(raw, policy=policy.default)
    assert mail["References"] == "<xiangqi-101@pbm.test> <a@example.org>"
    assert mail["In-Reply-To"] == "<a@example.org>"
    assert mail["Auto-Submitted"] == "auto-generated"
    assert mail["X-Auto-Response-Suppress"] == "All"
    assert mail["Content-Type"] == 'text/plain; charset="us-ascii"'
    assert mail["Content-Transfer-Encoding"] == "7bit"


def test_long_headers_are_folded_and_other_scripts_encoded() -> None:
    subject = "Xiangqi Board 101 bob ** " + "a comment that goes on " * 6 + "象棋"
    out = Outgoing(to="bob@example.org", subject=subject, body="Zug: 炮二平五\n")
    raw = render(out, name="Schachklub Zürich")
    assert all(len(line) <= 78 for line in header_lines(raw))
    assert raw.isascii()
    mail = message_from_bytes(raw, policy=policy.default)
    assert mail["Subject"] == subject
    assert mail["From"].addresses[0].display_name == "Schachklub Zürich"
    assert mail["From"].addresses[0].addr_spec == "pbm@localhost"
    assert mail["Content-Transfer-Encoding"] == "quoted-printable"
    assert mail.get_content() == "Zug: 炮二平五\r\n"


def test_a_line_break_in_a_header_is_refused() -> None:
    with pytest.raises(ValueError, match="Subject"):
        render(Outgoing(to="bob@example.org", subject="Board 101\r\nBcc: eve@example.org", body=""))


words = st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Zs"]), min_size=1,
                max_size=90).filter(lambda s: s.strip(" ") == s and "  " not in s)


@settings(max_examples=200, deadline=None)
@given(subject=words, name=words.filter(str.isalnum), body=st.text(max_size=400))
def test_any_reply_reads_back_as_written(subject: str, name: str, body: str) -> None:
    raw = render(Outgoing(to="bob@example.org", subject=subject, body=body), name=name)
    assert raw.isascii()
    assert b"\n" not in raw.replace(b"\r\n", b"") and b"\r" not in raw.replace(b"\r\n", b"")
    assert all(len(line) <= 998 for line in raw.split(b"\r\n"))
    mail = message_from_bytes(raw, policy=policy.default)
    assert mail["Subject"] == subject
    assert mail["From"].addresses[0].display_name == name
    lines = body.replace("\r\n", "\n").replace("\r", "\n")
    assert mail.get_content().replace("\r\n", "\n") == lines


def test_a_picture_beside_the_html_part() -> None:
    """multipart/alternative(text, multipart/related(html, png)): the picture inline, by its
    Content-ID, in base64 lines of 76; the text part first, unchanged."""
    png = bytes(range(256)) * 40
    out = Outgoing(to="bob@example.org", subject="Xiangqi Board 101 bob", body="the board\n",
                   html='<p><img src="cid:board-1@pbm.test"></p>',
                   related=(("board-1@pbm.test", "image/png", png),))
    raw = render(out)
    assert raw.isascii() and all(len(line) <= 78 for line in raw.split(b"\r\n"))
    mail = message_from_bytes(raw, policy=policy.default)
    plain, related = mail.get_payload()
    assert mail.get_content_type() == "multipart/alternative" and plain.get_content().splitlines() == ["the board"]
    assert related.get_content_type() == "multipart/related" and related.get_param("type") == "text/html"
    html, picture = related.get_payload()
    assert html.get_content() == '<p><img src="cid:board-1@pbm.test"></p>'
    assert picture.get_content_type() == "image/png" and picture["Content-ID"] == "<board-1@pbm.test>"
    assert picture.get_content_disposition() == "inline" and picture.get_content() == png
