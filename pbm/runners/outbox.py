"""The outbox process of `pbm serve`: it sends the replies, so that the main process only commits.

Sending costs CPU -- reading each reply back, writing and fsyncing its Maildir file, or speaking
SMTP to the relay -- that in the main process took turns with the writer (Python runs one thread of
a process at a time): a quarter of the main process's time under load.  Here it runs beside it.

Every OUTBOX_GATHER seconds the process looks (reading the database itself) for due replies, so
that under load the replies of many commits go out together: their files made durable together, one
write of their new status.  The main process's writer claims the replies for it as it queues them
(it tells the main process who it is first); others -- the timers', ones retried later -- it claims
itself, one claim a batch.  It does not make those writes (`claims.Write`) itself: it passes
them to the main process, whose writer makes them between two batches of messages (a second writer
would poll for the lock while the main one is busy, and make it poll in turn).  Every OUTBOX_POLL
seconds it claims even with nothing due, to take over the rows of a process that died while
sending.  It also checkpoints the write-ahead log, which the writer leaves alone so that no message
waits for it.

The main process stops it with SIGTERM once no more messages come in; it finishes its batch first.
It ignores SIGINT (a Ctrl-C reaches every process of the terminal: the main process decides the
order) and stops when the main process is gone.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import select
import signal
import socket
import time
from collections.abc import Awaitable, Callable

from pbm.config import Config
from pbm.logs import configure_logging, describe_exception
from pbm.model.db import Database
from pbm.model.store import open_db
from pbm.outbox import claims, sending
from pbm.pictures import deferred
from pbm.runners import processes as link
from pbm.runners.drawers import Drawers

log = logging.getLogger(__name__)

OUTBOX_GATHER = 0.15    # seconds between looks for due replies
OUTBOX_POLL = 5.0       # seconds between claims that take over the rows of dead processes

Writer = Callable[[Callable[[Database], object]], Awaitable[object]]
"""Makes a write in a transaction of the main process's writer (awaited: its result)."""


class MainProcessGone(Exception):
    """The link to the main process is closed: stop."""


class WriteFailed(Exception):
    """The main process could not make a write (the database was locked, for instance)."""


# --- in the main process ---------------------------------------------------------------------------

def start(config: Config, children: link.Children, write: Writer,
          claims: Callable[[str], None]) -> None:
    """Start the outbox process; `write` makes the writes it asks for, and `claims` learns who it
    is (claims.claimant), so that replies can be claimed for it as they are queued."""
    children.start("pbm-outbox", run_child, (config,),
                   lambda reader, writer: _serve_writes(reader, writer, write, claims))


async def _serve_writes(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        write: Writer, claims: Callable[[str], None]) -> None:
    """Learn who the outbox process is, then make the writes it asks for, one at a time, and tell
    it how each went."""
    claimant = await link.receive(reader)
    if claimant is None:
        return
    claims(claimant)
    while (work := await link.receive(reader)) is not None:
        try:
            answer = (True, await write(work))
        except Exception as e:          # it decides what to do: keep the rows, try again later
            answer = (False, f"{type(e).__name__}: {e}")
        link.send(writer, answer)


# --- in the outbox process -------------------------------------------------------------------------

def run_child(config: Config, main_link: socket.socket) -> None:
    """Send due replies until SIGTERM, or until the main process is gone."""
    configure_logging(config)
    link.name_process("pbm-outbox")
    if config.outbound.mode == "smtp":
        import pbm.outbox.relay as relay  # noqa: F401  (now: a reinstall under a running server may remove it)
    deferred.DRAW.target()              # the drawing and its font, now, for the same reason
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    write = functools.partial(_write, main_link)
    db = open_db(config)
    drawers = Drawers()
    swept = 0.0
    try:
        link.send_blocking(main_link, claims.claimant())     # replies are claimed for it when queued
        while not stopping:
            sweep = time.monotonic() - swept >= OUTBOX_POLL
            if sweep:
                swept = time.monotonic()
            full = _send_batch(db, config, write, sweep, drawers)
            if not full and select.select([main_link], [], [], OUTBOX_GATHER)[0]:
                break                   # the main process never writes unasked: it is gone
    except MainProcessGone:
        pass
    finally:
        drawers.close()
        db.close()


def _send_batch(db: Database, config: Config, write: claims.Write, sweep: bool,
                draw: sending.Drawer) -> bool:
    """Send one batch of due replies (if `sweep`, claim even with none due); True if the batch
    was full, so that more may be due already."""
    try:
        if not sweep and not sending.any_due(db, claims.claimant()):
            return False
        report = sending.send_due(db, config, write=write, batches=1, draw=draw)
        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except WriteFailed as e:            # the rows stay claimed, and are sent again later
        log.warning("outbox: %s", e)
        return False
    except MainProcessGone:
        raise
    except Exception as e:              # keep sending; the rows stay queued or claimed
        log.error("outbox: %s", describe_exception(e))
        return False
    return report.claimed >= claims.BATCH


def _write(main_link: socket.socket, work: Callable[[Database], object]) -> object:
    """An `claims.Write` that has the main process make the write."""
    try:
        link.send_blocking(main_link, work)
    except OSError:
        raise MainProcessGone() from None
    answer = link.receive_blocking(main_link)
    if answer is None:
        raise MainProcessGone()
    done, value = answer
    if not done:
        raise WriteFailed(value)
    return value
