"""Sending: claimed replies handed to the transport, and each outcome recorded."""
from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from pbm.config import Config
from pbm.faults import crash_point
from pbm.model.db import Database, parse_timestamp, timestamp
from pbm.outbox import bounces, claims, signing
from pbm.outbox.claims import Write
from pbm.outbox.maildir import Maildir
from pbm.outbox.transports import Refused, Transport, Unavailable
from pbm.pictures import deferred

log = logging.getLogger(__name__)


@dataclass
class SendReport:
    """What one run of the outbox did, counted."""
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    claimed: int = 0


def _relay(config: Config) -> Transport:
    from pbm.outbox.relay import (
        Relay,  # the SMTP client and TLS, only where a relay is used
    )
    return Relay(config)


Drawer = Callable[[list[bytes]], None]
"""Draws the pictures of a batch of mails ahead of sending (pbm.pictures.deferred.draw_ahead)."""


def send_due(db: Database, config: Config, ids: Sequence[int] | None = None,
             force: bool = False, *, write: Write | None = None,
             batches: int | None = None, draw: Drawer | None = None) -> SendReport:
    """Send queued replies that are due (all queued ones if `force`; only `ids` if given), at
    most `batches` claims of up to claims.BATCH rows (None: until none is left) -- after the rows `queue`
    claimed for this process.

    The outbox's own writes (claims, outcomes) go through `write`: by default transactions of
    `db`; `pbm serve` has its writer make them, queued behind the messages it commits, and
    `draw`s each batch's pictures on every core first.
    """
    write = write or claims.in_transaction(db)
    me = claims.claimant()
    report = SendReport()
    try:
        sign = signing.signer(config).sign
    except signing.KeyProblem as e:     # nothing leaves unsigned; what is claimed waits for its lease
        log.error("outbox: nothing sent: %s", e)
        return report
    transport = Maildir(config) if config.outbound.mode == "maildir" else _relay(config)
    try:
        mine = claims.claimed_when_queued(db, me, ids)
        if mine:                        # a batch, with no claim to make
            report.claimed += len(mine)
            if not _send_batch(write, me, config, transport, mine, report, draw, sign):
                return report
        if ids is not None and not set(ids) - {row["id"] for row in mine}:
            return report               # all of them were ours already: no claim transaction
        after = 0                       # ids only grow: a row deferred in this call waits for the next
        left = None if batches is None else batches - bool(mine)
        for _ in itertools.repeat(None) if left is None else range(left):
            rows = claims.claim(db, write, me, config, ids, force, after)
            if not rows:
                break
            report.claimed += len(rows)
            after = rows[-1]["id"]
            if not _send_batch(write, me, config, transport, rows, report, draw, sign):
                break
    finally:
        transport.close()
    return report


def _send_batch(write: Write, claimant: str, config: Config, transport: Transport,
                rows: list[dict], report: SendReport, draw: Drawer | None,
                sign: Callable[[bytes], bytes]) -> bool:
    """Hand claimed rows over; False if the relay became unavailable (the rest is put back).

    A transport that can repeat a delivery harmlessly (the Maildir) makes the whole batch durable
    once and marks it sent in one transaction; a relay has each row marked as soon as it took it,
    so that a crash resends as little as possible.
    """
    handed_over: list[dict] = []

    def mark_sent() -> None:
        if handed_over:
            transport.sync()
            crash_point("while-sending")
            _mark_sent(write, claimant, handed_over, report)
            handed_over.clear()

    held: set[str] = set()              # recipients with a row deferred in this batch
    bodies = {row["body_id"]: row["body"] for row in rows}     # copies of a mail share theirs
    if draw is not None:
        draw(list(bodies.values()))
    filled: dict[int, bytes] = {}
    try:
        for index, row in enumerate(rows):
            if row["recipient"] in held:
                claims.release(write, claimant, [row])
                continue
            body = filled.get(row["body_id"])
            if body is None:
                body = filled[row["body_id"]] = deferred.fill(row["body"])
            try:
                transport.send({**row, "raw": sign(row["head"].encode() + body if row["head"] else body),
                                "body": body})
            except Unavailable as e:
                _retry_later(write, claimant, config, row, str(e), report)
                claims.release(write, claimant, rows[index + 1:])
                return False
            except Refused as e:
                if e.temporary:
                    _retry_later(write, claimant, config, row, str(e), report)
                    held.add(row["recipient"])
                else:
                    _give_up(write, claimant, row, str(e), report, config=config)
                continue
            handed_over.append(row)
            if not transport.idempotent:
                mark_sent()
    finally:
        mark_sent()
    return True


def any_due(db: Database, mine: str | None = None) -> bool:
    """Whether a queued reply is due, or one was claimed for `mine` as it was queued and not taken
    up yet: a read, cheap enough to ask several times a second."""
    return bool(db.execute(
        "SELECT EXISTS (SELECT 1 FROM outbox INDEXED BY outbox_due WHERE status = 'queued' AND "
        "next_attempt_at <= ?) OR EXISTS (SELECT 1 FROM outbox INDEXED BY outbox_due WHERE "
        "status = 'sending' AND claimed_by = ? AND id > ?)",
        [timestamp(datetime.now(timezone.utc)), mine, claims.taken(db).get(mine, 0)]).fetchone()[0])


def _mark_sent(write: Write, claimant: str, rows: list[dict], report: SendReport) -> None:
    claims.finish(write, claimant, rows, status="sent", sent_at=timestamp(datetime.now(timezone.utc)),
            last_error=None)
    report.sent += len(rows)
    for row in rows:
        log.info("outbox %d sent %s", row["id"], row["message_id"])


def _retry_later(write: Write, claimant: str, config: Config, row: dict, reason: str,
                 report: SendReport) -> None:
    now = datetime.now(timezone.utc)
    if now - parse_timestamp(row["queued_at"]) >= timedelta(seconds=config.outbound.give_up_after):
        _give_up(write, claimant, row, f"gave up after {row['attempts']} attempts: {reason}", report)
        return
    delay = min(config.outbound.retry_base * 2 ** (row["attempts"] - 1), config.outbound.retry_max)
    claims.finish(write, claimant, [row], status="queued",
            next_attempt_at=timestamp(now + timedelta(seconds=delay)), last_error=reason)
    report.retrying += 1
    log.warning("outbox %d deferred (attempt %d, next in %.0fs): %s", row["id"], row["attempts"],
                delay, reason)


def _give_up(write: Write, claimant: str, row: dict, reason: str, report: SendReport,
             config: Config | None = None) -> None:
    """The reply is failed for good.  When the relay refused it (`config` given: a 5xx), the
    address counts a bounce, the administrators are told, and so is the player at their other
    addresses (pbm.outbox.bounces)."""
    claims.finish(write, claimant, [row], status="failed", last_error=reason)
    report.failed += 1
    log.error("outbox %d failed for good: %s", row["id"], reason)
    if config is not None:
        write(functools.partial(bounces.refused, config=config, row_id=row["id"],
                                recipient=row["recipient"], subject=row["subject"], reason=reason,
                                stream=row["stream"]))
