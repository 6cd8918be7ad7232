"""The review worker: take a queued review with a lease, search the game, store the result and mail it
to everyone who asked, in one transaction.

It runs as `pbm review` (from cron: until the queue is empty), as `[review] workers` processes of
`pbm serve` at low priority (pbm.runners.reviewers), and, through pbm.review.remote, on other
machines.  A failure
of the engine is logged, stored with the review and retried later (pbm.model.play.reviews.fail);
it never stops the worker.
"""
from __future__ import annotations

import logging
import os
import socket
import time
from datetime import datetime, timezone

from pbm.config import Config
from pbm.model.db import Database, transaction
from pbm.model.play import games, reviews
from pbm.model.play.reviews import Job
from pbm.outbox import queue as outbox_queue
from pbm.review import report
from pbm.review.engine import EngineError, Settings
from pbm.review.search import Game, NotOver, Point, search

log = logging.getLogger(__name__)

IDLE = 5.0                              # seconds between looks at an empty queue (`pbm serve`)
LEASE_POSITIONS = 3                     # a local lease: this many positions' timeouts, renewed


def claimant() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def now() -> datetime:
    return datetime.now(timezone.utc)


def lease(settings: Settings, positions: int = LEASE_POSITIONS) -> float:
    """Seconds a worker holds a review before another may take it: `positions` timeouts."""
    return settings.timeout * positions


def work_once(db: Database, config: Config, settings: Settings, me: str) -> bool:
    """Do one review, if one is due; False when there was none."""
    with transaction(db):
        job = reviews.acquire(db, me, now(), lease(settings))
    if job is None:
        return False
    log.info("review of game %d: %d positions at %d nodes", job.game_id, len(job.moves) + 1, job.nodes)
    started = time.monotonic()

    def renew(ply: int) -> None:
        with transaction(db):
            if not reviews.renew(db, job.id, me, now(), lease(settings)):
                raise EngineError("the review's lease was lost to another worker")

    try:
        points = search(Settings(settings.argv, job.nodes, settings.threads, settings.hash, settings.timeout),
                        game_of(job), renew)
    except (EngineError, NotOver) as e:
        log.error("review of game %d failed, to be tried again later: %s", job.game_id, e)
        with transaction(db):
            reviews.fail(db, job.id, me, str(e), now())
        return True
    finish(db, config, job.id, job.game_id, me, points, time.monotonic() - started)
    return True


def game_of(job: Job) -> Game:
    return Game(job.variant, job.params, job.start_fen, job.moves, job.finished)


def finish(db: Database, config: Config, review_id: int, game_id: int, me: str, points: list[Point],
           seconds: float) -> bool:
    """Store the review and queue its mails, once: False if `me` no longer held it."""
    worked = report.work_out(games.get(db, game_id), report.stored(points))
    with transaction(db):
        if not reviews.complete(db, review_id, me, report.stored(points), seconds, now()):
            log.warning("review of game %d finished after its lease was taken over: dropped", game_id)
            return False
        send(db, config, review_id, worked)
    log.info("review of game %d done in %.0f s", game_id, seconds)
    return True


def send(db: Database, config: Config, review_id: int, worked: report.Review) -> None:
    """Mail the done review to everyone who asked and has not had it (inside a transaction)."""
    for user in reviews.unmailed(db, review_id):
        out = report.mail(db, config, worked, user)
        if out is not None:
            outbox_queue.queue(db, config, [out], now())
        reviews.mailed(db, review_id, user, now())


def run(config: Config, db: Database, settings: Settings, *, forever: bool = False) -> int:
    """Work until the queue is empty (or, `forever`, until SIGTERM or the parent is gone); the number
    of reviews tried."""
    me = claimant()
    parent = os.getppid()
    done = 0
    while not forever or os.getppid() == parent:
        if work_once(db, config, settings, me):
            done += 1
        elif forever:
            time.sleep(IDLE)
        else:
            break
    return done
