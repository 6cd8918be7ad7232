"""Reading one inbound message: parse it, judge whether it is automatic, decode it into an `Inbound`.

Mail comes from every client and robot on the net, so nothing here may raise on bad input: broken
MIME, unknown charsets, raw 8-bit headers and undecodable transfer encodings all degrade to the best
text we can get (unknown charsets fall back to UTF-8, then Latin-1).  Attachments are never decoded.

The message is parsed with the `email` package's compat32 policy and its headers are decoded here
(RFC 2047 words, raw 8-bit bytes): policy.default's header objects cost tens of microseconds each,
a dozen are read per message, and they raise on some broken input.
"""
from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Iterator, Sequence
from email import errors, message_from_bytes
from email.header import Header, decode_header
from email.message import Message
from email.utils import getaddresses

from pbm.mail.messages import Incoming

# Local parts of senders that are mail systems, not people (RFC 3834).
_SYSTEM_SENDERS = {"mailer-daemon", "postmaster"}
_MSGID = re.compile(r"<[^<>\s]+>")
# The "On <date>, <name> wrote:" line that mail clients put above quoted text.
_ATTRIBUTION_END = re.compile(
    r"\b(wrote|writes|schrieb|a écrit|escribió|ha scritto|scrisse|schreef|napisał|skrev|kirjoitti)\b.*:$",
    re.IGNORECASE)
_ATTRIBUTION_START = re.compile(r"^\s*(on|am|le|el|il|op|w dniu|den)\s", re.IGNORECASE)
# Outlook puts no ">" in front of quoted mail; it starts the quote with one of these lines.
_FORWARD_SEPARATOR = re.compile(r"^\s*(-{3,}\s*original message\s*-{3,}|_{20,})\s*$", re.IGNORECASE)


def parse(raw: bytes) -> Message:
    """Parse RFC 5322 bytes; the `email` package records defects instead of raising, except on MIME
    nested so deep that its parser runs out of stack (about a thousand levels).  Such a message is
    read as its header alone: what it carries is as unreadable the next time, so refusing it for the
    MTA to retry would only end in a bounce."""
    try:        # the compat32 policy: message_from_bytes's default (email.policy is not imported)
        return message_from_bytes(raw)
    except RecursionError:
        msg = message_from_bytes(header_block(raw))
        for name in ("Content-Type", "Content-Transfer-Encoding"):
            del msg[name]
        msg.set_payload("")
        msg.defects.append(errors.MessageDefect("MIME parts nested too deeply; only the header was read"))
        return msg


def header_block(raw: bytes, limit: int = 65536) -> bytes:
    """The header of a message (up to the first empty line), for messages too large to keep."""
    match = re.search(rb"\r?\n\r?\n", raw[:limit])
    return raw[: match.end()] if match else raw[:limit]


def dedup_key(msg: Message, raw: bytes) -> str:
    """The Message-ID, else a hash of the bytes: a message delivered twice gets the same key."""
    return message_id_header(msg) or "sha256:" + _digest(raw)


def _digest(raw: bytes) -> str:
    """The hash of a message whatever its line ends and final line breaks: a pipe hands it over with
    LF, LMTP and SMTP with CRLF (`pbm deliver` passing it to a running server, then delivering it
    in-process when the MTA tries again, must see the same message)."""
    return hashlib.sha256(raw.replace(b"\r\n", b"\n").rstrip(b"\n")).hexdigest()


def message_id_header(msg: Message) -> str | None:
    match = _MSGID.search(header_text(msg, "Message-ID"))
    return match.group(0) if match else None


def header_text(msg: Message, name: str) -> str:
    """A header's decoded, unfolded value ("" if absent), whatever encoding or damage it has."""
    raw = _raw_header(msg, name)
    return "" if raw is None else decode_words(raw)


def decode_words(text: str) -> str:
    """Unfold a raw header value and decode its RFC 2047 encoded words."""
    text = re.sub(r"\r?\n(?=[ \t])", "", _unescape(text)).strip()
    if "=?" not in text:
        return text
    try:
        parts = decode_header(text)
    except Exception:                   # a malformed encoded word: show it as it is
        return text
    return "".join(part if isinstance(part, str)
                   else part.decode("raw-unicode-escape") if charset is None   # as decode_header made it
                   else _decode(part, charset)
                   for part, charset in parts)


MAX_ADDRESS = 254      # RFC 5321's path, less its brackets: a longer one is answered nowhere


def addresses(msg: Message, name: str) -> list[tuple[str, str]]:
    """(display name, bare address) pairs of an address header; unparseable entries are skipped."""
    values = [_unescape(value) for key, value in msg.raw_items() if key.lower() == name.lower()]
    found = []
    for display, address in getaddresses(values):
        local, at, domain = address.rpartition("@")
        if local and at and domain and not re.search(r"\s", address) and len(address) <= MAX_ADDRESS:
            found.append((decode_words(display), address))
    return found


def _raw_header(msg: Message, name: str) -> str | None:
    return next((value for key, value in msg.raw_items() if key.lower() == name.lower()), None)


