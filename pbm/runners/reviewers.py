"""`pbm review`, and the review workers of `pbm serve`: `[review] workers` processes
(pbm.review.worker) at low priority.

Unlike the SMTP and outbox processes, a review worker that dies does not stop the server: mail goes
on, the review it held is taken up again once its lease lapses, and the worker is started afresh
(after RESTART_AFTER seconds, so that a worker that cannot start does not spin).
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sys

from pbm.config import Config
from pbm.logs import configure_logging
from pbm.model.store import open_db
from pbm.outbox import sending
from pbm.review import remote, worker
from pbm.review.engine import INSTALL, Settings
from pbm.runners.processes import name_process

log = logging.getLogger(__name__)

_SPAWN = multiprocessing.get_context("spawn")   # a fresh interpreter: no threads forked
RESTART_AFTER = 5.0
NICE = 10                               # the workers' priority below the server's


class Reviewers:
    def __init__(self, config: Config, settings: Settings):
        self.config, self.settings = config, settings
        self.processes: list = []

    def _start(self, index: int) -> None:
        process = _SPAWN.Process(target=serve_worker, args=(self.config, self.settings),
                                 name=f"pbm-review-{index}", daemon=True)
        process.start()
        if index < len(self.processes):
            self.processes[index] = process
        else:
            self.processes.append(process)

    async def watch(self) -> None:
        """Start the workers, and each again when it dies, until cancelled."""
        for index in range(self.config.review.workers):
            self._start(index)
        while True:
            await asyncio.sleep(RESTART_AFTER)
            for index, process in enumerate(self.processes):
                if not process.is_alive():
                    log.error("review worker %s (%d) died (exit status %s); started afresh",
                              process.name, process.pid, process.exitcode)
                    self._start(index)

    async def stop(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            await loop.run_in_executor(None, process.join, timeout)
            if process.is_alive():
                process.kill()


def serve_worker(config: Config, settings: Settings) -> None:
    """A worker process: nice 10 and, on Linux, the idle scheduling class (nice alone left the engine
    a share of the CPU the server's moves needed: bench/mail_load.py --reviews), until SIGTERM (which unwinds, killing the engine; the review
    it held is taken up again once its lease lapses) or until the server is gone."""
    name_process("pbm-review")
    configure_logging(config)
    os.nice(NICE)
    if hasattr(os, "SCHED_IDLE"):       # Linux: the CPU only when nothing else wants it, the engine too
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # a Ctrl-C reaches every process: the server decides
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    worker.run(config, open_db(config), settings, forever=True)


def start(config: Config) -> tuple[Reviewers, asyncio.Task] | None:
    """The workers, watched by a task of the running loop; None when there are none to run."""
    if not config.review.workers:
        return None
    settings = Settings.of(config)
    if settings is None:
        log.warning("no engine, so no reviews: install one (%s) or set [review] engine", INSTALL)
        return None
    reviewers = Reviewers(config, settings)
    return reviewers, asyncio.create_task(reviewers.watch())


def command(config: Config, server: str | None, key: str | None, forever: bool) -> int:
    """`pbm review`: the queued reviews done here (and their mails sent), or, with `server`, those of
    the pbm serve at that URL over HTTP; the exit status (78 without an engine, 64 without a key)."""
    settings = Settings.of(config)
    if settings is None:
        print(f"pbm: no engine, so no reviews: install one ({INSTALL}) or set [review] engine",
              file=sys.stderr)
        return os.EX_CONFIG
    if server:
        if not key:
            print("pbm: --server needs --key (one of the server's [review] keys)", file=sys.stderr)
            return os.EX_USAGE
        try:
            print(f"reviews done for {server}: {remote.run(server, key, settings, forever=forever)}")
        except (remote.Refused, OSError) as e:
            print(f"pbm: {server} did not hand out reviews: {e}", file=sys.stderr)
            return os.EX_TEMPFAIL
        return os.EX_OK
    db = open_db(config)
    done = worker.run(config, db, settings, forever=forever)
    print(f"reviews tried: {done}; mails sent {sending.send_due(db, config).sent}")
    return os.EX_OK
