"""Queueing replies: rendered and inserted inside the transaction of the command that made them."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields, replace
from datetime import datetime, timedelta
from operator import attrgetter

from pbm.config import Config
from pbm.mail.messages import Outgoing
from pbm.model.db import Database, timestamp
from pbm.outbox.claims import lease
from pbm.outbox.render import OWN, envelope, shared
from pbm.outbox.streams import prepare

# An address the relay refused for good this many times gets no more replies (pbm.outbox.bounces).
BOUNCING_AFTER = 3


def queue(db: Database, config: Config, outgoing: Iterable[Outgoing], now: datetime,
          inbound_id: int | None = None, claimant: str | None = None) -> list[int]:
    """Render and queue replies; call inside a transaction.  Returns the outbox ids.

    A reply to an address that failed for good BOUNCING_AFTER times is recorded as failed at once.
    With `claimant` (`claimant()` of the process that sends the replies once the transaction is
    committed: `pbm deliver`, `pbm poll`, the outbox process of `pbm serve`), each reply is claimed
    for it right away -- no claim transaction after the commit -- unless it is failed, or an older
    reply to the same address is still unsent: that one goes first (see `_in_recipient_order`), so
    this one waits in the queue.
    Replies alike but for their recipient (an observed move's mail to each observer who sees the
    same view) share one stored body: the first one's, each row keeping its own envelope (To,
    Message-ID, List-Unsubscribe) in `head` -- see the `outbox_messages` view.  A reply of its own
    is stored whole, as before.
    All the replies of a command are written with two statements (their rows, then their bodies),
    up to QUEUED_AT_ONCE at a time."""
    # [reply, Message-ID, its envelope, the rest (None: it shares its first copy's), body_of: None
    # for a reply stored whole, "" for a first copy whose rest others share, else that copy's Message-ID]
    rendered: list[list] = []
    first: dict[tuple, int] = {}        # the content of a reply -> the index of its first copy
    for out in prepare(db, config, outgoing, now):
        if not out.to.isascii():
            out = replace(out, to=wire_address(out.to))
        message_id, own = envelope(config, out, now)
        key = _content(out)
        if key in first:
            rendered.append([out, message_id, own, None, rendered[first[key]][1]])
            rendered[first[key]][4] = ""
        else:
            first[key] = len(rendered)
            rendered.append([out, message_id, own, shared(config, out, now), None])
    ids, at, until = [], timestamp(now), timestamp(now + lease(config))
    for start in range(0, len(rendered), QUEUED_AT_ONCE):
        chunk = rendered[start:start + QUEUED_AT_ONCE]
        given = [value for n, (out, message_id, own, _, body_of) in enumerate(chunk)
                 for value in (message_id, out.to, out.subject, out.to.lower(), n, out.stream,
                               None if body_of is None else own.decode(), body_of or None)]
        numbered = dict(db.execute(
            "INSERT INTO outbox (inbound_id, message_id, recipient, subject, queued_at, "
            "next_attempt_at, status, last_error, claimed_by, claimed_until, attempts, stream, head, "
            "body_of) SELECT ?, message_id, recipient, subject, ?, ?, "
            "CASE WHEN bouncing THEN 'failed' WHEN mine THEN 'sending' ELSE 'queued' END, "
            "CASE WHEN bouncing THEN ? END, CASE WHEN mine THEN ? END, CASE WHEN mine THEN ? END, mine, "
            "stream, head, body_of FROM (SELECT r.column1 AS message_id, r.column2 AS recipient, "
            "r.column3 AS subject, r.column5 AS n, r.column6 AS stream, r.column7 AS head, "
            "r.column8 AS body_of, coalesce(b.failures >= ?, 0) AS bouncing, ? IS NOT NULL "
            "AND coalesce(b.failures < ?, 1) AND NOT EXISTS (SELECT 1 FROM outbox AS o INDEXED BY "
            "outbox_unsent WHERE o.recipient = r.column2 AND o.status IN ('queued', 'sending')) AS mine "
            "FROM (VALUES "
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)) + ") r "
            "LEFT JOIN bounces b ON b.address = r.column4) ORDER BY n RETURNING message_id, id",
            [inbound_id, at, at, f"not sent: mail to this address failed for good {BOUNCING_AFTER} times",
             claimant, until, BOUNCING_AFTER, claimant, BOUNCING_AFTER, *given]))
        chunk_ids = [numbered[message_id] for _, message_id, *_ in chunk]
        bodies = [(row_id, rest if body_of == "" else own + rest)
                  for row_id, (_, _, own, rest, body_of) in zip(chunk_ids, chunk) if rest is not None]
        if bodies:
            db.execute("INSERT INTO outbox_bodies (id, raw) VALUES " + ", ".join(["(?, ?)"] * len(bodies)),
                       [value for body in bodies for value in body])
        ids += chunk_ids
    return ids


def _content(out: Outgoing) -> tuple:
    """All of `out` but its recipient: replies with the same content share their stored body."""
    return (_CONTENT(out), tuple((name, value) for name, value in out.headers.items() if name not in OWN))


_CONTENT = attrgetter(*(f.name for f in fields(Outgoing) if f.name not in ("to", "reader", "headers")))


QUEUED_AT_ONCE = 1000   # replies per INSERT: 8 parameters each, within the 32,766 of SQLite 3.32+ (RETURNING
                        # needs 3.35): a move watched by hundreds is still two statements


def wire_address(address: str) -> str:
    """The address as it goes on the wire: an international domain in its ASCII (IDNA) form, so
    that only a non-ASCII local part needs SMTPUTF8."""
    local, at, domain = address.rpartition("@")
    if not at or domain.isascii():
        return address
    try:
        return f"{local}@{domain.encode('idna').decode('ascii')}"
    except UnicodeError:
        return address


def listing(db: Database, status: str | None = None, limit: int = 50) -> list[dict]:
    """The newest outbox rows (without their bytes), for `pbm outbox`."""
    where = "WHERE status = ?" if status else ""
    return list(db.query(
        f"SELECT id, status, attempts, queued_at, next_attempt_at, sent_at, recipient, subject, "
        f"message_id, last_error, stream FROM outbox {where} ORDER BY id DESC LIMIT ?",
        [status, limit] if status else [limit]))


def counts(db: Database) -> dict[str, int]:
    return {row["status"]: row["n"]
            for row in db.query("SELECT status, count(*) AS n FROM outbox GROUP BY status")}


PURGE_BATCH = 500      # sent bodies purged per timer run, so that the writer is never held long


def purge_sent(db: Database, config: Config, now: datetime) -> int:
    """Drop the bodies of the replies sent more than `[server] retention_days` ago; returns how
    many.  The outbox row stays (Message-ID, recipient, subject, dates): enough to answer "was it
    sent, and when", while the game's record stays whole in its own tables.  A board mail is most
    of a game's bytes, and nobody reads it from here once it has left.  Bodies are dropped oldest
    first (the bodies' ids follow the queue), so each run starts where the last one stopped.  A
    body that copies share (`queue`) goes once every copy has gone."""
    cutoff = timestamp(now - timedelta(days=config.server.retention_days))
    ids = [row[0] for row in db.execute(
        "SELECT b.id FROM outbox_bodies b JOIN outbox o ON o.id = b.id "
        "WHERE o.status = 'sent' AND o.sent_at < ? AND (o.head IS NULL OR NOT EXISTS (SELECT 1 "
        "FROM outbox c INDEXED BY outbox_sharing WHERE c.body_of = o.message_id AND "
        "(c.status != 'sent' OR c.sent_at >= ?))) ORDER BY b.id LIMIT ?", [cutoff, cutoff, PURGE_BATCH])]
    if ids:
        db.execute(f"DELETE FROM outbox_bodies WHERE id IN ({', '.join('?' * len(ids))})", ids)
    return len(ids)
