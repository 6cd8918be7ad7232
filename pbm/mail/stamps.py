"""When a message reached the operator's MX: the date of the topmost `Received:` header that MX
wrote (`by` the host named in `[security] authserv_id`).

Only that line is believed.  The `Received:` lines above it were added after the MX (by the hops
inside the operator's own system, which may have held the mail), and those below it, or written by
any other host, may be the sender's own invention.  The MX writes its line on top of what it
received, so a forged line naming it further down is never the topmost.

A line's host is its `by` clause after the `from` part: the name the client gave (HELO) and the
MTA's comment in parentheses, `from HELO (rDNS [IP]) by HOST ...`.  The HELO is the sender's to
choose, so a `by` inside it ("client by relay.evil.net") is not the line's.  Where no line is the
MX's (its host name differs from `authserv_id`), pbm times the mail by its own arrival, and `pbm
doctor` says so; whatever a line says, pbm.intake bounds the time it gives.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from email.message import Message
from email.utils import parsedate_to_datetime

_BY = re.compile(r"\s*by\s+([^\s;()]+)", re.IGNORECASE)
_PARENTHESES = re.compile(r"[()]")


def reached_mx(msg: Message, mx: str) -> datetime | None:
    """The time the MX `mx` wrote in its topmost `Received:` line of `msg`; None without one (or
    with a date that cannot be read)."""
    for value in msg.get_all("Received") or []:
        text = " ".join(str(value).split())
        if host(text) != mx.lower():
            continue
        try:
            when = parsedate_to_datetime(text.rpartition(";")[2].strip())
        except (TypeError, ValueError, IndexError):
            return None
        return when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return None


def host(line: str) -> str | None:
    """The host that wrote a `Received:` line (its `by` after the `from` part, lower case), or None
    if the line has none there."""
    rest = line.partition(";")[0]
    if rest[:5].lower() == "from ":
        start = rest.find("(")
        if start < 0:
            return None
        while start >= 0:               # the comments after the HELO name: "(rDNS [IP])", qmail's two
            end = _closing(rest, start)
            if end is None:
                return None
            rest = rest[end:].lstrip()
            start = 0 if rest.startswith("(") else -1
    found = _BY.match(rest)
    return found.group(1).rstrip(".").lower() if found else None


def _closing(text: str, start: int) -> int | None:
    """Where the parenthesized comment opening at `start` ends (nested ones within it), or None."""
    depth = 0
    for mark in _PARENTHESES.finditer(text, start):
        depth += 1 if mark.group() == "(" else -1
        if depth == 0:
            return mark.end()
    return None
