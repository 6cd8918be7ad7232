"""pbm.mail.reading: real RFC 5322 bytes, as mail clients and robots send them, decoded into `Incoming`."""
from __future__ import annotations

import base64
from email.message import EmailMessage
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest

from pbm.mail import reading

OWN = "pbm@pbm.test"
HEAD = b"From: Alice <alice@example.org>\r\nTo: pbm@pbm.test\r\nSubject: xiangqi move 101\r\n" \
       b"Message-ID: <m1@example.org>\r\n"


def decode(raw: bytes, **kwargs):
    return reading.decode(reading.parse(raw), raw, OWN, **kwargs)


def test_plain_message_fields() -> None:
    msg = EmailMessage()
    msg["From"] = "Alice Liddell <alice@example.org>"
    msg["To"] = OWN
    msg["Subject"] = "  xiangqi   move\t101 alice  "
    msg["Message-ID"] = "<m1@example.org>"
    msg["In-Reply-To"] = "<r2@pbm.test>"
    msg["References"] = "<root@pbm.test> <r2@pbm.test>"
    msg.set_content("Nice game!\n")

    got = decode(bytes(msg))

    assert (got.sender, got.sender_name, got.message_id) == ("alice@example.org", "Alice Liddell",
                                                             "<m1@example.org>")
    assert got.subject == "xiangqi move 101 alice"
    assert got.body == "Nice game!"
    assert got.references == ("<root@pbm.test>", "<r2@pbm.test>")
    assert got.token is None


def test_quoted_printable_utf8_body() -> None:
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg.set_content("Très bien joué, " + "x" * 100 + "\n", charset="utf-8", cte="quoted-printable")
    raw = bytes(msg)
    assert b"=C3=A8" in raw and b"=\n" in raw          # really QP, with a soft line break

    assert decode(raw).body == "Très bien joué, " + "x" * 100


def test_base64_body() -> None:
    body = "Échec au roi !\n"
    raw = HEAD + b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" \
        + base64.encodebytes(body.encode())
    assert decode(raw).body == "Échec au roi !"


def test_latin1_8bit_body_and_raw_8bit_header() -> None:
    raw = (b"From: J\xe9r\xf4me <jerome@example.org>\r\nSubject: caf\xe9\r\n"
           b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           b"Voil\xe0 mon coup.\r\n")
    got = decode(raw)
    assert (got.sender_name, got.subject, got.body) == ("Jérôme", "café", "Voilà mon coup.")


def test_encoded_word_subject() -> None:
    raw = b"From: alice@example.org\r\nSubject: =?utf-8?q?xiangqi_show_101_=E2=99=9F?=\r\n\r\nhi\r\n"
    assert decode(raw).subject == "xiangqi show 101 \u265f"


@pytest.mark.parametrize("data, text", [
    ("Grüße".encode(), "Grüße"),            # an unknown charset that is really UTF-8
    ("Grüße".encode("latin-1"), "Grüße"),   # ... or really Latin-1
])
def test_unknown_charset_falls_back(data: bytes, text: str) -> None:
    raw = HEAD + b"Content-Type: text/plain; charset=x-no-such-charset\r\n\r\n" + data + b"\r\n"
    assert decode(raw).body == text


def test_html_only_mail_is_read_through_its_text() -> None:
    html = ("<html><head><style>p {color: red}</style></head><body>"
            "<div>h3e3 &amp; a smile</div><div><br></div><div>second line</div>"
            '<div class="gmail_quote">On Mon, 1 Jan 2024, pbm &lt;pbm@pbm.test&gt; wrote:'
            "<blockquote><p>Xiangqi Board 101 alice</p></blockquote></div></body></html>")
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg.set_content(html, subtype="html")
    assert decode(bytes(msg)).body == "h3e3 & a smile\n\nsecond line"


def test_outlook_html_paragraphs_are_lines() -> None:
    html = ('<p class="MsoNormal">first<o:p></o:p></p><p class="MsoNormal">second</p>'
            '<p class="MsoNormal">&nbsp;</p><p>after a blank line</p>')
    assert reading.html_to_text(html) == "first\nsecond\n\nafter a blank line"


def test_alternative_prefers_plain_text() -> None:
    msg = MIMEMultipart("alternative")
    msg["From"] = "alice@example.org"
    msg.attach(MIMEText("the plain words", "plain", "utf-8"))
    msg.attach(MIMEText("<p>the <b>html</b> words</p>", "html", "utf-8"))
    assert decode(msg.as_bytes()).body == "the plain words"


def test_attachments_and_forwarded_mail_are_not_the_comment() -> None:
    forwarded = EmailMessage()
    forwarded["From"] = "carol@example.org"
    forwarded.set_content("text of a forwarded mail")
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg.set_content("my own words")
    msg.add_attachment(b"\x00\x01" * 1000, maintype="application", subtype="octet-stream",
                       filename="game.bin")
    msg.add_attachment("a text file", filename="notes.txt")
    msg.add_attachment(forwarded)                   # message/rfc822
    assert decode(bytes(msg)).body == "my own words"

    only_forward = MIMEMultipart()
    only_forward["From"] = "alice@example.org"
    only_forward.attach(MIMEMessage(forwarded))
    assert decode(only_forward.as_bytes()).body == ""


