"""Intake: one inbound message, one transaction.

In a single transaction `accept()` records the raw message (deduplicated by Message-ID, else by a
hash of its bytes), drops automatic mail unanswered, runs the command, and queues the replies.
When it returns, all of that is durably committed, so the caller may acknowledge the message
(exit 0, SMTP 250, IMAP \\Seen); when it raises `TransientError`, nothing was recorded and the
sender must try again (exit 75, SMTP 451).  `pbm deliver` and `pbm poll` use `accept()`;
`pbm serve` uses `accept_many()` for messages that arrive together: each in its own savepoint,
one COMMIT for all -- the same guarantees per message, one fsync.

What needs no write lock happens before it, in `prepare()`: parsing, judging automatic mail,
decoding, reading a record a command imports (pbm.commands.games.imports), and checking the passwords of the commands (scrypt takes tens of milliseconds by design;
inside the write transaction it would hold up every other message).  `pbm serve` prepares in
threads of their own while the writer commits other messages (pbm.runners.preparers) -- in its SMTP
processes, when it has some (pbm.runners.listener).

A bug in a command must not lose the message or leave the player waiting: the command's changes
are rolled back (with the message's record, which is then made again), the message is kept with
status "failed", the player is told, and the administrators are told the exception type and frames
-- never the exception's text, which might quote the message, and so a password.

A command runs at the time its message reached the operator's MX, as that MX wrote it in its
`Received:` line (`[security] authserv_id`, pbm.mail.stamps), else at the time pbm took it
(`received_at`, which `pbm inbound retry` keeps): a move made in time is not charged for a mail
system that held it, and clocks, time-outs and reminders all go by that time.  The MX's time is
taken at most `[clocks] max_hold` hours before pbm took the mail (a mail system holds mail for
hours; an older date is a forged line), and a move never before its turn began (pbm.commands.games.play).
"""
from __future__ import annotations

import errno
import logging
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from email.message import Message

from pbm import Later, clock
from pbm.commands import dispatch, parse, precheck, registry
from pbm.config import Config
from pbm.faults import crash_point, error_point
from pbm.logs import describe_exception
from pbm.mail import reading, stamps
from pbm.mail.messages import Incoming, Outgoing
from pbm.model.players import accounts
from pbm.model.server import heartbeats, sealed
from pbm.model.db import Database, parse_timestamp, timestamp, transaction
from pbm.outbox import queue, reports
from pbm.upkeep import health

log = logging.getLogger(__name__)

# What an SQLite error says when trying again later can help.
_TRANSIENT_SQLITE = ("locked", "busy", "disk", "full", "unable to open")
_TRANSIENT_ERRNO = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EAGAIN, errno.ENOMEM}
# The record a `-record` line names (pbm.commands.games.imports), loaded by a message that has one.
READ_AHEAD = Later("pbm.commands.games.imports:read_ahead")
# What the MX's Authentication-Results say (pbm.mail.authresults, with the authres package), loaded
# where `[security] authserv_id` names an MX to trust.
VOUCHED = Later("pbm.mail.authresults:vouched")


class TransientError(Exception):
    """Nothing was recorded; deliver the message again later (exit 75, SMTP 451)."""


class NoSpace(TransientError):
    """Free space is under the reserve (pbm.upkeep.health): nothing was recorded (exit 75, SMTP 452)."""


@dataclass(frozen=True)
class IntakeResult:
    """What became of one inbound message, once committed."""
    status: str                         # processed, duplicate, automatic, too_large or failed
    inbound_id: int | None = None       # the inbound row (for a duplicate: the earlier one)
    outbox_ids: tuple[int, ...] = ()    # its replies to send now (a duplicate: those still unsent)
    key: str = ""                       # the Message-ID, or the hash of the bytes without one


@dataclass(frozen=True)
class Delivery:
    """One inbound message as it arrived.

    `mail_from` is the envelope sender ("" for the null return path, None if unknown).  `size` is
    the message's real size when `raw` holds only its beginning (a pipe delivery over the limit).
    """
    raw: bytes
    mail_from: str | None = None
    rcpt_tos: Sequence[str] = ()
    size: int | None = None


def accept(db: Database, config: Config, raw: bytes, mail_from: str | None = None,
           rcpt_tos: Sequence[str] = (), *, size: int | None = None,
           now: datetime | None = None, claimant: str | None = None) -> IntakeResult:
    """Record, judge and answer one inbound message in one transaction.  With `claimant`, the
    replies are claimed for that process (queue), which sends them once this returns."""
    arrival = prepare(db, config, Delivery(raw, mail_from, tuple(rcpt_tos), size), now)
    [result] = accept_many(db, config, [arrival], now, claimant)
    if isinstance(result, Exception):
        raise result
    return result


