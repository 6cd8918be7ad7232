"""The record of every message received (the `inbound` table): recorded once, cut to its header
when old, kept whole when it failed, so that an operator can run it again."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from pbm.config import Config
from pbm.mail import reading
from pbm.model.db import Database, timestamp

PURGE_BATCH = 500      # messages purged per timer run, so that the writer is never held long
_SUBJECT_LINES = re.compile(rb"(?im)^subject:.*(?:\r?\n[ \t].*)*\r?\n")


def purge(db: Database, config: Config, now: datetime) -> int:
    """Cut the messages older than `[server] retention_days` to their header (without its subject
    where that was not redacted: it may hold a password); returns how many.  Failed messages are
    kept whole, for `pbm inbound retry`."""
    cutoff = timestamp(now - timedelta(days=config.server.retention_days))
    rows = db.execute("SELECT id, raw, redacted FROM inbound WHERE redacted < 2 AND received_at < ? "
                      "AND status != 'failed' ORDER BY received_at LIMIT ?",
                      [cutoff, PURGE_BATCH]).fetchall()
    for inbound_id, raw, redacted in rows:
        head = reading.header_block(raw)
        db.execute("UPDATE inbound SET raw = ?, redacted = 2 WHERE id = ?",
                   [head if redacted else _SUBJECT_LINES.sub(b"", head), inbound_id])
    return len(rows)


def failed(db: Database) -> list[dict]:
    """The messages that failed with an internal error and were not run again, oldest first."""
    return list(db.query("SELECT id, received_at, sender, message_id, detail FROM inbound "
                         "WHERE status = 'failed' ORDER BY id"))
