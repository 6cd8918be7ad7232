"""Whether a reader wants the subscribed stream (the `subscribed` preference), and what came back
about the mails of each stream: unsubscriptions, complaints (ARF) and bounces, per address
(`stream_reports`).

A one-click unsubscribe (RFC 8058) or a complaint turns the reader's subscribed stream off at once;
`set USERID PASSWORD subscribed=on` turns it on again, and the reader's next mail says so once
(pbm.outbox.streams).  An unsubscribe token is spent once used: it names the number of the reader's
unsubscriptions before it (`generation`), which using it raises.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pbm.mail.messages import SUBSCRIBED
from pbm.model.db import Database, timestamp
from pbm.model.players import accounts, tokens

PREFERENCE = "subscribed"               # accounts.PREFERENCES: "on" or "off"


def wants(db: Database, user: str) -> bool:
    """Whether `user` still gets the subscribed stream."""
    return accounts.preferences(db, user)[PREFERENCE] != "off"


def generation(db: Database, user: str, stream: str = SUBSCRIBED) -> int:
    """How many times `user` unsubscribed from `stream`: the number their current token carries."""
    return db.execute("SELECT count(*) FROM stream_reports WHERE user_id = ? AND stream = ? AND "
                      "kind = 'unsubscribe'", [user, stream]).fetchone()[0]


def readers(db: Database, users: Iterable[str]) -> dict[str, int | None]:
    """For each of `users`: how many times they unsubscribed from the subscribed stream (the
    generation their token carries), or None where they have the stream off -- one query for all
    the readers of a move (a game watched by a hundred costs one statement, not two hundred)."""
    wanted = sorted(set(users))
    if not wanted:
        return {}
    found = {}
    for user, stored, count in db.execute(
            f"SELECT u.id, u.preferences, (SELECT count(*) FROM stream_reports s WHERE s.user_id = u.id "
            f"AND s.stream = ? AND s.kind = 'unsubscribe') FROM users u WHERE u.id IN "
            f"({', '.join('?' * len(wanted))})", [SUBSCRIBED, *wanted]):
        found[user] = None if accounts.stored_preferences(stored)[PREFERENCE] == "off" else count
    return found


def unsubscribe(db: Database, secret: bytes, token_text: str, how: str, now: datetime) -> str | None:
    """Turn the stream a genuine, unspent token names off for its reader (inside a transaction);
    the reader, or None for a forged, spent or unknown one -- which changes nothing.  `how`: "web"
    or "mail", kept in the report."""
    found = tokens.check_unsubscribe(secret, token_text)
    if found is None:
        return None
    stream, user, spent = found
    if stream != SUBSCRIBED or accounts.get(db, user) is None or generation(db, user, stream) != spent:
        return None
    address = accounts.mail_address(db, user) or ""
    _report(db, now, stream, "unsubscribe", address, user, None, how)
    accounts.set_preferences(db, user, {PREFERENCE: "off"})
    return user


def complained(db: Database, now: datetime, stream: str, address: str, outbox_id: int,
               detail: str) -> list[str]:
    """An ARF complaint about a mail of `stream` to `address`: counted, and the subscribed stream
    turned off for the users of that address (a transactional mail is the reader's own game:
    it goes on, and they are told how to resign or go on leave).  Returns those users."""
    users = [row[0] for row in db.execute("SELECT user_id FROM addresses WHERE address = ?",
                                          [address.lower()])]
    _report(db, now, stream, "complaint", address, users[0] if users else None, outbox_id, detail)
    for user in users:
        accounts.set_preferences(db, user, {PREFERENCE: "off"})
    return users


def bounced(db: Database, now: datetime, stream: str, address: str, outbox_id: int | None,
            detail: str) -> None:
    """A hard bounce of a mail of `stream` to `address`, counted per stream."""
    _report(db, now, stream, "bounce", address, None, outbox_id, detail, told=True)


def _report(db: Database, now: datetime, stream: str, kind: str, address: str, user: str | None,
            outbox_id: int | None, detail: str, told: bool = False) -> None:
    db.execute("INSERT INTO stream_reports (at, stream, kind, address, user_id, outbox_id, detail, "
               "told_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               [timestamp(now), stream, kind, address.lower(), user, outbox_id, detail,
                timestamp(now) if told else None])


def untold(db: Database, addresses: Iterable[str]) -> dict[str, str]:
    """Of `addresses`, those whose reader turned the subscribed stream off (or had it turned off
    by a complaint) and has not been told how to turn it on, with that reader."""
    wanted = sorted({address.lower() for address in addresses})
    if not wanted:
        return {}
    found = {}
    for address, user in db.execute(
            f"SELECT address, user_id FROM stream_reports INDEXED BY stream_reports_untold WHERE "
            f"told_at IS NULL AND user_id IS NOT NULL AND address IN ({', '.join('?' * len(wanted))})",
            wanted):
        if not wants(db, user):
            found[address] = user
    return found


def told(db: Database, address: str, now: datetime) -> None:
    db.execute("UPDATE stream_reports SET told_at = ? WHERE told_at IS NULL AND address = ?",
               [timestamp(now), address.lower()])


def counts(db: Database, since: datetime | None = None) -> dict[tuple[str, str], int]:
    """(stream, kind) -> how many, `since` then (None: all): for `pbm outbox` and `pbm doctor`,
    with (stream, "sent") from the outbox."""
    at = timestamp(since) if since else ""
    found = {(stream, kind): n for stream, kind, n in db.execute(
        "SELECT stream, kind, count(*) FROM stream_reports WHERE at >= ? GROUP BY stream, kind", [at])}
    found.update({(stream, "sent"): n for stream, n in db.execute(
        "SELECT stream, count(*) FROM outbox WHERE status = 'sent' AND sent_at >= ? GROUP BY stream",
        [at])})
    return found
