"""The outbox: replies wait in the database as finished bytes until they are handed over.

`queue()` renders each `Outgoing` into a complete RFC 5322 message inside the caller's transaction,
so a reply exists exactly when the command that caused it was committed, and every later attempt
sends the same bytes with the same Message-ID.  `send_due()` claims rows (so `pbm deliver` and
`pbm serve` never send one row at the same time), hands them to the transport, and records the
outcome row by row.

A process killed while sending leaves its rows claimed; they are taken over as soon as the claiming
process is seen to be gone, or when the claim lapses.  The Maildir transport is idempotent (the file
name comes from the row, a second write replaces the first), so every reply lands exactly once.
An SMTP relay can only be at-least-once: a reply the relay accepted just before the crash is sent
again, with the same Message-ID, so mail clients show it once.
"""
from __future__ import annotations

import binascii
import functools
import hashlib
import itertools
import logging
import os
import re
import secrets
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from email.charset import QP, Charset
from email.header import Header
from email.utils import format_datetime, formataddr
from typing import Protocol, TypeVar

from pbm.config import Config
from pbm.faults import crash_point
from pbm.messages import Outgoing
from pbm.store import Database, parse_timestamp, timestamp, transaction

log = logging.getLogger(__name__)

BATCH = 100

T = TypeVar("T")


def queue(db: Database, config: Config, outgoing: Iterable[Outgoing], now: datetime,
          inbound_id: int | None = None, claimant: str | None = None) -> list[int]:
    """Render and queue replies; call inside a transaction.  Returns the outbox ids.

    A reply to an address that failed for good BOUNCING_AFTER times is recorded as failed at once.
    With `claimant` (`claimant()` of the process that sends the replies once the transaction is
    committed: `pbm deliver`, `pbm poll`, the outbox process of `pbm serve`), each reply is claimed
    for it right away -- no claim transaction after the commit -- unless it is failed, or an older
    reply to the same address is still unsent: that one goes first (see `_in_recipient_order`), so
    this one waits in the queue.
    All the replies of a command are written with two statements (their rows, then their bodies),
    up to QUEUED_AT_ONCE at a time."""
    rendered = []
    for out in outgoing:
        out = replace(out, to=wire_address(out.to))
        rendered.append((out, *render(config, out, now)))
    ids, at, until = [], timestamp(now), timestamp(now + _lease(config))
    for start in range(0, len(rendered), QUEUED_AT_ONCE):
        chunk = rendered[start:start + QUEUED_AT_ONCE]
        given = [value for n, (out, message_id, _) in enumerate(chunk)
                 for value in (message_id, out.to, out.subject, out.to.lower(), n)]
        numbered = dict(db.execute(
            "INSERT INTO outbox (inbound_id, message_id, recipient, subject, queued_at, "
            "next_attempt_at, status, last_error, claimed_by, claimed_until, attempts) "
            "SELECT ?, message_id, recipient, subject, ?, ?, "
            "CASE WHEN bouncing THEN 'failed' WHEN mine THEN 'sending' ELSE 'queued' END, "
            "CASE WHEN bouncing THEN ? END, CASE WHEN mine THEN ? END, CASE WHEN mine THEN ? END, mine "
            "FROM (SELECT r.column1 AS message_id, r.column2 AS recipient, r.column3 AS subject, "
            "r.column5 AS n, coalesce(b.failures >= ?, 0) AS bouncing, ? IS NOT NULL "
            "AND coalesce(b.failures < ?, 1) AND NOT EXISTS (SELECT 1 FROM outbox AS o INDEXED BY "
            "outbox_unsent WHERE o.recipient = r.column2 AND o.status IN ('queued', 'sending')) AS mine "
            "FROM (VALUES "
            + ", ".join(["(?, ?, ?, ?, ?)"] * len(chunk)) + ") r "
            "LEFT JOIN bounces b ON b.address = r.column4) ORDER BY n RETURNING message_id, id",
            [inbound_id, at, at, f"not sent: mail to this address failed for good {BOUNCING_AFTER} times",
             claimant, until, BOUNCING_AFTER, claimant, BOUNCING_AFTER, *given]))
        chunk_ids = [numbered[message_id] for _, message_id, _ in chunk]
        db.execute("INSERT INTO outbox_bodies (id, raw) VALUES " + ", ".join(["(?, ?)"] * len(chunk)),
                   [value for row_id, (_, _, raw) in zip(chunk_ids, chunk) for value in (row_id, raw)])
        ids += chunk_ids
    return ids


