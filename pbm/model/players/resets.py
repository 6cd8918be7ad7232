"""Reset codes for a forgotten password: one-time codes mailed to a user's registered addresses.

Each code is valid on its own for RESET_VALIDITY and works once; a code mailed later does not void
an earlier one (a stranger asking for a code must not spoil the player's).  At most `[server]
reset_codes_per_day` codes go to one user in a day, however many ask: the rows are kept a day for
that count.  Only an HMAC of each code under the server secret is stored.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
from datetime import datetime, timedelta

from pbm.model.db import Database, parse_timestamp, timestamp

RESET_VALIDITY = timedelta(hours=1)
DAY = timedelta(days=1)


def issue(db: Database, secret: bytes, user_id: str, now: datetime, per_day: int,
          force: bool = False) -> str | datetime:
    """A new one-time code for `user_id`; or, when `per_day` codes were mailed in the last day (and
    not `force`: an administrator), the time the next one can be."""
    issued = [parse_timestamp(row[0]) for row in db.execute(
        "SELECT issued_at FROM reset_codes WHERE user_id = ? AND issued_at > ? ORDER BY issued_at",
        [user_id, timestamp(now - DAY)])]
    if len(issued) >= per_day and not force:
        return issued[len(issued) - per_day] + DAY
    code = base64.b32encode(os.urandom(10)).decode().lower()       # 16 characters, 80 bits
    db.execute("INSERT OR REPLACE INTO reset_codes (user_id, issued_at, code, expires_at) VALUES (?, ?, ?, ?)",
               [user_id, timestamp(now), _mac(secret, user_id, code), timestamp(now + RESET_VALIDITY)])
    return code


def use(db: Database, secret: bytes, user_id: str, code: str, now: datetime) -> bool:
    """Whether `code` is one of the user's unused, unexpired codes; a right one is used up."""
    mac = _mac(secret, user_id, code.strip().lower())
    for issued_at, stored in db.execute("SELECT issued_at, code FROM reset_codes WHERE user_id = ? AND "
                                        "used_at IS NULL AND expires_at > ?", [user_id, timestamp(now)]).fetchall():
        if hmac.compare_digest(stored, mac):
            db.execute("UPDATE reset_codes SET used_at = ? WHERE user_id = ? AND issued_at = ?",
                       [timestamp(now), user_id, issued_at])
            return True
    return False


def outstanding(db: Database, user_id: str, now: datetime) -> str | None:
    """The newest code of the user still waiting to be used, as "USER:ISSUED_AT" (what wrong codes
    are counted against, pbm.model.players.guard.code_subjects), or None."""
    row = db.execute("SELECT max(issued_at) FROM reset_codes WHERE user_id = ? AND used_at IS NULL AND "
                     "expires_at > ?", [user_id, timestamp(now)]).fetchone()
    return f"{user_id}:{row[0]}" if row[0] else None


def forget_old(db: Database, now: datetime) -> None:
    """Drop the codes no count looks at any more (run with the timers)."""
    db.execute("DELETE FROM reset_codes WHERE issued_at <= ?", [timestamp(now - DAY)])


def _mac(secret: bytes, user_id: str, code: str) -> str:
    return hmac.new(secret, f"reset:{user_id}:{code}".encode(), hashlib.sha256).hexdigest()