def is_server_address(address: str, own: str) -> bool:
    """True for the server's address and its `LOCAL+anything@host` variants."""
    return _token_or_own(address, own) is not False


def reply_token(address: str, own: str) -> str | None:
    """The TOKEN of a `LOCAL+TOKEN@host` address of this server, else None."""
    found = _token_or_own(address, own)
    return found if isinstance(found, str) else None


def _token_or_own(address: str, own: str) -> str | bool | None:
    """TOKEN for LOCAL+TOKEN@host, None for the plain server address, False for any other address."""
    local, _, domain = address.strip().strip("<>").rpartition("@")
    own_local, _, own_domain = own.rpartition("@")
    if domain.lower() != own_domain.lower():
        return False
    if local.lower() == own_local.lower():
        return None
    prefix = own_local.lower() + "+"
    if local.lower().startswith(prefix) and len(local) > len(prefix):
        return local[len(prefix):]
    return False


def automatic_reason(msg: Message, mail_from: str | None, own_address: str) -> str | None:
    """Why this message must not be answered (RFC 3834), or None if a person sent it.

    `mail_from` is the SMTP envelope sender: "" or "<>" is the null return path of bounces and
    auto-replies; None means unknown (a pipe delivery without --sender), and then a `Return-Path`
    header written by the delivering MTA counts instead.
    """
    if mail_from is not None and mail_from.strip() in ("", "<>"):
        return "null return path"
    if mail_from is None and header_text(msg, "Return-Path").strip() == "<>":
        return "null return path"
    for value in msg.get_all("Auto-Submitted") or ():  # several may be present: any but "no" counts
        auto = decode_words(str(value)).split(";")[0].strip().lower()
        if auto != "no":
            return f"Auto-Submitted: {auto or 'empty'}"
    precedence = header_text(msg, "Precedence").strip().lower()
    if precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe", "X-Autoreply", "X-Autorespond"):
        if name in msg:  # present is enough, whatever it says and whether or not it decodes
            return name
    if msg.get_content_type() == "multipart/report":
        return "delivery report (multipart/report)"
    senders = [address for _, address in addresses(msg, "From")]
    if mail_from:
        senders.append(mail_from.strip().strip("<>"))
    for address in senders:
        local = address.rpartition("@")[0] or address       # Postfix's null sender: MAILER-DAEMON
        if local.lower() in _SYSTEM_SENDERS:
            return f"sent by {local}"
        if is_server_address(address, own_address):
            return "mail from the server's own address"
    if not senders:
        return "no sender address"
    return None


def decode(msg: Message, raw: bytes, own_address: str, mail_from: str | None = None,
           rcpt_tos: Sequence[str] = ()) -> Incoming:
    """Turn a parsed message (already judged not automatic) into the command layer's `Inbound`."""
    sender_name, sender = author(msg, mail_from)
    recipients = [*rcpt_tos, *(a for h in ("To", "Cc", "Delivered-To", "X-Original-To")
                                for _, a in addresses(msg, h))]
    token = next((t for t in (reply_token(a, own_address) for a in recipients) if t), None)
    references = _MSGID.findall(header_text(msg, "References") + " " + header_text(msg, "In-Reply-To"))
    return Incoming(
        message_id=message_id_header(msg) or f"<{_digest(raw)}@pbm>",
        sender=sender,
        sender_name=sender_name,
        subject=" ".join(header_text(msg, "Subject").split()),
        body=strip_quotes(body_text(msg)),
        token=token,
        references=tuple(dict.fromkeys(references)),
        language=content_language(msg),
        attachments=attached_files(msg),
    )


ATTACHED_FILES = 4                      # the files a command may read (a game record): the first ones


def attached_files(msg: Message) -> tuple[tuple[str, bytes], ...]:
    """(file name, bytes) of the message's first attachments, for a command that reads one
    (`challenge -record`), whatever their size: the reader refuses one over its limit, naming its
    size (pbm.records.importing.LIMIT), and the mail's size is the MTA's to bound."""
    found = []
    for part in _leaf_parts(msg):
        if part.get_content_disposition() != "attachment" or len(found) == ATTACHED_FILES:
            continue
        try:
            data = part.get_payload(decode=True) or b""
        except Exception:               # an undecodable part is no record
            continue
        found.append((part.get_filename() or "", data))
    return tuple(found)


def content_language(msg: Message) -> str:
    """The Content-Language of the message, else of its first part that has one (clients put it on
    the text part), as written; "" if none."""
    for part in (msg, *_leaf_parts(msg)):
        value = header_text(part, "Content-Language")
        if value:
            return value[:100]
    return ""


# The headers kept of a processed message (pbm.intake.redacted): what identifies and routes it.
_KEPT_HEADERS = frozenset({"return-path", "received", "from", "sender", "to", "cc", "date", "message-id",
                           "in-reply-to", "references", "reply-to", "auto-submitted", "precedence",
                           "list-id"})