def accept_many(db: Database, config: Config, arrived: Sequence[Arrival],
                now: datetime | None = None, claimant: str | None = None
                ) -> list[IntakeResult | Exception]:
    """`accept` for messages that arrived together, with a single COMMIT (group commit).

    Each message is recorded, judged and answered inside its own savepoint, so each is still all
    or nothing, and a message that fails in an unexpected way takes only itself back (its result is
    the exception; the sender should try again).  One fsync then makes them all durable, which is
    what lets `pbm serve` keep up when many messages arrive at once.  A transient failure leaves
    nothing recorded: every result is then the TransientError.
    """
    now = now or clock.now()
    short = health.short_of_space(config)
    if short:
        log.warning("new mail refused until there is space: %s", short)
        return [NoSpace(short)] * len(arrived)
    damaged = health.marked(config)
    if damaged:
        return [TransientError(damaged)] * len(arrived)
    for arrival in arrived:
        for password, stored, right in arrival.checked:
            accounts.remember(password, stored, right)
    results: list[IntakeResult | Exception] = []
    changes, began = db.conn.total_changes, time.monotonic()
    try:
        with transaction(db):
            for arrival in arrived:
                step = _Step(db, alone=len(arrived) == 1)
                try:
                    for password, stored in arrival.fresh:      # for the next processes
                        accounts.note_checked(db, config.secret, password, stored, now)
                    results.append(_record(db, config, arrival, now, step, claimant))
                    step.done()
                except Exception as e:
                    if _transient(e) or not db.conn.in_transaction or step.alone:
                        raise           # the whole transaction goes
                    step.undo()
                    step.done()
                    log.error("inbound %s not recorded:\n%s", arrival.key, describe_exception(e))
                    results.append(e)
    except Exception as e:
        if not _transient(e):
            log.error("inbound %s not recorded:\n%s", ", ".join(a.key for a in arrived),
                      describe_exception(e))
        error = TransientError(health.advice(config, str(e)) if health.damage(e) else
                               f"{type(e).__name__}: {e}") if _transient(e) else e
        return [error] * len(arrived)
    crash_point("after-commit")
    # what the write lock was held for: the work of a command is bounded (a tournament's round)
    log.debug("transaction: %d rows written in %.0f ms", db.conn.total_changes - changes,
              (time.monotonic() - began) * 1000)
    for arrival, result in zip(arrived, results, strict=True):
        if isinstance(result, IntakeResult):
            log.info("inbound %s %s: %s, %d replies to send", result.inbound_id, arrival.key,
                     result.status, len(result.outbox_ids))
    return results


class _Step:
    """Where the work of one message can be taken back to: its own savepoint when it is committed
    with others, else the transaction itself -- the usual message is alone, and so costs two
    statements fewer."""

    def __init__(self, db: Database, alone: bool):
        self.db, self.alone = db, alone
        if not alone:
            db.execute("SAVEPOINT message")

    def undo(self) -> None:
        """Take back everything the message wrote, its record too (the lock is taken again at
        once: another process may get it in between, which only costs a wait)."""
        if self.alone:
            self.db.execute("ROLLBACK")
            self.db.execute("BEGIN IMMEDIATE")
        else:
            self.db.execute("ROLLBACK TO message")

    def done(self) -> None:
        if not self.alone:
            self.db.execute("RELEASE message")


@dataclass(frozen=True)
class Arrival:
    """A delivery as `prepare()` leaves it for the writer: identified, judged, decoded, its
    passwords checked.  Plain data, so that an SMTP process of `pbm serve` can pass it on."""
    raw: bytes                          # what is kept: only the header when too large
    key: str
    message_id: str | None              # the Message-ID header, if there is one
    size: int
    too_large: bool
    mail_from: str | None
    rcpt_tos: Sequence[str]
    sender: str | None                  # the bare From address (else the envelope sender)
    automatic: str | None               # why it must not be answered, if so
    message: Incoming | None             # the decoded command mail; None: decode it in the transaction
    kept: tuple[str, ...] = ()          # its identifying header lines (inbound.kept_headers)
    checked: tuple[tuple[str, str, bool], ...] = field(default=(), repr=False)  # see check_passwords
    fresh: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # found right by scrypt just now
    record: bytes = field(default=b"", repr=False)  # what is stored of it at once: reading.unread
    reached: str | None = None          # when it reached the trusted MX (a timestamp), if it says
    report: reports.Report | None = None    # the bounce or complaint it reports (pbm.outbox.reports)
    unsubscribe: str | None = None      # the token of a one-click unsubscribe's mailto: (RFC 8058)


