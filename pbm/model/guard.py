"""The limit on password guessing: wrong passwords are counted per user id and per sender.

Anyone can send mail with any From, so a password must not be guessable by mail.  After
`[server] password_failures` wrong passwords (counted over the last day) for one user id, or from
one sender address, further attempts are refused until the last failure is `password_window_minutes`
old, a window that doubles with each failure beyond the limit.  The failure that reaches the limit is
answered with when to try again; attempts while locked are recorded but not answered (no
backscatter to a forged From) and the password is not even checked.  The limit never applies to a
sender address registered to the user: a player can always use their own password from their own
address, whoever is guessing it from elsewhere.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pbm.config import Config
from pbm.model.db import Database, parse_timestamp, timestamp

MEMORY = timedelta(days=1)      # failures older than this are forgotten
MAX_DOUBLINGS = 10              # the window grows to at most 2**10 times its length


def subjects(user_id: str, sender: str) -> list[str]:
    """What failures are counted against: the user id and the sender address."""
    return [f"user:{user_id}", f"sender:{sender.lower()}"]


def record(db: Database, counted: Iterable[str], now: datetime) -> None:
    db.conn.executemany("INSERT INTO password_failures (subject, at) VALUES (?, ?)",
                        [(subject, timestamp(now)) for subject in counted])


def locked_until(db: Database, config: Config, counted: Iterable[str],
                 now: datetime, failing: bool = False) -> datetime | None:
    """Until when attempts for these subjects are refused, or None if they are not; `failing`:
    as it will be once the failure being made now is recorded."""
    until = None
    limit, window = config.server.password_failures, config.server.password_window_minutes
    for subject in counted:
        count, last = db.execute("SELECT count(*), max(at) FROM password_failures WHERE subject = ? "
                                 "AND at > ?", [subject, timestamp(now - MEMORY)]).fetchone()
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
