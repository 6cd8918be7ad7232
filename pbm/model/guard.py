"""The limit on password guessing: wrong passwords are counted per user id and per sender.

Anyone can send mail with any From, so a password must not be guessable by mail.  After
`[server] password_failures` wrong passwords (counted over the last day) for one user id, or from
one sender address, further attempts are refused until the last failure is `password_window_minutes`
old, a window that doubles with each failure beyond the limit.  The failure that reaches the limit is
answered with when to try again; attempts while locked are recorded but not answered (no
backscatter to a forged From) and the password is not even checked.

The limit has no exempt sender: a From address is forged at no cost, so a lock on a user id holds
for the user's registered addresses too.  The player keeps two ways in that a guesser lacks: a reply
to a game mail (its token proves the mailbox, and is no guess) and `password reset` (the code goes to
the registered addresses; wrong codes are counted apart, under `reset:`, so that a guesser's lock on
the password or the address does not also lock the code).  Wrong reply tokens count against the sender like wrong
passwords (`token_subjects`).
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pbm.config import Config
from pbm.model.db import Database, parse_timestamp, timestamp

MEMORY = timedelta(days=1)      # failures older than this are forgotten
MAX_DOUBLINGS = 10              # the window grows to at most 2**10 times its length


def subjects(user_id: str, sender: str) -> list[str]:
    """What failures are counted against: the user id (if registered) and the sender address."""
    return [f"user:{user_id}"] * bool(user_id) + [f"sender:{sender.lower()}"]


def reset_subjects(user_id: str, sender: str) -> list[str]:
    """What wrong reset codes are counted against: the user id's codes alone, apart from its
    passwords and from the sender (whose address a guesser may have locked: the code, mailed to
    the registered addresses, is what proves the mailbox)."""
    return [f"reset:{user_id}"] if user_id else [f"sender:{sender.lower()}"]


def token_subjects(sender: str) -> list[str]:
    """What wrong reply tokens are counted against: the sender (a token names no proven user)."""
    return [f"sender:{sender.lower()}"]


def record(db: Database, counted: Iterable[str], now: datetime) -> None:
    db.conn.executemany("INSERT INTO password_failures (subject, at) VALUES (?, ?)",
                        [(subject, timestamp(now)) for subject in counted])


def locked_until(db: Database, config: Config, counted: Iterable[str],
                 now: datetime, failing: bool = False) -> datetime | None:
    """Until when attempts for these subjects are refused, or None if they are not; `failing`:
    as it will be once the failure being made now is recorded."""
    until = None
    limit, window = config.server.password_failures, config.server.password_window_minutes
    counted = list(counted)
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