def prepare(db: Database, config: Config, delivery: Delivery, now: datetime | None = None) -> Arrival:
    """Everything about a delivery that needs no write lock; reads `db` only (for the passwords)."""
    return check_passwords(db, config, arrive(config, delivery), now=now)


def arrive(config: Config, delivery: Delivery) -> Arrival:
    """Parse, identify, judge and decode a delivery (CPU only: no database, no lock)."""
    raw = delivery.raw
    size = len(raw) if delivery.size is None else delivery.size
    too_large = size > config.smtp.max_message_size
    if too_large:
        raw = reading.header_block(raw)     # keep what identifies it, not the megabytes
    msg = reading.parse(raw)
    mail_from, rcpt_tos = delivery.mail_from, tuple(delivery.rcpt_tos)
    unsubscribe = reports.unsubscribe_token(config, msg, rcpt_tos)
    automatic = ("unsubscribe request (RFC 8058)" if unsubscribe else
                 reading.automatic_reason(msg, mail_from, config.server.address))
    message = None if automatic or too_large else _decoded(config, msg, raw, mail_from, rcpt_tos)
    if message is not None and (config.security.authserv_id or config.security.require_dmarc):
        verified = bool(config.security.authserv_id) and VOUCHED(
            msg, message.sender, config.security.authserv_id)
        message = replace(message, verified=verified, vouched=verified or not config.security.require_dmarc)
    if message is not None and "-record" in f"{message.subject}\n{message.body}".lower():
        message = READ_AHEAD(message)               # a record, read before the write lock
    mx = config.security.authserv_id
    reached = stamps.reached_mx(msg, mx) if mx and message is not None else None
    return Arrival(raw, reading.dedup_key(msg, raw), reading.message_id_header(msg), size, too_large,
                   mail_from, rcpt_tos, reading.author(msg, mail_from)[1] or None, automatic, message,
                   reading.kept_headers(msg) if message else (),
                   record=reading.unread(raw, registry.VOCABULARY, parse.MASK),
                   reached=timestamp(reached) if reached else None,
                   report=reports.read(msg) if automatic and not too_large else None,
                   unsubscribe=unsubscribe)


def check_passwords(db: Database, config: Config, arrival: Arrival, quick: bool = False,
                    now: datetime | None = None) -> Arrival | None:
    """Check the passwords of the arrival's commands (reading `db`), so that its commands find them
    remembered (`precheck.precheck_passwords`) and the writer never waits for scrypt.  The
    passwords found right go with the arrival: checked in an SMTP process of `pbm serve`, they are
    remembered by the main process too (`accept_many`).  With `quick`, None if that needs scrypt."""
    if arrival.message is None:
        return arrival
    fresh: list[tuple[str, str]] = []
    checked = precheck.precheck_passwords(db, arrival.message.subject, arrival.message.body,
                                          quick=quick, secret=config.secret, now=now, fresh=fresh)
    return None if checked is None else replace(arrival, checked=tuple(checked), fresh=tuple(fresh))


def _decoded(config: Config, msg: Message, raw: bytes, mail_from: str | None,
             rcpt_tos: Sequence[str]) -> Incoming | None:
    """The decoded message, or None if decoding fails: `_record` then decodes it again inside its
    savepoint, where the failure is handled and reported like any failure of a command."""
    try:
        return reading.decode(msg, raw, config.server.address, mail_from, rcpt_tos)
    except Exception:
        return None