QUEUED_AT_ONCE = 100    # replies per INSERT: 5 parameters each, well below SQLite's limit


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


# --- bounces: an address the relay refused for good BOUNCING_AFTER times is skipped ---------------

BOUNCING_AFTER = 3


def render(config: Config, out: Outgoing, now: datetime) -> tuple[str, bytes]:
    """The complete message for one reply: (Message-ID, bytes with CRLF line ends).

    The header block is written directly, not through `email.message.Message` and its generator:
    a move command renders two or more replies inside the write transaction, and folding every
    header through `email.header.Header` cost about a millisecond per reply.  A header that needs
    no folding or encoding (short, printable ASCII: nearly all of them) is written as it is; any
    other is folded (and encoded) by `email.header.Header`.
    """
    # the kind of a game mail rides in its Message-ID, so that a reply says what it answers; the
    # unique part comes from `secrets`, not from `email.utils.make_msgid`, whose `random` any
    # library (or a test framework) may seed, which made two replies share a Message-ID
    message_id = (f"<{now.strftime('%Y%m%d%H%M%S')}.{secrets.token_hex(12)}."
                  f"{'pbm-' + out.kind if out.kind else 'pbm'}@{config.server.address.rpartition('@')[2]}>")
    references = list(out.references)
    if out.in_reply_to and out.in_reply_to not in references:
        references.append(out.in_reply_to)
    headers = {
        "From": formataddr((config.server.name, config.server.address), charset="utf-8"),
        "To": out.to,
        "Subject": out.subject,
        "Date": format_datetime(now.astimezone(timezone.utc)),
        "Message-ID": message_id,
        "In-Reply-To": out.in_reply_to,
        "References": " ".join(references),
        "Reply-To": out.reply_to,
        "Auto-Submitted": out.auto_submitted,
        "X-Auto-Response-Suppress": "All",      # asks Exchange & co. for no out-of-office replies
        **out.headers,
    }
    lines = [_header_line(name, value) for name, value in headers.items() if value]
    international = not out.to.isascii()    # RFC 6532: the header holds UTF-8, sent with SMTPUTF8
    part_headers, body = _text_part(out.body, "plain")
    if out.html:        # the same mail drawn: a client shows the last part it can (RFC 2046 5.1.4)
        part_headers, body = _multipart("alternative", [(part_headers, body), _html_part(out.html)])
    if out.attachments:
        part_headers, body = _multipart("mixed", [(part_headers, body), *(
            _text_part(text, "plain", filename) for filename, text in out.attachments)])
    lines += ["MIME-Version: 1.0", *part_headers]
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")
    text = "\r\n".join(lines) + "\r\n\r\n" + body
    return message_id, text.encode("utf-8" if international else "ascii")


def _text_part(text: str, subtype: str, filename: str = "") -> tuple[list[str], str]:
    """(headers, encoded body) of a text part: 7-bit as it is where it can be, else quoted-printable
    UTF-8, readable in any mail client and safe on any relay."""
    headers = []
    if text.isascii() and max(map(len, text.splitlines()), default=0) <= 998:
        headers += [f'Content-Type: text/{subtype}; charset="us-ascii"', "Content-Transfer-Encoding: 7bit"]
    else:
        headers += [f'Content-Type: text/{subtype}; charset="utf-8"',
                    "Content-Transfer-Encoding: quoted-printable"]
        text = _UTF8_QUOTED_PRINTABLE.body_encode(text)
    if filename:
        headers[0] += f'; name="{filename}"'
        headers.append(f'Content-Disposition: attachment; filename="{filename}"')
    return headers, text


def _html_part(html: str) -> tuple[list[str], str]:
    """The HTML part, in base64: nobody reads it raw, and quoted-printable's pure-Python encoder
    took half a millisecond for a board with its characters (base64's is C)."""
    data = binascii.b2a_base64(html.encode("utf-8"), newline=False).decode("ascii")
    lines = "\n".join(data[i:i + 76] for i in range(0, len(data), 76))    # RFC 2045's line length
    return ['Content-Type: text/html; charset="utf-8"', "Content-Transfer-Encoding: base64"], lines