def kept_headers(msg: Message) -> tuple[str, ...]:
    """The header lines that identify and route a message, as received: kept with it (`redacted`)."""
    return tuple(f"{name}: {value}" for name, value in msg.items() if name.lower() in _KEPT_HEADERS)


def redacted(headers: Sequence[str], subject: str, body: str) -> bytes:
    """What is kept of a message once processed: its identifying headers (`kept_headers`), and its
    subject and body text as the commands quoted them, so without passwords; no attachments."""
    lines = list(headers)
    lines.append(f"Subject: {subject if subject.isascii() else Header(subject, 'utf-8').encode()}")
    lines += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
              "Content-Transfer-Encoding: 8bit", "X-Pbm-Redacted: passwords masked", "", body]
    text = "\r\n".join(lines).replace("\r\n", "\n").replace("\n", "\r\n")
    return text.encode("utf-8", "surrogateescape")


MASK = "********"       # what a stored message or a quote shows where a password may have stood


def unread(raw: bytes, vocabulary: frozenset[str], mask: str) -> bytes:
    """What is kept of a message when it is recorded, before anything in it is read: `redacted`,
    with every word of its subject and body but those of `vocabulary` replaced by `mask` -- any
    other word may be a password.  For mail never answered (automatic, too large) and failed
    mail this stays the record; a processed message's record is made again from what its commands
    quoted."""
    msg = parse(raw)
    try:
        subject, body = header_text(msg, "Subject"), body_text(msg)
    except Exception:               # undecodable: nothing of it is kept but its headers
        subject, body = "", ""

    def masked(text: str) -> str:
        return "\n".join(" ".join(word if word.lower() in vocabulary else mask for word in line.split())
                         for line in text.splitlines())
    return redacted(kept_headers(msg), masked(subject), masked(body))


def author(msg: Message, mail_from: str | None = None) -> tuple[str, str]:
    """(display name, address) of the From header, else ("", envelope sender); "" if none."""
    found = addresses(msg, "From")
    envelope = (mail_from or "").strip("<>")
    return found[0] if found else ("", envelope if len(envelope) <= MAX_ADDRESS else "")


def body_text(msg: Message) -> str:
    """The message's text: its first text/plain part, else its first text/html part as text."""
    plain = html = None
    for part in _leaf_parts(msg):
        if part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if part.get_content_maintype() == "multipart":
            ctype = "text/plain"        # broken multipart (no boundary): its payload is just text
        if ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and html is None:
            html = part
    if plain is not None:
        return _part_text(plain)
    if html is not None:
        return html_to_text(_part_text(html))
    return ""


def _leaf_parts(msg: Message, top: bool = True) -> Iterator[Message]:
    """Non-multipart parts, not descending into attached messages (a forwarded mail is not ours)."""
    if msg.get_content_maintype() == "message" and not top:
        return
    if msg.is_multipart():
        for part in msg.get_payload():
            if isinstance(part, Message):
                yield from _leaf_parts(part, top=False)
    else:
        yield msg


def _part_text(part: Message) -> str:
    try:
        data = part.get_payload(decode=True) or b""
    except Exception:                   # undecodable transfer encoding: take it as it stands
        data = str(part.get_payload()).encode("ascii", "surrogateescape")
    return _decode(data, part.get_content_charset()).replace("\r\n", "\n")


def _decode(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset; unknown, unusable or missing charsets: UTF-8 if it is, else
    Latin-1.  Some codecs Python knows are not for mail text and ignore errors="replace" (idna and
    punycode raise on what they cannot read): a charset that fails is treated as unknown, since a
    message that cannot be decoded is a permanent condition, never a reason to refuse it."""
    try:
        if charset and codecs.lookup(charset).name != "ascii":
            return data.decode(charset, errors="replace")
    except (LookupError, UnicodeError, ValueError):
        pass
    return _bytes_to_text(data)


def _bytes_to_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _unescape(text: str) -> str:
    """Undo the surrogate escapes the `email` package uses for raw 8-bit bytes in headers."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _bytes_to_text(text.encode("utf-8", "surrogateescape"))


def html_to_text(html: str) -> str:
    """The text of an HTML mail (pbm.mail.html_text, imported only for one: most mail has a text part)."""
    from pbm.mail import html_text
    return html_text.html_to_text(html)


def strip_quotes(text: str) -> str:
    """The author's own words: quoted lines, their "On ... wrote:" line and the signature removed."""
    kept: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip()
        if line == "--" or _FORWARD_SEPARATOR.match(line):
            break                       # signature ("-- ", trailing space often lost) or Outlook quote
        if line.lstrip().startswith(">"):
            _drop_attribution(kept)
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n")


def _drop_attribution(kept: list[str]) -> None:
    """Remove the "On ... wrote:" line (possibly wrapped over two lines) above a quoted block."""
    while kept and not kept[-1].strip():
        kept.pop()
    if kept and _ATTRIBUTION_END.search(kept[-1]):
        last = kept.pop()
        if not _ATTRIBUTION_START.match(last) and kept and _ATTRIBUTION_START.match(kept[-1]):
            kept.pop()