def _record(db: Database, config: Config, arrival: Arrival, now: datetime, step: _Step,
            claimant: str | None) -> IntakeResult:
    key, sender = arrival.key, arrival.sender
    status = "automatic" if arrival.automatic else "too_large" if arrival.too_large else "processed"
    inbound_id = _insert(db, arrival, now, status)
    if inbound_id is None:      # most likely redelivered because we died before acknowledging it
        [earlier] = db.execute("SELECT id FROM inbound WHERE dedup_key = ?", [key]).fetchone()
        unsent = db.execute("SELECT id FROM outbox WHERE inbound_id = ? AND status IN "
                            "('queued', 'sending') ORDER BY id", [earlier]).fetchall()
        return IntakeResult("duplicate", earlier, tuple(row[0] for row in unsent), key)
    if arrival.automatic:
        done = (reports.unsubscribed(db, config, arrival.unsubscribe, now) if arrival.unsubscribe else
                reports.record(db, config, arrival.report, now) if arrival.report else None)
        if done:
            db.execute("UPDATE inbound SET detail = ? WHERE id = ?", [f"{arrival.automatic}: {done}",
                                                                     inbound_id])
        return IntakeResult("automatic", inbound_id, key=key)
    if arrival.too_large:
        reply = _notice(config, sender, key, TOO_LARGE.format(
            size=arrival.size, limit=config.smtp.max_message_size, message_id=key))
        return IntakeResult("too_large", inbound_id,
                            tuple(queue.queue(db, config, [reply], now, inbound_id, claimant)), key)
    try:
        return _command(db, config, arrival, inbound_id, now, claimant)
    except Exception as e:
        if _transient(e) or not db.conn.in_transaction:
            raise                       # the whole transaction goes; the sender tries again
        detail = describe_exception(e)
        step.undo()                     # the command's changes go, and so does the record...
        inbound_id = _insert(db, arrival, now, "failed", detail,    # ...made again, as failed
                             sealed.seal(config.secret, arrival.raw, key))
        return _failed(db, config, inbound_id, key, sender, detail, now, claimant)


def _insert(db: Database, arrival: Arrival, now: datetime, status: str,
            detail: str | None = None, sealed_raw: bytes | None = None) -> int | None:
    """Record the message once (one statement), redacted: None if it was recorded before.
    `detail`: why it failed (else why it is automatic mail, if it is); `sealed_raw`: a failed
    message's bytes, encrypted (pbm.model.server.sealed), for `retry`."""
    mail_from = arrival.mail_from
    recorded = db.execute(
        "INSERT INTO inbound (dedup_key, message_id, received_at, envelope_from, envelope_to, sender, "
        "size, raw, status, detail, redacted, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?) "
        "ON CONFLICT (dedup_key) DO NOTHING RETURNING id",
        [arrival.key, arrival.message_id, timestamp(now),
         None if mail_from is None else mail_from.strip("<>"), ",".join(arrival.rcpt_tos),
         arrival.sender, arrival.size, arrival.record, status, detail or arrival.automatic,
         sealed_raw]).fetchone()
    return None if recorded is None else recorded[0]


def moved_at(arrival: Arrival, taken: datetime, max_hold: timedelta) -> datetime:
    """The time the message's commands run at: when it reached the trusted MX, if it says (never
    later than `taken`, when pbm took it, nor more than `max_hold` before it), else `taken`."""
    if not arrival.reached:
        return taken
    return min(max(parse_timestamp(arrival.reached), taken - max_hold), taken)


def _command(db: Database, config: Config, arrival: Arrival, inbound_id: int,
             now: datetime, claimant: str | None = None, taken: datetime | None = None) -> IntakeResult:
    """Run the message's commands at the time it arrived and queue their replies (undone by the
    caller if it fails); `taken`: when pbm took it, if not `now`."""
    message, kept = arrival.message, arrival.kept      # decoded ahead, outside the write lock
    if message is None:
        msg = reading.parse(arrival.raw)
        message = reading.decode(msg, arrival.raw, config.server.address, arrival.mail_from,
                                 arrival.rcpt_tos)
        kept = reading.kept_headers(msg)
    handled = dispatch.handle(db, config, message, moved_at(arrival, taken or now,
                                                            timedelta(hours=config.clocks.max_hold)))
    error_point("command-error")
    ids = queue.queue(db, config, handled.replies, now, inbound_id, claimant)
    db.execute("UPDATE inbound SET raw = ?, redacted = 1 WHERE id = ?",
               [reading.redacted(kept, handled.subject, handled.body), inbound_id])
    return IntakeResult("processed", inbound_id, tuple(ids), arrival.key)


