"""A reply as bytes: the header block and MIME parts of one `Outgoing`, written directly."""
from __future__ import annotations

import binascii
import re
import secrets
from datetime import datetime, timezone
from email.charset import QP, Charset
from email.header import Header
from email.utils import format_datetime, formataddr

from pbm.config import Config
from pbm.mail.messages import Outgoing


def render(config: Config, out: Outgoing, now: datetime) -> tuple[str, bytes]:
    """The complete message for one reply: (Message-ID, bytes with CRLF line ends).

    The header block is written directly, not through `email.message.Message` and its generator:
    a move command renders two or more replies inside the write transaction, and folding every
    header through `email.header.Header` cost about a millisecond per reply.  A header that needs
    no folding or encoding (short, printable ASCII: nearly all of them) is written as it is; any
    other is folded (and encoded) by `email.header.Header`.
    """
    # the kind of a game mail rides in its Message-ID, so that a reply says what it answers; the
    # unique part comes from `secrets`, not from `email.utils.make_msgid`, whose `random` any
    # library (or a test framework) may seed, which made two replies share a Message-ID
    message_id = (f"<{now.strftime('%Y%m%d%H%M%S')}.{secrets.token_hex(12)}."
                  f"{'pbm-' + out.kind if out.kind else 'pbm'}@{config.server.address.rpartition('@')[2]}>")
    # a Message-ID past MAX_REFERENCE is not quoted: it cannot be folded, and a strict relay
    # refuses a header line over 998 characters (RFC 5322 2.1.1)
    in_reply_to = out.in_reply_to if out.in_reply_to and len(out.in_reply_to) <= MAX_REFERENCE else None
    references = [reference for reference in out.references if len(reference) <= MAX_REFERENCE]
    if in_reply_to and in_reply_to not in references:
        references.append(in_reply_to)
    headers = {
        "From": formataddr((config.server.name, config.server.address), charset="utf-8"),
        "To": out.to,
        "Subject": out.subject,
        "Date": format_datetime(now.astimezone(timezone.utc)),
        "Message-ID": message_id,
        "In-Reply-To": in_reply_to,
        "References": " ".join(references),
        "Reply-To": out.reply_to,
        "Auto-Submitted": out.auto_submitted,
        "X-Auto-Response-Suppress": "All",      # asks Exchange & co. for no out-of-office replies
        **out.headers,
    }
    lines = [_header_line(name, value) for name, value in headers.items() if value]
    international = not out.to.isascii()    # RFC 6532: the header holds UTF-8, sent with SMTPUTF8
    alternatives = [_text_part(out.body, "plain")]
    if out.html:        # the same mail drawn: a client shows the last part it can (RFC 2046 5.1.4)
        html = _html_part(out.html)
        if out.related:     # the pictures the HTML shows by cid: beside it (RFC 2387)
            html = _multipart("related", [html, *(_inline_part(*part) for part in out.related)],
                              'type="text/html"')
        alternatives.append(html)
    if out.calendar:    # a deadline, the last alternative, as calendar invitations carry it
        alternatives.append(_calendar_part(out.calendar))
    part_headers, body = alternatives[0] if len(alternatives) == 1 else _multipart("alternative", alternatives)
    if out.attachments:
        part_headers, body = _multipart("mixed", [(part_headers, body), *(
            _text_part(data, "plain", filename) if isinstance(data, str) else _file_part(filename, data, *media)
            for filename, data, *media in out.attachments)])
    lines += ["MIME-Version: 1.0", *part_headers]
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")
    text = "\r\n".join(lines) + "\r\n\r\n" + body
    return message_id, text.encode("utf-8" if international else "ascii")


def _text_part(text: str, subtype: str, filename: str = "") -> tuple[list[str], str]:
    """(headers, encoded body) of a text part: 7-bit as it is where it can be, else quoted-printable
    UTF-8, readable in any mail client and safe on any relay."""
    headers = []
    if text.isascii() and max(map(len, text.splitlines()), default=0) <= 998:
        headers += [f'Content-Type: text/{subtype}; charset="us-ascii"', "Content-Transfer-Encoding: 7bit"]
    else:
        headers += [f'Content-Type: text/{subtype}; charset="utf-8"',
                    "Content-Transfer-Encoding: quoted-printable"]
        text = _UTF8_QUOTED_PRINTABLE.body_encode(text)
    if filename:
        headers[0] += f'; name="{filename}"'
        headers.append(f'Content-Disposition: attachment; filename="{filename}"')
    return headers, text


