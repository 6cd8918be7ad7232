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
    """The complete message for one reply: (Message-ID, bytes with CRLF line ends)."""
    message_id, own = envelope(config, out, now)
    return message_id, own + shared(config, out, now)


def envelope(config: Config, out: Outgoing, now: datetime) -> tuple[str, bytes]:
    """(Message-ID, the header lines of `out` that are its recipient's alone: To, Message-ID, the
    one-click unsubscribe that names them): what a copy of a mail adds to the part it shares with
    the other copies (`shared`), the same for every recipient of the same mail."""
    # the kind of a game mail rides in its Message-ID, so that a reply says what it answers; the
    # unique part comes from `secrets`, not from `email.utils.make_msgid`, whose `random` any
    # library (or a test framework) may seed, which made two replies share a Message-ID
    message_id = (f"<{now.strftime('%Y%m%d%H%M%S')}.{secrets.token_hex(12)}."
                  f"{'pbm-' + out.kind if out.kind else 'pbm'}@{config.server.address.rpartition('@')[2]}>")
    headers = {"To": out.to, "Message-ID": message_id,
               **{name: value for name, value in out.headers.items() if name in OWN}}
    lines = [_header_line(name, value) for name, value in headers.items() if value]
    # RFC 6532: a header may hold UTF-8 (an address), sent with SMTPUTF8
    return message_id, ("\r\n".join(lines) + "\r\n").encode("ascii" if out.to.isascii() else "utf-8")


# The headers of a reply that name its recipient; every other one is the same in every copy.
OWN = frozenset({"To", "Message-ID", "List-Unsubscribe", "List-Unsubscribe-Post"})


def shared(config: Config, out: Outgoing, now: datetime) -> bytes:
    """The message of `out` after its `envelope`: the header block but the recipient's own lines,
    then its MIME parts; CRLF line ends.

    The header block is written directly, not through `email.message.Message` and its generator:
    a move command renders two or more replies inside the write transaction, and folding every
    header through `email.header.Header` cost about a millisecond per reply.  A header that needs
    no folding or encoding (short, printable ASCII: nearly all of them) is written as it is; any
    other is folded (and encoded) by `email.header.Header`.
    """
    # a Message-ID past MAX_REFERENCE is not quoted: it cannot be folded, and a strict relay
    # refuses a header line over 998 characters (RFC 5322 2.1.1)
    in_reply_to = out.in_reply_to if out.in_reply_to and len(out.in_reply_to) <= MAX_REFERENCE else None
    references = [reference for reference in out.references if len(reference) <= MAX_REFERENCE]
    if in_reply_to and in_reply_to not in references:
        references.append(in_reply_to)
    headers = {
        "From": formataddr((config.server.name, config.server.address), charset="utf-8"),
        "Subject": out.subject,
        "Date": format_datetime(now.astimezone(timezone.utc)),
        "In-Reply-To": in_reply_to,
        "References": " ".join(references),
        "Reply-To": out.reply_to,
        "Auto-Submitted": out.auto_submitted,
        "X-Auto-Response-Suppress": "All",      # asks Exchange & co. for no out-of-office replies
        **{name: value for name, value in out.headers.items() if name not in OWN},
    }
    lines = [_header_line(name, value) for name, value in headers.items() if value]
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
    return text.encode("ascii" if out.reply_to is None or out.reply_to.isascii() else "utf-8")


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
    if _UNFOLDED.fullmatch(value):
        if len(name) + 2 + len(value) <= _MAX_LINE:
            return f"{name}: {value}"
        folded = _folded(f"{name}: {value}")
        if folded:
            return folded
    encode = not value.isascii() and name not in ("To", "Reply-To")   # addresses stay whole
    header = Header(value, "utf-8" if encode else None, header_name=name)
    line = f"{name}: " + header.encode(linesep="\r\n", maxlinelen=_MAX_LINE)
    if name not in ("To", "Reply-To") and max(map(len, line.split("\r\n"))) > MAX_HEADER_LINE:
        # a word too long to fold: as encoded words, which may be cut anywhere (RFC 2047)
        line = f"{name}: " + Header(value, "utf-8", header_name=name).encode(linesep="\r\n",
                                                                           maxlinelen=_MAX_LINE)
    return line


def _folded(line: str) -> str | None:
    """A line of printable ASCII words folded at its spaces, each part within _MAX_LINE where its
    words allow (a List-Unsubscribe's two URIs, long References): what `email.header.Header` does,
    at a tenth of its cost.  None if a word is past MAX_HEADER_LINE."""
    parts = [""]
    for word in line.split(" "):
        if len(word) >= MAX_HEADER_LINE:
            return None
        if not parts[-1]:
            parts[-1] = word
        elif len(parts[-1]) + 1 + len(word) <= _MAX_LINE:
            parts[-1] += " " + word
        else:
            parts.append(" " + word)
    return "\r\n".join(parts)


_MAX_LINE = 78                          # RFC 5322's recommended limit, as the email package folds
MAX_HEADER_LINE = 998                   # RFC 5322's hard limit
MAX_REFERENCE = 250                     # the longest Message-ID quoted in In-Reply-To, References
_UNFOLDED = re.compile(r"[!-~]+(?: [!-~]+)*")   # printable ASCII words, single spaces between
_UTF8_QUOTED_PRINTABLE = Charset("utf-8")
_UTF8_QUOTED_PRINTABLE.body_encoding = QP     # readable in any mail client, safe on any relay
