"""The SMTP side of `pbm serve`: the aiosmtpd handler, and the SMTP processes that can run it.

The main process of `pbm serve` is the one writer of the database (group commit: one fsync for
many messages) and runs the outbox and the timers.  Python runs one thread of a process at a time,
so SMTP spoken in that process (about a third of the CPU per message) takes turns with the writer.
With `[smtp] processes = N`, N child processes speak SMTP instead, on the listening sockets the
main process opened (the kernel gives each connection to one of them), and pass each message to
the main process over a socket pair, prepared (`intake.prepare`: parsed, decoded and its passwords
checked -- CPU the main process is spared); its answer -- 250 once committed, or 451 -- goes back
to the client unchanged.  The children change nothing: they only read the database (passwords).

A child that loses the main process stops.  The main process stops its children on SIGTERM or
SIGINT and answers the messages they still hold before it stops itself; if a child dies, the
whole server stops (exit status 70) so that its supervisor starts it afresh.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import pickle
import signal
import socket
import struct
from collections.abc import Awaitable, Callable, Sequence

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm import inbound, intake
from pbm.config import Config

log = logging.getLogger(__name__)

Answer = Callable[[intake.Delivery], Awaitable[str]]

LOST = "451 4.3.0 Temporary failure, please try again later"    # the main process is gone
INTERNAL_ERROR = "451 4.3.0 Internal error, please try again later"


class SmtpHandler:
    """aiosmtpd handler: accept mail for the server's addresses only; DATA is answered by `answer`
    (in the main process: `serve.Receiver.answer`; in an SMTP process: the main process)."""

    def __init__(self, config: Config, answer: Answer):
        self.config = config
        self.answer = answer

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if not inbound.is_server_address(address, self.config.server.address):
            return "550 5.1.1 Not a mailbox of this server"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        mail_from = "" if envelope.mail_from == "<>" else envelope.mail_from
        return await self.answer(intake.Delivery(envelope.original_content, mail_from,
                                                 tuple(envelope.rcpt_tos)))


def protocol_factory(config: Config, handler: SmtpHandler) -> Callable[[], SMTP]:
    """Makes the SMTP protocol of each connection, the same in every process of `pbm serve`."""
    hostname = config.smtp.hostname or socket.getfqdn()     # may ask the DNS: once, not per connection
    return lambda: SMTP(handler, data_size_limit=config.smtp.max_message_size, enable_SMTPUTF8=True,
                        hostname=hostname, ident="pbm")


# --- in the main process ---------------------------------------------------------------------------

class Children:
    """The SMTP processes, seen from the main process."""

    def __init__(self, processes: list, links: list[asyncio.Task]):
        self.processes = processes
        self.links = links
        self.stopping = False
        self.lost = False               # one of them died on its own

    async def stop(self, timeout: float) -> bool:
        """SIGTERM them, let them hand over what they hold, wait; False if one had died before."""
        self.stopping = True
        for process in self.processes:
            if process.is_alive():
                process.terminate()     # SIGTERM: the child stops listening and drains
        loop = asyncio.get_running_loop()
        for process in self.processes:
            await loop.run_in_executor(None, process.join, timeout)
            if process.is_alive():
                log.error("SMTP process %d did not stop; killed", process.pid)
                process.kill()
        await asyncio.gather(*self.links, return_exceptions=True)
        return not self.lost


def start(config: Config, sockets: Sequence, answer: Callable[[intake.Arrival], Awaitable[str]],
          on_loss: Callable[[], None]) -> Children:
    """Start `config.smtp.processes` SMTP processes on the (bound) `sockets`.  `answer` answers
    the messages they pass on; `on_loss` is called if one of them dies."""
    context = multiprocessing.get_context("spawn")      # a fresh interpreter: no threads forked
    listeners = [socket.fromfd(s.fileno(), s.family, s.type) for s in sockets]
    processes, links = [], []
    children = Children(processes, links)
    for number in range(config.smtp.processes):
        ours, theirs = socket.socketpair()
        process = context.Process(target=run_child, args=(config, listeners, theirs),
                                  name=f"pbm-smtp-{number}", daemon=True)
        process.start()
        theirs.close()
        processes.append(process)
        links.append(asyncio.create_task(_serve_child(ours, answer, children, on_loss)))
    for listener in listeners:
        listener.listen(100)            # connections wait in the backlog until a child takes them
        listener.close()                # the children have their own
    return children


async def _serve_child(sock: socket.socket, answer: Callable[[intake.Arrival], Awaitable[str]],
                       children: Children, on_loss: Callable[[], None]) -> None:
    """Answer the messages one child passes on, each as soon as it is committed."""
    reader, writer = await asyncio.open_connection(sock=sock)
    pending: set[asyncio.Task] = set()

    async def reply(request_id: int, arrival: intake.Arrival) -> None:
        _send(writer, (request_id, await answer(arrival)))

    while (request := await _receive(reader)) is not None:
        task = asyncio.create_task(reply(*request))
        pending.add(task)
        task.add_done_callback(pending.discard)
    await asyncio.gather(*pending, return_exceptions=True)
    writer.close()
    if not children.stopping:
        log.error("an SMTP process died; stopping, to be started afresh")
        children.lost = True
        on_loss()


# --- in an SMTP process ----------------------------------------------------------------------------

def run_child(config: Config, listeners: list[socket.socket], link: socket.socket) -> None:
    """The SMTP process: serve SMTP until SIGTERM or SIGINT, or until the main process is gone."""
    from pbm.cli import configure_logging
    configure_logging(config)
    asyncio.run(_child(config, listeners, link))


async def _child(config: Config, listeners: list[socket.socket], link: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    preparers = intake.Preparers(config)
    main = _MainProcess(preparers, *await asyncio.open_connection(sock=link))
    factory = protocol_factory(config, SmtpHandler(config, main.answer))
    servers = [await loop.create_server(factory, sock=listener) for listener in listeners]
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    main.reading.add_done_callback(lambda _: stop.set())
    await stop.wait()
    for server in servers:
        server.close()
    await main.drain()
    preparers.stop()


class _MainProcess:
    """The link to the main process: passes messages on and hands back its answers."""

    def __init__(self, preparers: intake.Preparers, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter):
        self.preparers = preparers
        self.writer = writer
        self._ids = itertools.count()
        self._waiting: dict[int, asyncio.Future[str]] = {}
        self.reading = asyncio.create_task(self._read_answers(reader))

    async def answer(self, delivery: intake.Delivery) -> str:
        """Prepare the message (in a thread: scrypt, or a big message, takes a while), pass it on,
        await the answer."""
        try:
            arrival = await asyncio.wrap_future(self.preparers.prepare(delivery))
        except Exception as e:
            log.error("a message could not be prepared, answered 451:\n%s",
                      intake.describe_exception(e))
            return INTERNAL_ERROR
        if self.reading.done():
            return LOST
        request_id = next(self._ids)
        future = self._waiting[request_id] = asyncio.get_running_loop().create_future()
        try:
            _send(self.writer, (request_id, arrival))
            await self.writer.drain()
            return await future
        except ConnectionError:
            return LOST
        finally:
            del self._waiting[request_id]

    async def drain(self) -> None:
        """Wait for the answers still due (the main process waits for us), then close the link."""
        while self._waiting and not self.reading.done():
            await asyncio.sleep(0.05)
        self.writer.close()

    async def _read_answers(self, reader: asyncio.StreamReader) -> None:
        while (message := await _receive(reader)) is not None:
            request_id, text = message
            future = self._waiting.get(request_id)
            if future is not None and not future.done():
                future.set_result(text)
        for future in self._waiting.values():
            if not future.done():
                future.set_result(LOST)


# --- the link: length-prefixed pickles between two processes of this server ------------------------

_LENGTH = struct.Struct("!I")


def _send(writer: asyncio.StreamWriter, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_LENGTH.pack(len(data)) + data)


async def _receive(reader: asyncio.StreamReader) -> object | None:
    """The next message, or None once the other process has closed the link."""
    try:
        length, = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
        return pickle.loads(await reader.readexactly(length))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
