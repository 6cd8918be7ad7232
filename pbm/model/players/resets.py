"""Reset codes for a forgotten password: one-time codes mailed to a user's registered addresses.

Each code is valid on its own for a day and works once; a code mailed later does not void an
earlier one (a stranger asking for a code must not spoil the player's).  At most `[server]
reset_codes_per_day` codes go to one user in a day for each asking source: the user's own
registered addresses, and everyone else together -- so strangers never use up the player's own,
and however many strangers ask, the player gets at most that many of theirs.  A code lasts as long
as the count remembers it: when the player's own request is refused, the codes that filled the
count are in their mailbox and still work.  Only an HMAC of each code under the server secret is
stored.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
from datetime import datetime, timedelta

from pbm.model.db import Database, parse_timestamp, timestamp

DAY = timedelta(days=1)
RESET_VALIDITY = DAY            # as long as the count: see above


def issue(db: Database, secret: bytes, user_id: str, now: datetime, per_day: int, own: bool,
          force: bool = False) -> str | datetime:
    """A new one-time code for `user_id`, asked for from one of its registered addresses (`own`) or
    not; or, when `per_day` codes were asked for from that source in the last day (and not `force`:
    an administrator), the time the next one can be."""
    issued = [parse_timestamp(row[0]) for row in db.execute(
        "SELECT issued_at FROM reset_codes WHERE user_id = ? AND own = ? AND issued_at > ? "
        "ORDER BY issued_at", [user_id, int(own), timestamp(now - DAY)])]
    if len(issued) >= per_day and not force:
        return issued[len(issued) - per_day] + DAY
    code = base64.b32encode(os.urandom(10)).decode().lower()       # 16 characters, 80 bits
    db.execute("INSERT INTO reset_codes (user_id, issued_at, code, expires_at, own) VALUES (?, ?, ?, ?, ?)",
               [user_id, timestamp(now), _mac(secret, user_id, code), timestamp(now + RESET_VALIDITY),
                int(own)])
    return code


def use(db: Database, secret: bytes, user_id: str, code: str, now: datetime) -> bool:
    """Whether `code` is one of the user's unused, unexpired codes; a right one is used up."""
    mac = _mac(secret, user_id, code.strip().lower())
    for issued_at, stored in db.execute("SELECT issued_at, code FROM reset_codes WHERE user_id = ? AND "
                                        "used_at IS NULL AND expires_at > ?", [user_id, timestamp(now)]).fetchall():
        if hmac.compare_digest(stored, mac):
            db.execute("UPDATE reset_codes SET used_at = ? WHERE user_id = ? AND issued_at = ? AND code = ?",
                       [timestamp(now), user_id, issued_at, stored])
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