def _multipart(subtype: str, parts: list[tuple[list[str], str]]) -> tuple[list[str], str]:
    boundary = f"=_pbm_{secrets.token_hex(12)}"     # never inside a 7-bit, QP or base64 part's lines
    # the line break before a boundary belongs to the boundary (RFC 2046 5.1.1): one more keeps
    # the part's own last line break
    body = "".join(f"--{boundary}\n" + "\n".join(headers) + "\n\n" + text.rstrip("\n") + "\n\n"
                   for headers, text in parts)
    return [f'Content-Type: multipart/{subtype}; boundary="{boundary}"'], body + f"--{boundary}--\n"


def _header_line(name: str, value: str) -> str:
    """`Name: value`, folded (and RFC 2047-encoded if not ASCII) only where that is needed."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"line break in the {name} header of a reply")
    if name in ("To", "Reply-To") and not value.isascii():
        return f"{name}: {value}"       # an address is never RFC 2047-encoded (RFC 6532 instead)
    if len(name) + 2 + len(value) <= _MAX_LINE and _UNFOLDED.fullmatch(value):
        return f"{name}: {value}"
    encode = not value.isascii() and name not in ("To", "Reply-To")   # addresses stay whole
    header = Header(value, "utf-8" if encode else None, header_name=name)
    return f"{name}: " + header.encode(linesep="\r\n", maxlinelen=_MAX_LINE)


_MAX_LINE = 78                          # RFC 5322's recommended limit, as the email package folds
_UNFOLDED = re.compile(r"[!-~]+(?: [!-~]+)*")   # printable ASCII words, single spaces between
_UTF8_QUOTED_PRINTABLE = Charset("utf-8")
_UTF8_QUOTED_PRINTABLE.body_encoding = QP     # readable in any mail client, safe on any relay


@dataclass
class SendReport:
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    claimed: int = 0


Write = Callable[[Callable[[Database], T]], T]
"""Runs a function of the database inside a write transaction and returns what it returned.  The
outbox's functions are picklable (partials of this module's functions, with their data), so that
the transaction may be another process's: `pbm serve` sends from its outbox process and has its
main process, the one writer, make the writes."""


def in_transaction(db: Database) -> Write:
    """The `Write` of a process with no writer thread: each call a transaction of `db` itself."""
    def write(work: Callable[[Database], T]) -> T:
        with transaction(db):
            return work(db)
    return write


class Transport(Protocol):
    """Where replies go: the Maildir (below) or an SMTP relay (pbm.relay)."""

    idempotent: bool                    # sending a row twice leaves one copy

    def send(self, row: dict) -> None: ...

    def sync(self) -> None: ...

    def close(self) -> None: ...


def _relay(config: Config) -> Transport:
    from pbm.relay import Relay        # the SMTP client and TLS, only where a relay is used
    return Relay(config)


def send_due(db: Database, config: Config, ids: Sequence[int] | None = None,
             force: bool = False, *, write: Write | None = None,
             batches: int | None = None) -> SendReport:
    """Send queued replies that are due (all queued ones if `force`; only `ids` if given), at
    most `batches` claims of up to BATCH rows (None: until none is left) -- after the rows `queue`
    claimed for this process.

    The outbox's own writes (claims, outcomes) go through `write`: by default transactions of
    `db`; `pbm serve` has its writer make them, queued behind the messages it commits.
    """
    write = write or in_transaction(db)
    me = claimant()
    report = SendReport()
    transport = _Maildir(config) if config.outbound.mode == "maildir" else _relay(config)
    try:
        mine = _claimed_when_queued(db, me, ids)
        if mine:                        # a batch, with no claim to make
            report.claimed += len(mine)
            if not _send_batch(write, me, config, transport, mine, report):
                return report
        if ids is not None and not set(ids) - {row["id"] for row in mine}:
            return report               # all of them were ours already: no claim transaction
        after = 0                       # ids only grow: a row deferred in this call waits for the next
        left = None if batches is None else batches - bool(mine)
        for _ in itertools.repeat(None) if left is None else range(left):
            rows = _claim(db, write, me, config, ids, force, after)
            if not rows:
                break
            report.claimed += len(rows)
            after = rows[-1]["id"]
            if not _send_batch(write, me, config, transport, rows, report):
                break
    finally:
        transport.close()
    return report


def _send_batch(write: Write, claimant: str, config: Config, transport: Transport,
                rows: list[dict], report: SendReport) -> bool:
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
    try:
        for index, row in enumerate(rows):
            if row["recipient"] in held:
                _release(write, claimant, [row])
                continue
            try:
                transport.send(row)
            except Unavailable as e:
                _retry_later(write, claimant, config, row, str(e), report)
                _release(write, claimant, rows[index + 1:])
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
        [timestamp(datetime.now(timezone.utc)), mine, _taken(db).get(mine, 0)]).fetchone()[0])


def listing(db: Database, status: str | None = None, limit: int = 50) -> list[dict]:
    """The newest outbox rows (without their bytes), for `pbm outbox`."""
    where = "WHERE status = ?" if status else ""
    return list(db.query(
        f"SELECT id, status, attempts, queued_at, next_attempt_at, sent_at, recipient, subject, "
        f"message_id, last_error FROM outbox {where} ORDER BY id DESC LIMIT ?",
        [status, limit] if status else [limit]))


def counts(db: Database) -> dict[str, int]:
    return {row["status"]: row["n"]
            for row in db.query("SELECT status, count(*) AS n FROM outbox GROUP BY status")}


# --- claiming ---------------------------------------------------------------------------------

_claimant_cache: tuple[int, str] | None = None


def claimant() -> str:
    """Who this process is, for claims (see `queue`): host:pid:nonce.  The nonce tells a restarted
    process (same pid, as in a container) from its dead predecessor."""
    global _claimant_cache
    if _claimant_cache is None or _claimant_cache[0] != os.getpid():
        _claimant_cache = (os.getpid(), f"{os.uname().nodename}:{os.getpid()}:{secrets.token_hex(4)}")
    return _claimant_cache[1]


def _claimant_gone(claimant: str, mine: str) -> bool:
    """Whether the process that made a claim is gone, judged from a process on the same host that
    claims as `mine` (a pid that is mine but with another nonce belonged to my predecessor)."""
    host, _, rest = claimant.partition(":")
    pid, _, _nonce = rest.partition(":")
    if host != os.uname().nodename or not pid.isdigit():
        return False                    # not ours to judge: wait for the claim to lapse
    if pid == mine.split(":")[1]:
        return claimant != mine
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    return _zombie(int(pid))


def _zombie(pid: int) -> bool:
    """A killed process nobody reaped (in a container whose first process does not reap orphans)
    still answers kill(pid, 0): Linux shows it as state Z."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def _claimed_when_queued(db: Database, claimant: str, ids: Sequence[int] | None) -> list[dict]:
    """The rows `queue` claimed for this process (among `ids`, if given) and not taken up yet, to
    send now: read, not claimed again.  Each is taken up once: one whose sending failed half-way is
    left for its claim to lapse, as any claimed row, instead of being tried again at once."""
    only = "" if ids is None else f"AND o.id IN ({','.join('?' * len(ids))})"
    rows = list(db.query(f"SELECT o.*, b.raw FROM outbox o INDEXED BY outbox_due JOIN outbox_bodies b "
                         f"ON b.id = o.id WHERE o.status = 'sending' AND o.claimed_by = ? AND o.id > ? "
                         f"{only} ORDER BY o.id LIMIT {BATCH}",
                         [claimant, _taken(db).get(claimant, 0), *(ids or ())]))
    if rows:
        _taken(db)[claimant] = rows[-1]["id"]
    return rows


