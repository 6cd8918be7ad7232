"""Claims on outbox rows: which process sends a reply, until when, and taking over a dead one's."""
from __future__ import annotations

import functools
import os
import secrets
import weakref
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from typing import TypeVar

from pbm.config import Config
from pbm.model.db import Database, timestamp, transaction

BATCH = 100

T = TypeVar("T")

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


def claimed_when_queued(db: Database, claimant: str, ids: Sequence[int] | None) -> list[dict]:
    """The rows `queue` claimed for this process (among `ids`, if given) and not taken up yet, to
    send now: read, not claimed again.  Each is taken up once: one whose sending failed half-way is
    left for its claim to lapse, as any claimed row, instead of being tried again at once."""
    only = "" if ids is None else f"AND o.id IN ({','.join('?' * len(ids))})"
    rows = list(db.query(f"SELECT o.*, m.body_id FROM outbox o INDEXED BY outbox_due JOIN outbox_messages m "
                         f"ON m.id = o.id WHERE o.status = 'sending' AND o.claimed_by = ? AND o.id > ? "
                         f"{only} ORDER BY o.id LIMIT {BATCH}",
                         [claimant, taken(db).get(claimant, 0), *(ids or ())]))
    if rows:
        taken(db)[claimant] = rows[-1]["id"]
    return _with_bodies(db, rows)


def _with_bodies(db: Database, rows: list[dict]) -> list[dict]:
    """`rows` with their `body`, each body read once however many copies of a mail share it."""
    wanted = sorted({row["body_id"] for row in rows})
    bodies = dict(db.execute(f"SELECT id, raw FROM outbox_bodies WHERE id IN ({','.join('?' * len(wanted))})",
                             wanted)) if wanted else {}
    return [{**row, "body": bodies[row["body_id"]]} for row in rows]


def taken(db: Database) -> dict[str | None, int]:
    """By claimant of this process: the last row claimed for it as it was queued that it took up
    (see `claimed_when_queued`).  Kept per connection: ids only grow within one database."""
    return _taken_up.setdefault(db, {})


_taken_up: weakref.WeakKeyDictionary[Database, dict[str | None, int]] = weakref.WeakKeyDictionary()


def lease(config: Config) -> timedelta:
    """How long a claim holds: then another process may take the rows over."""
    return timedelta(seconds=max(60.0, 4 * config.outbound.timeout))


def claim(db: Database, write: Write, claimant: str, config: Config,
           ids: Sequence[int] | None, force: bool, after: int) -> list[dict]:
    """Claim up to BATCH due rows for `claimant`, then read them (once claimed, they are ours:
    their bytes need not be read under the write lock)."""
    now = datetime.now(timezone.utc)
    chosen = write(functools.partial(_claim_rows, claimant=claimant, now=timestamp(now),
                                     until=timestamp(now + lease(config)), ids=ids, force=force,
                                     after=after))
    marks = ",".join("?" * len(chosen))
    return _with_bodies(db, list(db.query(f"SELECT o.*, m.body_id FROM outbox o JOIN outbox_messages m "
                                          f"ON m.id = o.id WHERE o.id IN ({marks}) ORDER BY o.id", chosen)))


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


def finish(write: Write, claimant: str, rows: list[dict], **changes: object) -> None:
    """Record the outcome of attempts, except on rows another process has taken over meanwhile."""
    write(functools.partial(_record_outcome, ids=[row["id"] for row in rows], claimant=claimant,
                            changes=changes))


def _record_outcome(db: Database, *, ids: list[int], claimant: str,
                    changes: dict[str, object]) -> None:
    sets = ", ".join(f"{name} = ?" for name in changes)
    db.execute(f"UPDATE outbox SET {sets}, claimed_by = NULL, claimed_until = NULL "
               f"WHERE id IN ({','.join('?' * len(ids))}) AND claimed_by = ?",
               [*changes.values(), *ids, claimant])


def release(write: Write, claimant: str, rows: list[dict]) -> None:
    """Put claimed rows that were not tried back in the queue, as if never claimed."""
    if rows:
        write(functools.partial(_put_back, ids=[row["id"] for row in rows], claimant=claimant))


def _put_back(db: Database, *, ids: list[int], claimant: str) -> None:
    db.execute(f"UPDATE outbox SET status = 'queued', attempts = attempts - 1, claimed_by = NULL, "
               f"claimed_until = NULL WHERE id IN ({','.join('?' * len(ids))}) AND claimed_by = ?",
               [*ids, claimant])