@pytest.mark.parametrize("raw", [
    # multipart without a boundary parameter
    HEAD + b"Content-Type: multipart/mixed\r\n\r\nsome text\r\n",
    # boundary that never closes, a part with an invalid base64 payload
    HEAD + b'Content-Type: multipart/mixed; boundary="XX"\r\n\r\n--XX\r\n'
           b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
           b"@@@not base64!!\r\n",
    # garbage headers and a content type without a subtype
    b"From: <<<@@@>>>\r\nSubject: =?utf-8?b?broken\r\nContent-Type: text\r\n\r\n\xff\xfe\x00 body\r\n",
    # not even a header
    b"\x00\x01\x02 binary junk \xff",
    b"",
])
def test_broken_mime_never_raises(raw: bytes) -> None:
    msg = reading.parse(raw)
    reading.automatic_reason(msg, "someone@example.org", OWN)
    got = reading.decode(msg, raw, OWN, "someone@example.org")
    got.body.encode("utf-8")                # no lone surrogates left over
    got.subject.encode("utf-8")


def test_broken_multipart_keeps_its_text() -> None:
    raw = HEAD + b"Content-Type: multipart/mixed\r\n\r\nsome text\r\n"
    assert decode(raw).body == "some text"


def test_quoted_text_attribution_and_signature_are_dropped() -> None:
    body = ("e3e4 is my answer\n"
            "\n"
            "On Mon, Jan 1, 2024 at 10:00 AM pbm <\n"
            "pbm@pbm.test> wrote:\n"
            "> Xiangqi Board 101 alice\n"
            ">> older\n"
            "\n"
            "and a word after the quote\n"
            "-- \n"
            "Alice, sent from a phone\n")
    assert reading.strip_quotes(body) == "e3e4 is my answer\n\nand a word after the quote"


@pytest.mark.parametrize("text, kept", [
    ("move\n\nAm 01.01.2024 schrieb pbm:\n> board", "move"),
    ("move\n--\nsignature without its trailing space", "move"),
    ("move\n\n-----Original Message-----\nFrom: pbm\nboard", "move"),
    ("a line ending in wrote: stays when nothing is quoted after it, he wrote:", None),
])
def test_quote_styles(text: str, kept: str | None) -> None:
    assert reading.strip_quotes(text) == (text if kept is None else kept)


@pytest.mark.parametrize("rcpt, headers, token", [
    (["pbm+xiangqi-101-alice-3k9f2q@pbm.test"], b"", "xiangqi-101-alice-3k9f2q"),
    ([], b"To: Game <PBM+Xq-101-Bob@PBM.TEST>\r\n", "Xq-101-Bob"),
    ([], b"To: someone@example.org\r\nCc: pbm+tok@pbm.test\r\n", "tok"),
    ([], b"To: pbm+tok@elsewhere.test\r\n", None),
    ([], b"To: pbmx+tok@pbm.test\r\n", None),
    (["pbm@pbm.test"], b"To: pbm@pbm.test\r\n", None),
])
def test_reply_token(rcpt: list[str], headers: bytes, token: str | None) -> None:
    raw = b"From: bob@example.org\r\n" + headers + b"Subject: Re: Xiangqi Board 101\r\n\r\nh3e3\r\n"
    assert decode(raw, rcpt_tos=rcpt).token == token


def test_missing_message_id_gets_a_stable_synthetic_one() -> None:
    raw = b"From: bob@example.org\r\nSubject: help\r\n\r\n"
    assert decode(raw).message_id == decode(raw).message_id
    assert decode(raw).message_id.startswith("<") and decode(raw).message_id.endswith("@pbm>")
    assert reading.dedup_key(reading.parse(raw), raw).startswith("sha256:")


def test_a_message_without_message_id_is_the_same_whatever_its_line_ends() -> None:
    """A pipe hands a message over with LF, LMTP and SMTP with CRLF: a second delivery by the
    other path must be recognised."""
    lf = b"From: bob@example.org\nSubject: xiangqi move 101 bob pw h10g8\n\nsee you\n"
    crlf = lf.replace(b"\n", b"\r\n")
    keys = {reading.dedup_key(reading.parse(raw), raw) for raw in (lf, crlf, crlf + b"\r\n", lf[:-1])}
    assert len(keys) == 1
    assert decode(lf).message_id == decode(crlf).message_id
    other = lf.replace(b"see you", b"see you soon")
    assert reading.dedup_key(reading.parse(other), other) not in keys


def test_server_addresses() -> None:
    assert reading.is_server_address("pbm@pbm.test", OWN)
    assert reading.is_server_address("PBM+anything@Pbm.Test", OWN)
    assert not reading.is_server_address("alice@pbm.test", OWN)
    assert not reading.is_server_address("pbm@other.test", OWN)