def _taken(db: Database) -> dict[str | None, int]:
    """By claimant of this process: the last row claimed for it as it was queued that it took up
    (see `_claimed_when_queued`).  Kept per connection: ids only grow within one database."""
    return _taken_up.setdefault(db, {})


_taken_up: weakref.WeakKeyDictionary[Database, dict[str | None, int]] = weakref.WeakKeyDictionary()


def _lease(config: Config) -> timedelta:
    """How long a claim holds: then another process may take the rows over."""
    return timedelta(seconds=max(60.0, 4 * config.outbound.timeout))


def _claim(db: Database, write: Write, claimant: str, config: Config,
           ids: Sequence[int] | None, force: bool, after: int) -> list[dict]:
    """Claim up to BATCH due rows for `claimant`, then read them (once claimed, they are ours:
    their bytes need not be read under the write lock)."""
    now = datetime.now(timezone.utc)
    chosen = write(functools.partial(_claim_rows, claimant=claimant, now=timestamp(now),
                                     until=timestamp(now + _lease(config)), ids=ids, force=force,
                                     after=after))
    marks = ",".join("?" * len(chosen))
    return list(db.query(f"SELECT o.*, b.raw FROM outbox o JOIN outbox_bodies b ON b.id = o.id "
                         f"WHERE o.id IN ({marks}) ORDER BY o.id", chosen))


