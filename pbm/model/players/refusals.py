"""What a limit refused, kept so that a refusal is answered or told once a day, not once a mail
(pbm.commands.accounts.flood, the signup limit): a flood must not become a flood of refusals."""
from __future__ import annotations

from datetime import datetime

from pbm.model.db import Database, timestamp


def refuse(db: Database, kind: str, user_id: str, other: str, now: datetime, told: bool = False) -> None:
    """Note a refusal of `kind` protecting `user_id` (`other`: who was refused); `told`: the mail
    telling of it goes with it."""
    db.execute("INSERT INTO refusals (kind, user_id, other, at, told) VALUES (?, ?, ?, ?, ?)",
               [kind, user_id, other, timestamp(now), int(told)])


def refused(db: Database, kind: str, user_id: str, since: datetime, told: bool = False) -> bool:
    """Whether a refusal of `kind` for `user_id` was noted since then (`told`: and told of)."""
    return db.execute("SELECT 1 FROM refusals WHERE user_id = ? AND kind = ? AND at > ? AND told >= ? LIMIT 1",
                      [user_id, kind, timestamp(since), int(told)]).fetchone() is not None


def forget_old(db: Database, before: datetime) -> None:
    """Drop the refusals no limit looks at any more (run with the timers)."""
    db.execute("DELETE FROM refusals WHERE at <= ?", [timestamp(before)])


def count(db: Database, kind: str, user_id: str, since: datetime) -> int:
    """How many refusals (or, for kind "answer", answers: pbm.commands.mails.answers) of `kind` for
    `user_id` were noted since then."""
    return db.execute("SELECT count(*) FROM refusals WHERE user_id = ? AND kind = ? AND at > ?",
                      [user_id, kind, timestamp(since)]).fetchone()[0]
