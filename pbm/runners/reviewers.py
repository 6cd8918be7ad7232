"""The review workers of `pbm serve`: `[review] workers` processes (pbm.review.worker) at low priority.

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
from pbm.review import worker
from pbm.runners.processes import name_process
from pbm.review.engine import INSTALL, Settings

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
    """A worker process: low priority, until SIGTERM (which unwinds, killing the engine; the review
    it held is taken up again once its lease lapses) or until the server is gone."""
    name_process("pbm-review")
    configure_logging(config)
    os.nice(NICE)
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