def _claim_rows(db: Database, *, claimant: str, now: str, until: str,
                ids: Sequence[int] | None, force: bool, after: int) -> list[int]:
    """The claim itself, in the write transaction: due rows, and rows whose claim lapsed or whose
    claimant is gone, with ids above `after` (and among `ids`, if given)."""
    only = f"AND id > {int(after)}"
    if ids is not None:
        only += f" AND id IN ({','.join('?' * len(ids))})"
    # INDEXED BY: statistics from ANALYZE (nearly every row is 'sent') can make SQLite walk the
    # whole table in id order instead, reading each row's bytes to find its status.
    due = list(db.query(
        f"SELECT id FROM outbox INDEXED BY outbox_due WHERE status = 'queued' "
        f"AND (? OR next_attempt_at <= ?) {only} ORDER BY id LIMIT {BATCH}", [force, now, *(ids or ())]))
    stale = [row for row in db.query(
        f"SELECT id, claimed_by, claimed_until FROM outbox INDEXED BY outbox_due "
        f"WHERE status = 'sending' {only}", [*(ids or ())])
        if row["claimed_until"] <= now or _claimant_gone(row["claimed_by"], claimant)]
    chosen = _in_recipient_order(db, sorted(row["id"] for row in due + stale)[:BATCH])
    db.execute(f"UPDATE outbox SET status = 'sending', claimed_by = ?, claimed_until = ?, "
               f"attempts = attempts + 1 WHERE id IN ({','.join('?' * len(chosen))})",
               [claimant, until, *chosen])
    return chosen


def _in_recipient_order(db: Database, chosen: list[int]) -> list[int]:
    """`chosen` without the rows that must wait for an older unsent reply to the same recipient
    (one deferred by the relay, or claimed elsewhere): each recipient gets their replies in the
    order they were queued, also after an outage."""
    if not chosen:
        return chosen
    marks = ",".join("?" * len(chosen))
    rows = db.execute(
        f"SELECT c.id, c.recipient, EXISTS (SELECT 1 FROM outbox AS o INDEXED BY outbox_unsent "
        f"WHERE o.recipient = c.recipient AND o.status IN ('queued', 'sending') AND o.id < c.id "
        f"AND o.id NOT IN ({marks})) FROM outbox AS c WHERE c.id IN ({marks}) ORDER BY c.id",
        [*chosen, *chosen]).fetchall()
    waiting: set[str] = set()
    kept = []
    for row_id, recipient, blocked in rows:
        if blocked or recipient in waiting:
            waiting.add(recipient)
        else:
            kept.append(row_id)
    return kept


def _finish(write: Write, claimant: str, rows: list[dict], **changes: object) -> None:
    """Record the outcome of attempts, except on rows another process has taken over meanwhile."""
    write(functools.partial(_record_outcome, ids=[row["id"] for row in rows], claimant=claimant,
                            changes=changes))


def _record_outcome(db: Database, *, ids: list[int], claimant: str,
                    changes: dict[str, object]) -> None:
    sets = ", ".join(f"{name} = ?" for name in changes)
    db.execute(f"UPDATE outbox SET {sets}, claimed_by = NULL, claimed_until = NULL "
               f"WHERE id IN ({','.join('?' * len(ids))}) AND claimed_by = ?",
               [*changes.values(), *ids, claimant])


