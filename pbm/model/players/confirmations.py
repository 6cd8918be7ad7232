"""Addresses given for a user but not yet confirmed: they get the mail asking them to confirm, and
nothing else, until they answer it (pbm.commands.accounts.confirming).  Kept apart from `addresses`, so that
no query mailing a user can reach them by mistake."""
from __future__ import annotations

from datetime import datetime, timedelta

from pbm.model.players import accounts
from pbm.model.db import Database, timestamp

AGAIN_AFTER = timedelta(days=1)         # one confirmation mail a day to an address, at most


def ask(db: Database, user_id: str, address: str, position: int, now: datetime) -> bool:
    """Note that `address` waits to be confirmed for `user_id` (at `position` of the list given);
    whether to mail it the confirmation: not if one went to that address in the last day, for any
    user (whoever gave it then sends `change address` again the next day)."""
    last = db.execute("SELECT max(asked_at) FROM pending_addresses WHERE address = ?", [address]).fetchone()[0]
    again = last is None or last <= timestamp(now - AGAIN_AFTER)     # for whichever user
    db.execute("INSERT OR REPLACE INTO pending_addresses (address, user_id, position, asked_at) "
               "VALUES (?, ?, ?, ?)", [address, user_id, position, timestamp(now) if again else last])
    return again


def waiting(db: Database, user_id: str) -> list[str]:
    return [row[0] for row in db.execute("SELECT address FROM pending_addresses WHERE user_id = ? "
                                         "ORDER BY position", [user_id])]


def forget(db: Database, user_id: str, keep: list[str] = ()) -> None:
    """Drop the user's waiting addresses but those of `keep`."""
    marks = ", ".join("?" * len(keep))
    db.execute(f"DELETE FROM pending_addresses WHERE user_id = ? AND address NOT IN ({marks})",
               [user_id, *keep])


def confirm(db: Database, user_id: str, address: str) -> bool:
    """Make a waiting address the user's, where it was given in the list; False if it was not
    waiting."""
    row = db.execute("DELETE FROM pending_addresses WHERE user_id = ? AND address = ? RETURNING position",
                     [user_id, address.lower()]).fetchone()
    if row is None:
        return False
    current = accounts.addresses(db, user_id)
    accounts.set_addresses(db, user_id, current[:row[0]] + [address.lower()] + current[row[0]:])
    return True
