"""Review workers on other machines, over HTTP: the pull protocol of Lichess's fishnet and
pychess-variants' fairyfishnet (acquire a job, search it, post the analysis).

    POST /review/acquire      {"key": KEY}                 -> 200 a job, or 204 nothing due
    POST /review/done         {"key", "claim", "evaluations"}  -> 200 stored, 409 the lease was lost
    POST /review/failed       {"key", "claim", "error"}    -> 200 given back, retried later

The server (`pbm serve`'s web listener, pbm.web.server) accepts only the keys in `[review] keys`;
a job is leased to the claim it was given for as many position timeouts as the game has positions,
so a worker that vanishes only delays its review.  The server checks what comes back (one
evaluation per position, each of the right shape) and writes, stores and mails it as a local worker
does; a worker never sees who played the game or anything but its moves.
"""
from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

from pbm.config import Config
from pbm.model.db import Database, transaction
from pbm.model.play import reviews
from pbm.review import report, worker
from pbm.review.engine import EngineError, Settings
from pbm.review.search import Game, NotOver, Point, search

log = logging.getLogger(__name__)

IDLE = 10.0                             # seconds a worker waits after finding nothing due
TIMEOUT = 60.0                          # seconds an HTTP request may take


class Refused(Exception):
    """The request is not one the server takes (HTTP status, and why)."""

    def __init__(self, status: int, why: str):
        super().__init__(why)
        self.status = status


# --- the server's side (called by pbm.web.server in a thread, with a writing connection) -----------

def known_key(config: Config, key: object) -> str:
    """A short name of the key (for `claimed_by`), or Refused(403)."""
    for index, accepted in enumerate(config.review.keys):
        if isinstance(key, str) and hmac.compare_digest(key.encode(), accepted.encode()):
            return f"key{index + 1}"
    raise Refused(403, "unknown key")


def acquire(db: Database, config: Config, body: dict) -> dict | None:
    name = known_key(config, body.get("key"))
    claim = f"remote:{name}:{secrets.token_hex(8)}"
    now = datetime.now(timezone.utc)
    with transaction(db):
        job = reviews.acquire(db, claim, now, config.review.timeout)
        if job is None:
            return None
        lease = config.review.timeout * (len(job.moves) + 1) + 60
        reviews.renew(db, job.id, claim, now, lease)
    log.info("review of game %d leased to %s", job.game_id, claim)
    return {"claim": claim, "nodes": job.nodes, "variant": job.variant, "params": job.params,
            "start_fen": job.start_fen, "moves": job.moves, "finished": job.finished}


def done(db: Database, config: Config, body: dict) -> None:
    known_key(config, body.get("key"))
    claim = str(body.get("claim", ""))
    held = reviews.held(db, claim)
    if held is None:
        raise Refused(409, "this claim holds no review (its lease lapsed, or it was done)")
    review_id, game_id, positions = held
    seconds = body.get("seconds")
    if not worker.finish(db, config, review_id, game_id, claim, _points(body.get("evaluations"), positions),
                         float(seconds) if isinstance(seconds, (int, float)) else 0.0):
        raise Refused(409, "the review's lease lapsed and another worker took it")


def failed(db: Database, config: Config, body: dict) -> None:
    name = known_key(config, body.get("key"))
    claim = str(body.get("claim", ""))
    held = reviews.held(db, claim)
    if held is None:
        raise Refused(409, "this claim holds no review")
    error = f"worker {name}: {str(body.get('error', ''))[:300]}"
    log.error("review of game %d failed, to be tried again later: %s", held[1], error)
    with transaction(db):
        reviews.fail(db, held[0], claim, error, datetime.now(timezone.utc))


def _points(evaluations: object, positions: int) -> list[Point]:
    """The posted evaluations, checked: one per position, [cp, mate, best, line] each."""
    if not isinstance(evaluations, list) or len(evaluations) != positions:
        raise Refused(400, f"evaluations must be a list of {positions} (one per position)")
    points = []
    for item in evaluations:
        if not (isinstance(item, list) and len(item) == 4 and _score(item[0]) and _score(item[1])
                and (item[0] is None) != (item[1] is None) and (item[2] is None or _move(item[2]))
                and isinstance(item[3], list) and all(_move(m) for m in item[3][:8])):
            raise Refused(400, "each evaluation is [cp, mate, best, line], one of cp and mate null")
        points.append(Point(item[0], item[1], item[2], tuple(item[3][:8])))
    return points


def _move(value: object) -> bool:
    """A move as pbm writes coordinates (`h3e3`, `pass`)."""
    return isinstance(value, str) and (value == "pass" or re.fullmatch(r"[a-z]\d{1,2}[a-z]\d{1,2}", value) is not None)


def _score(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and abs(value) < 100000)


# --- the worker's side: `pbm review --server URL --key KEY` -----------------------------------------

def run(server: str, key: str, settings: Settings, *, forever: bool = False) -> int:
    """Take reviews from `server` until it has none (or, `forever`, for ever); the number done."""
    count = 0
    while True:
        try:
            job = _post(server, "acquire", {"key": key})
        except (Refused, OSError) as e:
            if not forever or isinstance(e, Refused) and e.status == 403:
                raise
            log.warning("cannot take reviews from %s (%s); trying again in %g s", server, e, IDLE)
            time.sleep(IDLE)
            continue
        if job is None:
            if not forever:
                return count
            time.sleep(IDLE)
            continue
        started = time.monotonic()
        game = Game(job["variant"], job["params"], job["start_fen"], job["moves"], job["finished"])
        try:
            points = search(Settings(settings.argv, job["nodes"], settings.threads, settings.hash,
                                     settings.timeout), game)
        except (EngineError, NotOver) as e:
            log.error("a review for %s failed: %s", server, e)
            _post(server, "failed", {"key": key, "claim": job["claim"], "error": str(e)})
            continue
        try:
            _post(server, "done", {"key": key, "claim": job["claim"], "seconds": time.monotonic() - started,
                                   "evaluations": report.stored(points)})
            count += 1
        except Refused as e:
            log.warning("the server did not take a review: %s", e)


def _post(server: str, verb: str, body: dict) -> dict | None:
    request = urllib.request.Request(f"{server.rstrip('/')}/review/{verb}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            data = answer.read()
            return json.loads(data) if answer.status == 200 and data.strip() else None
    except urllib.error.HTTPError as e:
        raise Refused(e.code, e.read().decode(errors="replace").strip()) from None