def _mark_sent(write: Write, claimant: str, rows: list[dict], report: SendReport) -> None:
    _finish(write, claimant, rows, status="sent", sent_at=timestamp(datetime.now(timezone.utc)),
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
    _finish(write, claimant, [row], status="queued",
            next_attempt_at=timestamp(now + timedelta(seconds=delay)), last_error=reason)
    report.retrying += 1
    log.warning("outbox %d deferred (attempt %d, next in %.0fs): %s", row["id"], row["attempts"],
                delay, reason)


def _give_up(write: Write, claimant: str, row: dict, reason: str, report: SendReport,
             config: Config | None = None) -> None:
    """The reply is failed for good.  When the relay refused it (`config` given: a 5xx), the
    address counts a bounce, the administrators are told, and so is the player at their other
    addresses (pbm.bounces)."""
    _finish(write, claimant, [row], status="failed", last_error=reason)
    report.failed += 1
    log.error("outbox %d failed for good: %s", row["id"], reason)
    if config is not None:
        from pbm import bounces
        write(functools.partial(bounces.refused, config=config, row_id=row["id"],
                                recipient=row["recipient"], subject=row["subject"], reason=reason))


def _release(write: Write, claimant: str, rows: list[dict]) -> None:
    """Put claimed rows that were not tried back in the queue, as if never claimed."""
    if rows:
        write(functools.partial(_put_back, ids=[row["id"] for row in rows], claimant=claimant))


def _put_back(db: Database, *, ids: list[int], claimant: str) -> None:
    db.execute(f"UPDATE outbox SET status = 'queued', attempts = attempts - 1, claimed_by = NULL, "
               f"claimed_until = NULL WHERE id IN ({','.join('?' * len(ids))}) AND claimed_by = ?",
               [*ids, claimant])


# --- transports -------------------------------------------------------------------------------

class Unavailable(Exception):
    """The relay cannot be reached or refuses us: try this row later, and stop the batch."""


class Refused(Exception):
    """The relay refused one message: 4xx is temporary, 5xx permanent."""

    def __init__(self, reason: str, temporary: bool):
        super().__init__(reason)
        self.temporary = temporary


class _Maildir:
    """The embedded default: each reply becomes a file in a local Maildir (`new/`)."""

    idempotent = True                   # a second delivery of a row replaces the first

    def __init__(self, config: Config):
        # Paths as text: joining pathlib paths cost more than writing the files.
        self.tmp, self.new, self.cur = (os.path.join(config.outbox_maildir, sub)
                                        for sub in ("tmp", "new", "cur"))
        for folder in (config.outbox_maildir, self.tmp, self.new, self.cur):   # as mailbox.Maildir
            os.makedirs(folder, mode=0o700, exist_ok=True)     # makes them, without importing it
        self.domain = config.server.address.rpartition("@")[2]
        self._staged: list[tuple[str, int]] = []    # file name in tmp/, open descriptor

    def send(self, row: dict) -> None:
        """Write the file to tmp/; `sync()` makes it durable and moves it into new/.

        Plain descriptors, kept open until `sync()`: Python's file objects cost three more system
        calls per file, and reopening for the fsync two more."""
        name = maildir_name(row, self.domain)
        if row["attempts"] > 1 and self._delivered(name):
            return                      # handed over before a crash, and already read from new/
        fd = os.open(os.path.join(self.tmp, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            data = memoryview(row["raw"].replace(b"\r\n", b"\n"))
            while data:
                data = data[os.write(fd, data):]
        except BaseException:
            os.close(fd)
            raise
        self._staged.append((name, fd))

    def sync(self) -> None:
        """fsync the staged files (in a few parallel runs: the file system merges them into few
        journal commits), rename them into new/ (a resend replaces, never doubles), fsync new/."""
        if not self._staged:
            return
        names, fds = [name for name, _ in self._staged], [fd for _, fd in self._staged]
        runs = [fds[i::_FSYNC_THREADS] for i in range(min(_FSYNC_THREADS, len(fds)))]
        try:
            list(_FSYNC_POOL.map(_fsync_all, runs))
        finally:
            self.close()
        for name in names:
            os.replace(os.path.join(self.tmp, name), os.path.join(self.new, name))
        _fsync(self.new)

    def _delivered(self, name: str) -> bool:
        return os.path.exists(os.path.join(self.new, name)) or any(
            entry.startswith(name + ":") for entry in os.listdir(self.cur))

    def close(self) -> None:
        """Close the staged files (a batch that fails before `sync()` is claimed again later)."""
        for _, fd in self._staged:
            os.close(fd)
        self._staged.clear()


def maildir_name(row: dict, domain: str) -> str:
    """time.unique.host, all taken from the row, so the same reply always gets the same name."""
    epoch = int(parse_timestamp(row["queued_at"]).timestamp())
    digest = hashlib.sha256(row["message_id"].encode()).hexdigest()[:16]
    return f"{epoch}.P{row['id']}Q{digest}.{domain.replace('/', '_').replace(':', '_')}"


# Kept for the life of the process: starting threads for every batch cost more than the fsyncs.
# Few threads, each with a run of files: a task per file cost more than its fsync.
_FSYNC_THREADS = 4
_FSYNC_POOL = ThreadPoolExecutor(max_workers=_FSYNC_THREADS, thread_name_prefix="pbm-fsync")


def _fsync_all(fds: list[int]) -> None:
    for fd in fds:
        os.fsync(fd)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
