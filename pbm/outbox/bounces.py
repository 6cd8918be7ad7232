"""What happens when the relay refuses a reply for good (5xx): someone is told, and an address that
keeps failing stops being tried.

Each refusal counts against the address; from the third one on it is "bouncing", and replies to it
are queued as failed instead of being sent (pbm.outbox.queue).  The administrators (`[admins]
notify`) are told of every refusal, and the player whose address it is at their other registered
addresses, if they have any; `status` shows the players' bouncing addresses.  A new address
(`change address`) starts clean; an operator clears one with `DELETE FROM bounces`.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from pbm.config import Config
from pbm.mail.messages import Outgoing
from pbm.model.db import Database, timestamp
from pbm.model.players import subscriptions
from pbm.outbox import queue


def refused_addresses(db: Database, addresses: Iterable[str]) -> dict[str, str]:
    """Of `addresses`, those the relay refused for good, with the last reason."""
    found = {}
    for address in addresses:
        row = db.execute("SELECT last_error FROM bounces WHERE address = ?", [address.lower()]).fetchone()
        if row:
            found[address] = row[0]
    return found


def refused(db: Database, *, config: Config, row_id: int, recipient: str, subject: str,
            reason: str, stream: str) -> None:
    """Count the refusal (for the address, and for the mail's stream) and queue the notices (inside
    the outbox's write transaction).  A bounce mailed back for a mail that was sent counts alike
    (pbm.outbox.reports)."""
    now = datetime.now(timezone.utc)
    address = recipient.lower()
    subscriptions.bounced(db, now, stream, address, row_id, reason)
    db.execute("INSERT INTO bounces (address, failures, first_at, last_at, last_error) "
               "VALUES (?, 1, ?, ?, ?) ON CONFLICT (address) DO UPDATE SET "
               "failures = failures + 1, last_at = excluded.last_at, last_error = excluded.last_error",
               [address, timestamp(now), timestamp(now), reason])
    failures = db.execute("SELECT failures FROM bounces WHERE address = ?", [address]).fetchone()[0]
    skipped = (f"\nThat is the {failures}th refusal: mail to {recipient} is no longer sent."
               if failures >= queue.BOUNCING_AFTER else "")
    notices = []
    if address not in (a.lower() for a in config.admins.notify):      # no notices about notices
        notices += [Outgoing(to=admin, subject=f"{config.server.name}: a reply was refused",
                             body=f"The relay refused reply {row_id} to {recipient} for good:\n"
                                  f"    {reason}\nSubject: {subject}{skipped}\n",
                             auto_submitted="auto-generated") for admin in config.admins.notify]
    for user_id, in db.execute("SELECT user_id FROM addresses WHERE address = ?", [address]).fetchall():
        others = [row[0] for row in db.execute("SELECT address FROM addresses WHERE user_id = ? AND "
                                               "address != ? ORDER BY position", [user_id, address])]
        notices += [Outgoing(to=other, subject=f"{config.server.name}: mail to {recipient} failed",
                             body=f"Mail for {user_id} to {recipient} was refused for good:\n"
                                  f"    {reason}\n(\"{subject}\").{skipped}\nTo have game mail sent "
                                  f"here instead, send: change address {user_id} PASSWORD {other}\n",
                             auto_submitted="auto-generated") for other in others]
    queue.queue(db, config, notices, now)
