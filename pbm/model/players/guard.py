"""The limit on password guessing, made so that a lock hurts the guesser and not the player.

Anyone can send mail with any From, so a password must not be guessable by mail.  Wrong passwords
are counted per user id and per source: the sender address and, where the MTA of `[security]
authserv_id` vouches for the From, its domain (a guesser who owns a domain cannot walk through its
addresses).  After `[server] password_failures` of them (over the last day) for one subject,
password attempts under it are refused until the last failure is `password_window_minutes` old, a
window that doubles with each failure beyond the limit.  The failure that reaches the limit is
answered with when to try again; later ones are recorded but not answered (no backscatter to a
forged From).  A right password sent during a lock is refused unanswered too, but not counted.

A lock never shuts out a proof the guesser lacks (`blocking`):
- a reply to a game mail: its token proves the mailbox (wrong tokens count against the sender);
- a mailed reset code: a right code is taken whatever the locks, and wrong codes count against the
  code that was mailed (`code_subjects`), so guesses made before it was mailed touch nothing of it,
  and a code's failures only stop the answers to wrong codes;
- the registered address itself, where the MTA vouches for it: the user id's and the domain's
  locks do not hold for it, only its own address's, which nobody else can add to.
A password set with a mailed code clears every lock on the user id and its addresses (`clear`).
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pbm.config import Config
from pbm.mail.messages import Incoming
from pbm.model.db import Database, parse_timestamp, timestamp

MEMORY = timedelta(days=1)      # failures older than this are forgotten
MAX_DOUBLINGS = 10              # the window grows to at most 2**10 times its length


def sources(incoming: Incoming | None) -> list[str]:
    """Where a message comes from, as failures are counted: its sender address; where the trusted
    MTA vouched for the From, that address counted apart, and its domain (a forged From must not
    lock a whole domain, nor the address for its owner)."""
    if incoming is None:
        return []
    sender = incoming.sender.lower()
    if incoming.verified:       # apart from the same address unverified: a forger's count
        return [f"verified:{sender}", f"domain:{sender.rpartition('@')[2]}"]
    return [f"sender:{sender}"]


def subjects(user_id: str, incoming: Incoming | None) -> list[str]:
    """What a wrong password is counted against: the user id (if registered) and the sources."""
    return [f"user:{user_id}"] * bool(user_id) + sources(incoming)


def blocking(user_id: str, incoming: Incoming | None, own: bool) -> list[str]:
    """The subjects whose lock refuses a password for `user_id` from `incoming`; `own`: its sender
    is a registered address of the user.  From an own address the MTA vouched for, only that
    address's own vouched-for count (nobody else can have added to it)."""
    if own and incoming is not None and incoming.verified:
        return sources(incoming)[:1]
    return subjects(user_id, incoming)


def code_subjects(code_id: str | None, incoming: Incoming | None) -> list[str]:
    """What a wrong reset code is counted against: the code mailed (`code_id`, if one is
    outstanding) and the sources -- never the user id, whose lock a guesser may have made."""
    return [f"code:{code_id}"] * bool(code_id) + sources(incoming)


def token_subjects(sender: str) -> list[str]:
    """What wrong reply tokens are counted against: the sender (a token names no proven user)."""
    return [f"sender:{sender.lower()}"]


def record(db: Database, counted: Iterable[str], now: datetime) -> None:
    db.conn.executemany("INSERT INTO password_failures (subject, at) VALUES (?, ?)",
                        [(subject, timestamp(now)) for subject in counted])


def clear(db: Database, user_id: str, addresses: Iterable[str]) -> None:
    """Lift every lock on the user id, its codes and its registered addresses (the player proved the
    mailbox with a mailed code: whatever was counted there was a guesser's or is forgiven)."""
    subjects = [f"user:{user_id}", *(f"{kind}:{a.lower()}" for a in addresses for kind in ("sender", "verified"))]
    db.execute(f"DELETE FROM password_failures WHERE subject IN ({', '.join('?' * len(subjects))}) "
               f"OR subject LIKE ?", [*subjects, f"code:{user_id}:%"])


def locked_until(db: Database, config: Config, counted: Iterable[str],
                 now: datetime, failing: bool = False) -> datetime | None:
    """Until when attempts for these subjects are refused, or None if they are not; `failing`:
    as it will be once the failure being made now is recorded."""
    until = None
    limit, window = config.server.password_failures, config.server.password_window_minutes
    counted = list(counted)
    if not counted:
        return None
    found = {subject: (count, last) for subject, count, last in db.execute(
        f"SELECT subject, count(*), max(at) FROM password_failures WHERE subject IN "
        f"({', '.join('?' * len(counted))}) AND at > ? GROUP BY subject",
        [*counted, timestamp(now - MEMORY)])}
    for subject in counted:
        count, last = found.get(subject, (0, None))
        if failing:
            count, last = count + 1, timestamp(now)
        if count < limit:
            continue
        ends = parse_timestamp(last) + timedelta(minutes=window) * 2 ** min(count - limit, MAX_DOUBLINGS)
        if ends > now and (until is None or ends > until):
            until = ends
    return until


def forget_old(db: Database, now: datetime) -> None:
    """Drop the failures no limit looks at any more (run with the timers)."""
    db.execute("DELETE FROM password_failures WHERE at <= ?", [timestamp(now - MEMORY)])
