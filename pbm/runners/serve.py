"""`pbm serve`: the SMTP listener, the outbox and the game timers (and, with `[web]`, the game pages:
pbm.web.server, on the same loop).

The asyncio loop only speaks SMTP (or, with `[smtp] processes`, leaves that to SMTP processes: see
pbm.runners.listener).  A message is first prepared -- parsed, and the passwords of its commands
checked (`intake.prepare`) -- in one of a few preparer threads, then written by the one intake
thread (SQLite has one writer at a time anyway), so the loop keeps answering other connections
meanwhile and a password check never holds up the writer; messages that arrive while the writer
is busy are committed together (group commit, see `intake.accept_many`).  The replies are sent by
the outbox process (pbm.runners.outbox), whose few writes the intake thread makes for it.  A
message gets 250 only after its commit; a transient failure gets 451 so the sender retries.
SIGTERM and SIGINT stop taking new mail, let messages in progress finish, then exit.  The
database is checked at the start and every `[storage] check_minutes` (pbm.upkeep.health): a
damaged file stops the intake (451) and is reported to the administrators.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import os
import queue
import signal
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TypeVar

import rules
from pbm import intake
from pbm.commands.timing import timers
from pbm.config import Config, ConfigError
from pbm.intake import IntakeResult, NoSpace, TransientError
from pbm.logs import describe_exception
from pbm.mail.messages import Outgoing
from pbm.model.db import Database
from pbm.model.store import DatabaseLost, open_db
from pbm.outbox import claims, compose
from pbm.outbox import queue as outbox_queue
from pbm.runners import listener as smtp_listener
from pbm.runners import outbox as outbox_process
from pbm.runners import processes as link
from pbm.runners import reviewers as review_workers
from pbm.runners.preparers import Preparers
from pbm.upkeep import health, reach
from pbm.web import gate
from pbm.web import server as web_server

log = logging.getLogger(__name__)

DRAIN_TIMEOUT = 30.0    # seconds a stop waits for messages being committed
MAX_BATCH = 64          # messages committed together at most

_STOP = object()

T = TypeVar("T")


def run(config: Config) -> bool:
    """Serve until SIGTERM or SIGINT; False if it stopped because a child process died.  The mail
    templates and every game's rules are loaded first (a process that lives for one message loads
    only what it uses), so that a reinstall of pbm under the running server cannot break it."""
    compose.environment()
    for name in rules.variant_names():
        rules.get_variant(name)
    if config.outbound.mode == "smtp":
        import pbm.outbox.relay as relay  # noqa: F401  (the outbox process's transport)
    return asyncio.run(_serve(config))


Done = Callable[[object], None]
"""Told, in the event loop's thread, how a job of the intake thread went: what it returned, or the
exception it raised."""


class _IntakeThread(threading.Thread):
    """The one thread that writes to the database, on its own connection.

    SQLite takes one writer at a time anyway, and doing the work here keeps the event loop free to
    talk SMTP meanwhile.  Messages that arrive while it is busy are taken together (up to
    MAX_BATCH) and committed with one fsync by `intake.accept_many`: under load, many messages
    cost one commit, each still in its own savepoint and answered only after that commit.  The
    loop learns how a batch went in one call: a future per message cost the loop (which takes
    turns with this thread) more than passing the message on.
    """

    def __init__(self, config: Config, loop: asyncio.AbstractEventLoop):
        super().__init__(name="pbm-intake", daemon=True)
        self.config = config
        self._loop = loop
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._held: object = None      # a job taken from the queue while gathering a batch
        self._claimant: str | None = None  # who sends the replies (queue): the outbox process

    def accept(self, arrival: intake.Arrival, done: Done) -> None:
        """Commit `arrival`, with the messages queued with it; `done` gets its IntakeResult."""
        self._jobs.put((arrival, done))

    def write(self, work: Callable[[Database], object], done: Done) -> None:
        """Run `work` in a transaction of its own, once the messages queued before it are committed
        (the outbox's few writes wait their turn instead of polling for the lock)."""
        self._jobs.put((work, done))

    async def written(self, work: Callable[[Database], T]) -> T:
        """`write`, awaited: what `work` returned (its exception is raised)."""
        future = self._loop.create_future()
        self.write(work, functools.partial(_resolve, future))
        outcome = await future
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def claim_for(self, claimant: str) -> None:
        """Claim the replies of the messages committed from now on for `claimant` (the outbox
        process), which then need no claim of their own."""
        self._claimant = claimant

    def stop(self) -> None:
        self._jobs.put(_STOP)
        self.join()

    def run(self) -> None:
        link.name_process(self.name)
        db = open_db(self.config)
        db.execute("PRAGMA wal_autocheckpoint=0")   # the outbox process checkpoints, not the writer
        try:
            while (job := self._take()) is not _STOP:
                work, done = job
                if callable(work):
                    told = [(done, _outcome(db, work))]
                else:
                    batch = [job, *self._waiting_deliveries()]
                    told = list(zip([done for _, done in batch], self._accept(db, batch), strict=True))
                self._loop.call_soon_threadsafe(_tell, told)
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

    def _accept(self, db: Database,
                batch: list[tuple[intake.Arrival, Done]]) -> list[IntakeResult | Exception]:
        try:
            return intake.accept_many(db, self.config, [arrival for arrival, _ in batch],
                                      claimant=self._claimant)
        except Exception as e:          # accept_many answers for each message; this is a last resort
            return [e] * len(batch)


def _outcome(db: Database, work: Callable[[Database], object]) -> object:
    try:
        return claims.in_transaction(db)(work)
    except Exception as e:
        return e


def _tell(told: list[tuple[Done, object]]) -> None:
    for done, outcome in told:
        try:
            done(outcome)
        except Exception as e:          # the others must hear all the same
            log.error("could not pass an answer on:\n%s", describe_exception(e))


def _resolve(future: asyncio.Future, outcome: object) -> None:
    if not future.done():               # not given up on (a client that hung up)
        future.set_result(outcome)


def _smtp_answer(outcome: IntakeResult | Exception) -> str:
    """The SMTP answer to a message: 250 once it is committed, 451 if it was not recorded (452
    for want of space)."""
    if isinstance(outcome, NoSpace):
        return "452 4.3.1 Insufficient system storage, please try again later"
    if isinstance(outcome, TransientError):
        log.warning("temporary failure, answered 451: %s", outcome)
        return "451 4.3.0 Temporary failure, please try again later"
    if isinstance(outcome, Exception):
        log.error("intake failed, answered 451:\n%s", describe_exception(outcome))
        return "451 4.3.0 Internal error, please try again later"
    return f"250 2.0.0 Message accepted ({outcome.status})"


class Receiver:
    """What happens to a message after SMTP DATA, in the main process: prepare it (unless an SMTP
    process did), have the intake thread commit it, and answer."""

    def __init__(self, preparers: Preparers, intake_thread: _IntakeThread):
        self.preparers = preparers
        self.intake_thread = intake_thread
        self.in_progress = 0
        self.damaged: str | None = None     # what the last check found wrong with the database

    async def answer(self, delivery: intake.Delivery) -> str:
        """The answer to a message this process received over SMTP."""
        if self.damaged:
            return DAMAGED
        self.in_progress += 1
        try:
            arrival = await asyncio.wrap_future(self.preparers.prepare(delivery))
            committed = asyncio.get_running_loop().create_future()
            self.intake_thread.accept(arrival, functools.partial(_resolve, committed))
            outcome = await committed
        except Exception as e:
            outcome = e
        finally:
            self.in_progress -= 1
        return _smtp_answer(outcome)

    def accept_arrival(self, arrival: intake.Arrival, reply: Callable[[str], None]) -> None:
        """Commit a message an SMTP process received and prepared; `reply` gets the answer."""
        if self.damaged:
            reply(DAMAGED)
            return
        self.intake_thread.accept(arrival, lambda outcome: reply(_smtp_answer(outcome)))


async def _timers(config: Config, intake_thread: _IntakeThread) -> None:
    while True:
        try:
            await intake_thread.written(functools.partial(timers.queue_due, config=config))
        except Exception as e:              # a failing timer must not stop the server
            log.error("timers: %s", describe_exception(e))
        await asyncio.sleep(config.server.timer_interval)


DAMAGED = "451 4.3.0 The server's storage needs repair, please try again later"


async def _watch(config: Config, intake_thread: _IntakeThread, receiver: Receiver) -> None:
    """Check the database every `[storage] check_minutes`; on damage, stop taking mail and tell
    the administrators (once: the check goes on, and mail is taken again once the file is whole)."""
    while True:
        await asyncio.sleep(config.storage.check_minutes * 60)
        try:
            problem = await asyncio.to_thread(health.quick_check, config)
        except Exception as e:          # busy, say: the next check will tell
            log.warning("database check: %s", e)
            continue
        health.mark(config, problem)
        if problem and not receiver.damaged:
            log.error("%s", health.advice(config, problem))
            try:
                await intake_thread.written(functools.partial(_tell_admins, config=config, problem=problem))
            except Exception as e:
                log.error("could not queue the notice to the administrators: %s", e)
        receiver.damaged = problem


def _tell_admins(db: Database, config: Config, problem: str) -> None:
    notices = [Outgoing(to=admin, subject=f"{config.server.name}: database damaged",
                        body=health.advice(config, problem) + "\n", auto_submitted="auto-generated")
               for admin in config.admins.notify]
    outbox_queue.queue(db, config, notices, datetime.now(timezone.utc))


async def _lmtp(config: Config, receiver: Receiver) -> asyncio.AbstractServer:
    """The LMTP listener on `[lmtp] socket`, served by this process like SMTP with no SMTP
    processes.  A socket file left by a server that was killed is replaced."""
    path = config.lmtp.socket
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_socket():
        path.unlink()
    server = await asyncio.get_running_loop().create_unix_server(
        smtp_listener.lmtp_factory(config, receiver.answer), path=str(path))
    gid = reach.group_of(config)
    if path.stat().st_gid != gid:           # not a setgid folder of that group: root, or a member
        os.chown(path, -1, gid)
    os.chmod(path, config.lmtp.socket_mode)
    log.info("listening for LMTP on the socket %s (%s)", path, reach.describe(path))
    return server


def _check_at_start(config: Config) -> None:
    """Open (create, migrate) and check the database: health.Damaged if it is damaged or foreign."""
    try:
        open_db(config).close()
    except DatabaseLost as e:
        raise health.Damaged(str(e)) from None
    except sqlite3.DatabaseError as e:
        if not health.damage(e):
            raise
        health.mark(config, str(e))
        raise health.Damaged(health.advice(config, str(e), refusing=False)) from None
    problem = health.quick_check(config)
    health.mark(config, problem)
    if problem:
        raise health.Damaged(health.advice(config, problem, refusing=False))


async def _serve(config: Config) -> bool:
    _check_at_start(config)                 # create or migrate now: fail before listening
    if config.lmtp.socket and (problem := reach.cannot_give(config, os.geteuid(), os.getegid(),
                                                                   os.getgroups())):
        raise ConfigError(problem)
    loop = asyncio.get_running_loop()
    gate.quiet_resource_errors(loop)        # no descriptor left: one line a minute, not per accept
    stop = asyncio.Event()
    preparers = Preparers(config)
    intake_thread = _IntakeThread(config, loop)
    intake_thread.start()
    senders = link.Children(stop)
    outbox_process.start(config, senders, intake_thread.written, intake_thread.claim_for)
    receiver = Receiver(preparers, intake_thread)
    local = await _lmtp(config, receiver) if config.lmtp.socket else None
    listeners = link.Children(stop)
    if config.smtp.processes:               # they listen on these sockets; this process does not
        server = await loop.create_server(asyncio.Protocol, host=config.smtp.host,
                                          port=config.smtp.port, start_serving=False)
        smtp_listener.start(config, server.sockets, receiver.accept_arrival, listeners)
    else:
        handler = smtp_listener.SmtpHandler(config, receiver.answer)
        server = await loop.create_server(smtp_listener.protocol_factory(config, handler),
                                          host=config.smtp.host, port=config.smtp.port)
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    pages = await web_server.start(config) if config.web.listen else None
    timers = asyncio.create_task(_timers(config, intake_thread))
    watch = asyncio.create_task(_watch(config, intake_thread, receiver))
    reviewing = review_workers.start(config)
    log.info("listening on %s:%d for %s; data in %s", config.smtp.host, config.smtp.port,
             config.server.address, config.data_dir.resolve())
    await stop.wait()
    log.info("stopping")
    clean = await listeners.stop(DRAIN_TIMEOUT)     # after what they hold
    server.close()
    if local is not None:
        local.close()
    if pages is not None:
        await pages.cleanup()
    timers.cancel()
    watch.cancel()
    if reviewing is not None:
        reviewing[1].cancel()
        await reviewing[0].stop(DRAIN_TIMEOUT)
    for _ in range(int(DRAIN_TIMEOUT * 10)):
        if not receiver.in_progress:
            break
        await asyncio.sleep(0.1)
    preparers.stop()
    clean = await senders.stop(DRAIN_TIMEOUT) and clean   # it writes through the intake thread
    intake_thread.stop()
    log.info("stopped")
    return clean