def _calendar_part(ical: str) -> tuple[list[str], str]:
    """An iCalendar object (RFC 5545) as the last alternative of the mail, as calendar invitations
    carry it (RFC 6047): `text/calendar` with its method; mail clients show the text or HTML and
    offer the event to the calendar."""
    headers, text = _text_part(ical, "calendar")
    headers[0] = headers[0].replace("text/calendar;", "text/calendar; method=PUBLISH;", 1)
    return headers, text


def _file_part(filename: str, data: bytes, media: str = "application/octet-stream") -> tuple[list[str], str]:
    """An attachment whose bytes must arrive as they are (a `.gib` in CP949, a Chinese PGN in GBK,
    which the programs read): base64, saved byte for byte by any mail client; `media` its
    Content-Type with the charset."""
    return [f'Content-Type: {media}; name="{filename}"', "Content-Transfer-Encoding: base64",
            f'Content-Disposition: attachment; filename="{filename}"'], _base64(data)


def _html_part(html: str) -> tuple[list[str], str]:
    """The HTML part, in base64: nobody reads it raw, and quoted-printable's pure-Python encoder
    took half a millisecond for a board with its characters (base64's is C)."""
    return ['Content-Type: text/html; charset="utf-8"', "Content-Transfer-Encoding: base64"], \
        _base64(html.encode("utf-8"))


def _inline_part(content_id: str, mime_type: str, data: bytes | str) -> tuple[list[str], str]:
    """A picture the HTML part shows as `cid:CONTENT_ID`, shown inline rather than attached.  Its
    `data` may be a line that stands for it until the mail is sent (pbm.pictures.deferred)."""
    name = f"{content_id.partition('@')[0]}.{mime_type.rpartition('/')[2]}"
    return [f'Content-Type: {mime_type}; name="{name}"', "Content-Transfer-Encoding: base64",
            f"Content-ID: <{content_id}>", f'Content-Disposition: inline; filename="{name}"'], \
        data if isinstance(data, str) else _base64(data)


def _base64(data: bytes) -> str:
    text = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))    # RFC 2045's line length


def _multipart(subtype: str, parts: list[tuple[list[str], str]], parameters: str = "") -> tuple[list[str], str]:
    boundary = f"=_pbm_{secrets.token_hex(12)}"     # never inside a 7-bit, QP or base64 part's lines
    # the line break before a boundary belongs to the boundary (RFC 2046 5.1.1): one more keeps
    # the part's own last line break
    body = "".join(f"--{boundary}\n" + "\n".join(headers) + "\n\n" + text.rstrip("\n") + "\n\n"
                   for headers, text in parts)
    header = [f'Content-Type: multipart/{subtype}; boundary="{boundary}"']
    if parameters:      # on a line of its own (folded), within 78 columns
        header = [header[0] + ";", f" {parameters}"]
    return header, body + f"--{boundary}--\n"


def _header_line(name: str, value: str) -> str:
    """`Name: value`, folded (and RFC 2047-encoded if not ASCII) only where that is needed."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"line break in the {name} header of a reply")
    if name in ("To", "Reply-To") and not value.isascii():
        return f"{name}: {value}"       # an address is never RFC 2047-encoded (RFC 6532 instead)
    if len(name) + 2 + len(value) <= _MAX_LINE and _UNFOLDED.fullmatch(value):
        return f"{name}: {value}"
    encode = not value.isascii() and name not in ("To", "Reply-To")   # addresses stay whole
    header = Header(value, "utf-8" if encode else None, header_name=name)
    line = f"{name}: " + header.encode(linesep="\r\n", maxlinelen=_MAX_LINE)
    if name not in ("To", "Reply-To") and max(map(len, line.split("\r\n"))) > MAX_HEADER_LINE:
        # a word too long to fold: as encoded words, which may be cut anywhere (RFC 2047)
        line = f"{name}: " + Header(value, "utf-8", header_name=name).encode(linesep="\r\n",
                                                                           maxlinelen=_MAX_LINE)
    return line


_MAX_LINE = 78                          # RFC 5322's recommended limit, as the email package folds
MAX_HEADER_LINE = 998                   # RFC 5322's hard limit
MAX_REFERENCE = 250                     # the longest Message-ID quoted in In-Reply-To, References
_UNFOLDED = re.compile(r"[!-~]+(?: [!-~]+)*")   # printable ASCII words, single spaces between
_UTF8_QUOTED_PRINTABLE = Charset("utf-8")
_UTF8_QUOTED_PRINTABLE.body_encoding = QP     # readable in any mail client, safe on any relay
