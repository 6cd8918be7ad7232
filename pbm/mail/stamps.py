"""When a message reached the operator's MX: the date of the topmost `Received:` header that MX
wrote (`by` the host named in `[security] authserv_id`).

Only that line is believed.  The `Received:` lines above it were added after the MX (by the hops
inside the operator's own system, which may have held the mail), and those below it, or written by
any other host, may be the sender's own invention.  The MX writes its line on top of what it
received, so a forged line naming it further down is never the topmost.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from email.message import Message
from email.utils import parsedate_to_datetime

_BY = re.compile(r"\bby\s+([^\s;()]+)", re.IGNORECASE)


def reached_mx(msg: Message, mx: str) -> datetime | None:
    """The time the MX `mx` wrote in its topmost `Received:` line of `msg`; None without one (or
    with a date that cannot be read)."""
    for value in msg.get_all("Received") or []:
        text = " ".join(str(value).split())
        found = _BY.search(text.partition(";")[0] if ";" in text else text)
        if found is None or found.group(1).rstrip(".").lower() != mx.lower():
            continue
        try:
            when = parsedate_to_datetime(text.rpartition(";")[2].strip())
        except (TypeError, ValueError, IndexError):
            return None
        return when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return None
