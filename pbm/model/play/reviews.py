"""The queue of engine reviews: one row per finished game, taken by a worker with a lease.

A worker (a process of `pbm serve`, `pbm review` from cron, or one on another machine over HTTP)
takes the oldest due review and holds it until `claimed_until`; a local worker renews that after each
position.  A worker that dies lets its lease lapse and the next `acquire` takes the review again; a
worker whose lease lapsed and was taken over cannot complete it (`complete` checks the claim), so a
review is stored, and mailed, once.  Only a finished game is ever handed out (the join in
`acquire`): the fair-play rule holds at the queue as well as at the engine (pbm.review.search).
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import NamedTuple

from pbm.model.db import Database, timestamp
from pbm.model.play.games import FINISHED

REVIEWS = """
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL UNIQUE REFERENCES games(id),   -- one review per game
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done')),
    nodes INTEGER NOT NULL,             -- searched per position (fixed when it was asked for)
    queued_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,      -- a failed review waits until then
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_by TEXT,                    -- the worker holding it ("host:pid", or "remote:KEYNAME:...")
    claimed_until TEXT,                 -- its lease: after this another worker may take it
    last_error TEXT,                    -- why the last attempt failed (the engine's words)
    evaluations TEXT,                   -- JSON: [cp, mate, best, line] per position, once done
    seconds REAL,                       -- how long the search took (the queue's estimates)
    done_at TEXT
);
CREATE INDEX reviews_due ON reviews (status, next_attempt_at);

CREATE TABLE review_requests (
    review_id INTEGER NOT NULL REFERENCES reviews(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    asked_at TEXT NOT NULL,
    mailed_at TEXT,                     -- NULL until the review went out to them
    PRIMARY KEY (review_id, user_id)
) WITHOUT ROWID;
CREATE INDEX review_requests_user ON review_requests (user_id, asked_at);
"""

RETRY_BASE = 60.0                       # seconds before a failed review is tried again, doubling ...
RETRY_MAX = 3600.0                      # ... up to an hour
DEFAULT_RATE = 5e-6                     # seconds per node searched (5 s a position at 1 M), until timed


class Job(NamedTuple):
    """A review taken by a worker: the game to search."""
    id: int
    game_id: int
    nodes: int
    variant: str
    params: dict
    start_fen: str
    moves: list[str]
    finished: bool


class Review(NamedTuple):
    id: int
    game_id: int
    status: str
    evaluations: list | None
    last_error: str | None


def ask(db: Database, game_id: int, user: str, nodes: int, now: datetime) -> tuple[Review, bool]:
    """Queue the game's review (if it is not yet) for `user`; the review, and whether `user` had not
    asked for it before."""
    db.execute("INSERT OR IGNORE INTO reviews (game_id, status, nodes, queued_at, next_attempt_at) "
               "VALUES (?, 'queued', ?, ?, ?)", [game_id, nodes, timestamp(now), timestamp(now)])
    review = load(db, game_id)
    assert review is not None
    new = db.execute("INSERT OR IGNORE INTO review_requests (review_id, user_id, asked_at) VALUES (?, ?, ?)",
                     [review.id, user, timestamp(now)]).rowcount == 1
    return review, new


def asked_since(db: Database, user: str, since: datetime) -> int:
    """Reviews `user` asked for since `since` (the daily limit)."""
    return db.execute("SELECT count(*) FROM review_requests WHERE user_id = ? AND asked_at >= ?",
                      [user, timestamp(since)]).fetchone()[0]


def load(db: Database, game_id: int) -> Review | None:
    row = db.execute("SELECT id, game_id, status, evaluations, last_error FROM reviews WHERE game_id = ?",
                     [game_id]).fetchone()
    if row is None:
        return None
    return Review(row[0], row[1], row[2], json.loads(row[3]) if row[3] else None, row[4])


def acquire(db: Database, claimant: str, now: datetime, lease: float) -> Job | None:
    """Take the oldest due review of a finished game for `claimant`, until `lease` seconds from now
    (a lapsed lease is taken over).  Call it in a transaction."""
    row = db.execute(
        "UPDATE reviews SET status = 'running', claimed_by = ?, claimed_until = ?, "
        "attempts = attempts + 1 WHERE id = (SELECT r.id FROM reviews r JOIN games g ON g.id = r.game_id "
        "WHERE g.status = ? AND ((r.status = 'queued' AND r.next_attempt_at <= ?) "
        "OR (r.status = 'running' AND r.claimed_until < ?)) ORDER BY r.next_attempt_at, r.id LIMIT 1) "
        "RETURNING id, game_id, nodes",
        [claimant, timestamp(now + timedelta(seconds=lease)), FINISHED, timestamp(now),
         timestamp(now)]).fetchone()
    if row is None:
        return None
    game = db.execute("SELECT variant, params, start_fen, status FROM games WHERE id = ?", [row[1]]).fetchone()
    moves = [m for (m,) in db.execute("SELECT move FROM moves WHERE game_id = ? ORDER BY ply", [row[1]])]
    return Job(row[0], row[1], row[2], game[0], json.loads(game[1] or "{}"), game[2], moves,
               game[3] == FINISHED)


def renew(db: Database, review_id: int, claimant: str, now: datetime, lease: float) -> bool:
    """Extend the lease; False if `claimant` no longer holds the review."""
    return db.execute("UPDATE reviews SET claimed_until = ? WHERE id = ? AND claimed_by = ? AND "
                      "status = 'running'", [timestamp(now + timedelta(seconds=lease)), review_id,
                                             claimant]).rowcount == 1


def complete(db: Database, review_id: int, claimant: str, evaluations: list, seconds: float,
             now: datetime) -> bool:
    """Store the review's evaluations; False (and nothing stored) if `claimant` lost it meanwhile."""
    return db.execute(
        "UPDATE reviews SET status = 'done', evaluations = ?, seconds = ?, done_at = ?, claimed_by = NULL, "
        "claimed_until = NULL, last_error = NULL WHERE id = ? AND claimed_by = ? AND status = 'running'",
        [json.dumps(evaluations, separators=(",", ":")), seconds, timestamp(now), review_id,
         claimant]).rowcount == 1


def fail(db: Database, review_id: int, claimant: str, error: str, now: datetime) -> None:
    """Give the review back, to be tried again later (each failure waits twice as long)."""
    row = db.execute("SELECT attempts FROM reviews WHERE id = ?", [review_id]).fetchone()
    wait = min(RETRY_MAX, RETRY_BASE * 2 ** max(0, (row[0] if row else 1) - 1))
    db.execute("UPDATE reviews SET status = 'queued', claimed_by = NULL, claimed_until = NULL, "
               "last_error = ?, next_attempt_at = ? WHERE id = ? AND claimed_by = ? AND status = 'running'",
               [error[:500], timestamp(now + timedelta(seconds=wait)), review_id, claimant])


def held(db: Database, claimant: str) -> tuple[int, int, int] | None:
    """The review `claimant` holds: (review id, game id, positions of the game), or None."""
    row = db.execute("SELECT r.id, r.game_id, g.ply + 1 FROM reviews r JOIN games g ON g.id = r.game_id "
                     "WHERE r.claimed_by = ? AND r.status = 'running'", [claimant]).fetchone()
    return tuple(row) if row else None


def askers(db: Database, review_id: int) -> list[str]:
    """Everyone who asked for the review."""
    return [u for (u,) in db.execute("SELECT user_id FROM review_requests WHERE review_id = ?", [review_id])]


def unmailed(db: Database, review_id: int) -> list[str]:
    """Who asked for the review and has not had it yet."""
    return [u for (u,) in db.execute("SELECT user_id FROM review_requests WHERE review_id = ? AND "
                                     "mailed_at IS NULL ORDER BY asked_at, user_id", [review_id])]


def mailed(db: Database, review_id: int, user: str, now: datetime) -> None:
    db.execute("UPDATE review_requests SET mailed_at = ? WHERE review_id = ? AND user_id = ?",
               [timestamp(now), review_id, user])


def wait_seconds(db: Database, workers: int) -> float:
    """About how long a review asked for now waits: the nodes of the reviews ahead of it, at the pace
    of the last reviews done, shared by `workers` (at least one: cron's `pbm review`)."""
    ahead = db.execute("SELECT coalesce(sum((g.ply + 1) * r.nodes), 0) FROM reviews r JOIN games g ON "
                       "g.id = r.game_id WHERE r.status != 'done'").fetchone()[0]
    timed = db.execute("SELECT sum(r.seconds), sum((g.ply + 1) * r.nodes) FROM (SELECT game_id, nodes, "
                       "seconds FROM reviews WHERE status = 'done' ORDER BY done_at DESC LIMIT 20) r JOIN games g "
                       "ON g.id = r.game_id").fetchone()
    rate = timed[0] / timed[1] if timed[0] and timed[1] else DEFAULT_RATE
    return ahead * rate / max(1, workers)


def failures(db: Database) -> list[tuple[int, int, str]]:
    """The reviews whose last attempt failed: (game id, attempts, why), the latest first."""
    return [tuple(row) for row in db.execute(
        "SELECT game_id, attempts, last_error FROM reviews WHERE status != 'done' AND last_error IS NOT "
        "NULL ORDER BY next_attempt_at DESC LIMIT 5")]
