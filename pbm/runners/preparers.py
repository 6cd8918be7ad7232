"""Preparing messages for `pbm serve` (intake.prepare) without holding up its event loop.

Only `pbm serve` prepares messages ahead in threads (`pbm deliver` and `pbm poll` call
intake.prepare themselves), so this lives beside the server rather than in pbm.intake.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from pbm import intake
from pbm.config import Config
from pbm.model.db import Database
from pbm.model.store import open_db


class Preparers:
    """`prepare` for `pbm serve`: at once where that is quick, else in threads, each on a read
    connection of its own, while the writer commits other messages.

    Handing a message to a thread cost more than preparing it (a third of an SMTP process's
    time), so the usual message -- small, its passwords found right before -- is prepared at once
    by the caller; a password to check with scrypt, or a big message, goes to a thread.
    """

    THREADS = 4         # messages prepared at once (a first password check takes ~50 ms of one core)
    QUICK_SIZE = 65536  # bytes: a bigger message is parsed in a thread

    def __init__(self, config: Config):
        self.config = config
        self._pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="pbm-prepare")
        self._local = threading.local()

    def prepare(self, delivery: intake.Delivery) -> Future:
        if len(delivery.raw) > self.QUICK_SIZE:
            return self._pool.submit(lambda: intake.prepare(self._db(), self.config, delivery))
        prepared: Future = Future()
        try:
            arrival = intake.arrive(self.config, delivery)
            checked = intake.check_passwords(self._db(), self.config, arrival, quick=True)
        except Exception as e:
            prepared.set_exception(e)
            return prepared
        if checked is None:
            return self._pool.submit(lambda: intake.check_passwords(self._db(), self.config, arrival))
        prepared.set_result(checked)
        return prepared

    def stop(self) -> None:
        self._pool.shutdown()

    def _db(self) -> Database:
        if not hasattr(self._local, "db"):
            self._local.db = open_db(self.config)   # closed with its thread
        return self._local.db
