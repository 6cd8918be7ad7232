"""`pbm serve`: the SMTP listener, the outbox worker and the game timers.

The asyncio loop only speaks SMTP (or, with `[smtp] processes`, leaves that to SMTP processes: see
pbm.smtp_listener).  A message is first prepared -- parsed, and the passwords of its commands
checked (`intake.prepare`) -- in one of a few preparer threads, then written by the one intake
thread (SQLite has one writer at a time anyway), so the loop keeps answering other connections
meanwhile and a password check never holds up the writer; messages that arrive while the writer
is busy are committed together (group commit, see `intake.accept_many`).  The outbox is sent from
its own thread, woken whenever intake queued replies.  A message gets 250 only after its commit; a
transient failure gets 451 so the sender retries.  SIGTERM and SIGINT stop taking new mail, let
messages in progress finish, then exit.
"""
from __future__ import annotations

import asyncio
import logging
import queue
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from datetime import datetime, timezone
from typing import TypeVar

import sqlite_utils

from pbm import commands, intake, outbox, smtp_listener
from pbm.config import Config
from pbm.intake import IntakeResult, TransientError, describe_exception
from pbm.store import open_db, transaction

log = logging.getLogger(__name__)

OUTBOX_POLL = 5.0       # seconds between looks at the outbox for retries that fell due
OUTBOX_GATHER = 0.15    # seconds the outbox waits, once woken, for more replies to send with them
DRAIN_TIMEOUT = 30.0    # seconds a stop waits for messages being committed
MAX_BATCH = 64          # messages committed together at most

_STOP = object()

T = TypeVar("T")


def run(config: Config) -> bool:
    """Serve until SIGTERM or SIGINT; False if it stopped because an SMTP process died."""
    return asyncio.run(_serve(config))


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

    def accept(self, arrival: intake.Arrival) -> Future:
        return self._submit(arrival)

    def call(self, work: Callable[[sqlite_utils.Database], T]) -> Future:
        return self._submit(work)

    def write(self, work: Callable[[sqlite_utils.Database], T]) -> T:
        """`work` in a transaction of this thread, once the messages queued before it are committed
        (an `outbox.Write`: the outbox's few writes wait their turn instead of polling for the lock)."""
        return self.call(lambda db: outbox.in_transaction(db)(work)).result()

    def stop(self) -> None:
        self._jobs.put(_STOP)
        self.join()

    def _submit(self, job: intake.Arrival | Callable) -> Future:
        future: Future = Future()
        self._jobs.put((job, future))
        return future

    def run(self) -> None:
        db = open_db(self.config)
        db.execute("PRAGMA wal_autocheckpoint=0")   # the outbox worker checkpoints, not the writer
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

    def _accept(self, db: sqlite_utils.Database, batch: list[tuple[intake.Arrival, Future]]) -> None:
        try:
            results = intake.accept_many(db, self.config, [arrival for arrival, _ in batch])
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
    """Sends due replies; `wake()` after queueing some, and every OUTBOX_POLL seconds anyway.

    It sends one batch at a time, and first waits OUTBOX_GATHER seconds, so that under load the
    replies of many commits go out together: one claim, one fsync of the Maildir, one commit of
    their new status.  Those writes are made by the intake thread between two batches of messages
    (a second writer in this process would only poll for the lock while the intake thread is
    busy), so fewer of them leave it more time for the messages.  The worker also checkpoints the
    write-ahead log, which the intake thread leaves alone so that no message waits for it.
    """

    def __init__(self, config: Config, writer: _IntakeThread):
        super().__init__(name="pbm-outbox", daemon=True)
        self.config = config
        self.writer = writer
        self._wake = threading.Event()
        self._stopping = False

    def wake(self) -> None:
        self._wake.set()

    def run(self) -> None:
        db = open_db(self.config)
        try:
            while not self._stopping:
                if not self._send_batch(db):            # a full batch: more may be due already
                    self._wake.wait(OUTBOX_POLL)
                self._wake.clear()
                if not self._stopping:
                    time.sleep(OUTBOX_GATHER)
        finally:
            db.close()

    def _send_batch(self, db: sqlite_utils.Database) -> bool:
        """Send one batch of due replies; True if it was full."""
        try:
            report = outbox.send_due(db, self.config, write=self.writer.write, batches=1)
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception as e:              # keep serving; the rows stay queued
            log.error("outbox worker: %s", describe_exception(e))
            return False
        return report.claimed >= outbox.BATCH

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self.join()


class Receiver:
    """What happens to a message after SMTP DATA, in the main process: prepare it, have the intake
    thread commit it, and say so -- 250 only after the commit, 451 if it was not recorded."""

    def __init__(self, preparers: intake.Preparers, intake_thread: _IntakeThread,
                 outbox_worker: _OutboxWorker):
        self.preparers = preparers
        self.intake_thread = intake_thread
        self.outbox_worker = outbox_worker
        self.in_progress = 0

    async def answer(self, delivery: intake.Delivery) -> str:
        """The answer to a message this process received over SMTP."""
        return await self._answer(lambda: asyncio.wrap_future(self.preparers.prepare(delivery)))

    async def answer_arrival(self, arrival: intake.Arrival) -> str:
        """The answer to a message an SMTP process received and prepared."""
        return await self._answer(lambda: _ready(arrival))

    async def _answer(self, prepared: Callable[[], Awaitable[intake.Arrival]]) -> str:
        self.in_progress += 1
        try:
            arrival = await prepared()
            result: IntakeResult = await asyncio.wrap_future(self.intake_thread.accept(arrival))
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


async def _ready(arrival: intake.Arrival) -> intake.Arrival:
    return arrival


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


async def _serve(config: Config) -> bool:
    open_db(config).close()                 # create or migrate now: fail before listening
    loop = asyncio.get_running_loop()
    preparers = intake.Preparers(config)
    intake_thread = _IntakeThread(config)
    intake_thread.start()
    worker = _OutboxWorker(config, intake_thread)
    worker.start()
    receiver = Receiver(preparers, intake_thread, worker)
    stop = asyncio.Event()
    children = None
    if config.smtp.processes:               # they listen on these sockets; this process does not
        server = await loop.create_server(asyncio.Protocol, host=config.smtp.host,
                                          port=config.smtp.port, start_serving=False)
        children = smtp_listener.start(config, server.sockets, receiver.answer_arrival,
                                       on_loss=stop.set)
    else:
        handler = smtp_listener.SmtpHandler(config, receiver.answer)
        server = await loop.create_server(smtp_listener.protocol_factory(config, handler),
                                          host=config.smtp.host, port=config.smtp.port)
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    timers = asyncio.create_task(_timers(config, intake_thread, worker))
    log.info("listening on %s:%d for %s", config.smtp.host, config.smtp.port, config.server.address)
    await stop.wait()
    log.info("stopping")
    clean = await children.stop(DRAIN_TIMEOUT) if children else True    # after what they hold
    server.close()
    timers.cancel()
    for _ in range(int(DRAIN_TIMEOUT * 10)):
        if not receiver.in_progress:
            break
        await asyncio.sleep(0.1)
    preparers.stop()
    worker.stop()                           # first: it writes through the intake thread
    intake_thread.stop()
    log.info("stopped")
    return clean