def retry(db: Database, config: Config, inbound_id: int,
          now: datetime | None = None) -> IntakeResult:
    """Run a failed message again once its fault is fixed (`pbm inbound retry ID`): its commands
    run as if it had just arrived and the sender gets the answer they were owed.  Raises
    LookupError for a message that did not fail, and the error itself if it fails again (then
    nothing changes and nobody is mailed twice)."""
    row = db.execute("SELECT sealed, envelope_from, envelope_to, status, dedup_key, received_at FROM inbound "
                     "WHERE id = ?", [inbound_id]).fetchone()
    if row is None or row[3] != "failed" or row[0] is None:
        raise LookupError(f"inbound message {inbound_id} " + (
            "does not exist" if row is None else f"did not fail (it is {row[3]})" if row[3] != "failed"
            else "was recorded before failed messages were sealed: only its redacted text is kept"))
    raw = sealed.unseal(config.secret, row[0], row[4])
    mail_from, rcpt_tos = row[1], tuple(filter(None, row[2].split(",")))
    arrival = prepare(db, config, Delivery(raw, mail_from, rcpt_tos))
    with transaction(db):
        result = _command(db, config, arrival, inbound_id, now or datetime.now(timezone.utc),
                          taken=parse_timestamp(row[5]))
        db.execute("UPDATE inbound SET status = 'processed', detail = NULL, sealed = NULL WHERE id = ?",
                   [inbound_id])
    return result


def _failed(db: Database, config: Config, inbound_id: int, key: str, sender: str,
            detail: str, now: datetime, claimant: str | None) -> IntakeResult:
    """Tell the sender (and the administrators) that a message, recorded as failed, failed."""
    log.error("inbound %d %s failed with an internal error, kept for the administrators:\n%s",
              inbound_id, key, detail)
    told = TOLD if config.admins.notify else NOT_TOLD
    notices = [_notice(config, sender, key, INTERNAL_ERROR.format(message_id=key, told=told))]
    # at most one notice an hour (a sender who can make a command fail must not page the admins
    # per mail): it counts the failures since the last one, which `pbm inbound failed` lists
    previous = heartbeats.last(db, CRASH_NOTICE)
    if config.admins.notify and (previous is None or now - previous >= NOTICE_EVERY):
        heartbeats.beat(db, CRASH_NOTICE, now)
        failed = db.execute("SELECT count(*) FROM inbound WHERE redacted < 2 AND received_at > ? AND "
                            "status = 'failed'", [timestamp(previous) if previous else ""]).fetchone()[0]
        since = f"the last notice, at {timestamp(previous)[:16]} UTC" if previous else "pbm began"
        notices += [_notice(config, admin, None, ADMIN_NOTICE.format(
            inbound_id=inbound_id, message_id=key, sender=sender, detail=detail,
            failed=f"{failed} message{'' if failed == 1 else 's'}", since=since), "auto-generated") for admin in config.admins.notify]
    ids = queue.queue(db, config, notices, now, inbound_id, claimant)
    return IntakeResult("failed", inbound_id, tuple(ids), key)


def _transient(error: BaseException) -> bool:
    if health.damage(error):            # the MTA keeps the message until the file is restored
        return True
    if isinstance(error, sqlite3.OperationalError):
        return any(word in str(error).lower() for word in _TRANSIENT_SQLITE)
    if isinstance(error, OSError):
        return error.errno in _TRANSIENT_ERRNO
    return isinstance(error, MemoryError)


def _notice(config: Config, to: str, in_reply_to: str | None, body: str,
            auto_submitted: str = "auto-replied") -> Outgoing:
    return Outgoing(to=to, subject=f"{config.server.name} error", body=body,
                    in_reply_to=in_reply_to if in_reply_to and in_reply_to.startswith("<") else None,
                    auto_submitted=auto_submitted)


TOO_LARGE = """\
Your message {message_id} was not read: it is {size} bytes long, and this server
accepts messages of at most {limit} bytes.

Commands are short: send the command in the subject (or, with the subject
"multiple", one command per line in the body), without attachments.
"""

INTERNAL_ERROR = """\
Your message {message_id} could not be processed because of an internal error in
the server, and nothing in it was carried out. The message is kept, so that it
can be run again once the fault is fixed; {told}
"""

TOLD = "the administrators were told."
CRASH_NOTICE = "crash-notice"           # the heartbeat of the last notice to the administrators
NOTICE_EVERY = timedelta(hours=1)
NOT_TOLD = """this server has no address to tell its
administrators by mail: the error is in its log. If it persists, please tell
them yourself."""

ADMIN_NOTICE = """\
Inbound message {inbound_id} {message_id} from {sender} failed with an internal error.
It is kept in the inbound table with status 'failed'; its text is not included here.
Once the fault is fixed, run it again with `pbm inbound retry {inbound_id}`.
Failed since {since}: {failed},
this one included (`pbm inbound failed` lists them). Further failures within
the hour are not mailed, only counted in the next notice.

{detail}
"""
