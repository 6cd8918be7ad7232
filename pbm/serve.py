"""`pbm serve`: the SMTP listener, the outbox worker and the game timers, in one process.

The asyncio loop only speaks SMTP.  Database work runs in one intake thread (SQLite has one writer
at a time anyway), so the loop keeps answering other connections while a message is committed;
messages that arrive while that thread is busy are committed together (group commit, see
`intake.accept_many`).  The outbox is sent from its own thread, woken whenever intake queued
replies.  A message gets 250 only after its commit; a transient failure gets 451 so the sender
retries.  SIGTERM and SIGINT stop taking new mail, let messages in progress finish, then exit.
"""
from __future__ import annotations

import asyncio
import logging
import queue
import signal
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime, timezone
from typing import Any, TypeVar

import sqlite_utils
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm import commands, inbound, intake, outbox
from pbm.config import Config
from pbm.intake import IntakeResult, TransientError, describe_exception
from pbm.store import open_db, transaction

log = logging.getLogger(__name__)

OUTBOX_POLL = 5.0       # seconds between looks at the outbox for retries that fell due
DRAIN_TIMEOUT = 30.0    # seconds a stop waits for messages being committed
MAX_BATCH = 64          # messages committed together at most

_STOP = object()

T = TypeVar("T")


def run(config: Config) -> None:
    """Serve until SIGTERM or SIGINT."""
    asyncio.run(_serve(config))


class _IntakeThread(threading.Thread):
    """The one thread that writes inbound mail and timers to the database, on its own connection.

    SQLite takes one writer at a time anyway, and doing the work here keeps the event loop free to
    talk SMTP meanwhile.  Messages that arrive while it is busy are taken together (up to
    MAX_BATCH) and committed with one fsync by `intake.accept_many`: under load, many messages
    cost one commit, each still in its own savepoint and answered only after that commit.
    """

    def __init__(self, config: Config):
        super().__init__(name="pbm-intake", daemon=True)
        self.config = config
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._held: object = None      # a job taken from the queue while gathering a batch

    def accept(self, delivery: intake.Delivery) -> Future:
        return self._submit(delivery)

    def call(self, work: Callable[[sqlite_utils.Database], T]) -> Future:
        return self._submit(work)

    def stop(self) -> None:
        self._jobs.put(_STOP)
        self.join()

    def _submit(self, job: intake.Delivery | Callable) -> Future:
        future: Future = Future()
        self._jobs.put((job, future))
        return future

    def run(self) -> None:
        db = open_db(self.config)
        try:
            while (job := self._take()) is not _STOP:
                work, future = job
                if callable(work):
                    _settle(future, work, db)
                else:
                    self._accept(db, [job, *self._waiting_deliveries()])
        finally:
            db.close()

    def _take(self) -> object:
        job, self._held = (self._held or self._jobs.get()), None
        return job

    def _waiting_deliveries(self) -> list:
        """Deliveries already queued behind the first one, up to MAX_BATCH in all."""
        batch: list = []
        while len(batch) < MAX_BATCH - 1 and not self._jobs.empty():
            job = self._jobs.get()
            if job is _STOP or callable(job[0]):
                self._held = job
                break
            batch.append(job)
        return batch

    def _accept(self, db: sqlite_utils.Database, batch: list[tuple[intake.Delivery, Future]]) -> None:
        try:
            results = intake.accept_many(db, self.config, [delivery for delivery, _ in batch])
        except Exception as e:          # accept_many answers for each message; this is a last resort
            results = [e] * len(batch)
        for (_, future), result in zip(batch, results, strict=True):
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)


def _settle(future: Future, work: Callable[[sqlite_utils.Database], T], db: sqlite_utils.Database) -> None:
    try:
        future.set_result(work(db))
    except Exception as e:
        future.set_exception(e)


class _OutboxWorker(threading.Thread):
    """Sends due replies; `wake()` after queueing some, and every OUTBOX_POLL seconds anyway."""

    def __init__(self, config: Config):
        super().__init__(name="pbm-outbox", daemon=True)
        self.config = config
        self._wake = threading.Event()
        self._stopping = False

    def wake(self) -> None:
        self._wake.set()

    def run(self) -> None:
        db = open_db(self.config)
        try:
            while not self._stopping:
                try:
                    outbox.send_due(db, self.config)
                except Exception as e:      # keep serving; the rows stay queued
                    log.error("outbox worker: %s", describe_exception(e))
                self._wake.wait(OUTBOX_POLL)
                self._wake.clear()
        finally:
            db.close()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self.join()


class SmtpHandler:
    """aiosmtpd handler: accept mail for the server's addresses only, 250 only after the commit."""

    def __init__(self, config: Config, intake_thread: _IntakeThread, outbox_worker: _OutboxWorker):
        self.config = config
        self.intake_thread = intake_thread
        self.outbox_worker = outbox_worker
        self.in_progress = 0

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if not inbound.is_server_address(address, self.config.server.address):
            return "550 5.1.1 Not a mailbox of this server"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        mail_from = "" if envelope.mail_from == "<>" else envelope.mail_from
        delivery = intake.Delivery(envelope.original_content, mail_from, tuple(envelope.rcpt_tos))
        self.in_progress += 1
        try:
            result: IntakeResult = await asyncio.wrap_future(self.intake_thread.accept(delivery))
        except TransientError as e:
            log.warning("temporary failure, answered 451: %s", e)
            return "451 4.3.0 Temporary failure, please try again later"
        except Exception as e:
            log.error("intake failed, answered 451:\n%s", describe_exception(e))
            return "451 4.3.0 Internal error, please try again later"
        finally:
            self.in_progress -= 1
        if result.outbox_ids:
            self.outbox_worker.wake()
        return f"250 2.0.0 Message accepted ({result.status})"


def run_timers(db: sqlite_utils.Database, config: Config) -> int:
    """Run the game timers (time-outs, reminders) in one transaction; returns the mails queued."""
    now = datetime.now(timezone.utc)
    with transaction(db):
        return len(outbox.queue(db, config, commands.run_timers(db, config, now), now))


async def _timers(config: Config, intake_thread: _IntakeThread, outbox_worker: _OutboxWorker) -> None:
    while True:
        try:
            if await asyncio.wrap_future(intake_thread.call(lambda db: run_timers(db, config))):
                outbox_worker.wake()
        except Exception as e:              # a failing timer must not stop the server
            log.error("timers: %s", describe_exception(e))
        await asyncio.sleep(config.server.timer_interval)


async def _serve(config: Config) -> None:
    open_db(config).close()                 # create or migrate now: fail before listening
    loop = asyncio.get_running_loop()
    intake_thread = _IntakeThread(config)
    intake_thread.start()
    worker = _OutboxWorker(config)
    worker.start()
    handler = SmtpHandler(config, intake_thread, worker)
    hostname = config.smtp.hostname or socket.getfqdn()
    smtp_options: dict[str, Any] = dict(data_size_limit=config.smtp.max_message_size,
                                        enable_SMTPUTF8=True, hostname=hostname, ident="pbm")
    server = await loop.create_server(lambda: SMTP(handler, **smtp_options),
                                      host=config.smtp.host, port=config.smtp.port)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    timers = asyncio.create_task(_timers(config, intake_thread, worker))
    log.info("listening on %s:%d for %s", config.smtp.host, config.smtp.port, config.server.address)
    await stop.wait()
    log.info("stopping")
    server.close()
    timers.cancel()
    for _ in range(int(DRAIN_TIMEOUT * 10)):
        if not handler.in_progress:
            break
        await asyncio.sleep(0.1)
    intake_thread.stop()
    worker.stop()
    log.info("stopped")
