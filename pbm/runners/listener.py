"""The SMTP side of `pbm serve`: the aiosmtpd handler, and the SMTP processes that can run it.

The main process of `pbm serve` is the one writer of the database (group commit: one fsync for
many messages) and runs the timers.  Python runs one thread of a process at a time, so SMTP spoken
in that process (about a third of the CPU per message) takes turns with the writer.  With
`[smtp] processes = N`, N child processes speak SMTP instead, on the listening sockets the main
process opened (the kernel gives each connection to one of them), and pass each message to the
main process over their link (pbm.runners.processes), prepared (`intake.prepare`: parsed, decoded and its
passwords checked -- CPU the main process is spared); its answer -- 250 once committed, or 451 --
goes back to the client unchanged.  The children change nothing: they only read the database
(passwords).

A child that loses the main process stops.  The main process stops its children on SIGTERM or
SIGINT and answers the messages they still hold before it stops itself; if a child dies, the
whole server stops (exit status 70) so that its supervisor starts it afresh.
"""
from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import multiprocessing
import signal
import socket
from collections.abc import Awaitable, Callable, Sequence

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm import intake
from pbm.config import Config
from pbm.logs import configure_logging, describe_exception
from pbm.mail import reading
from pbm.runners import processes as link
from pbm.runners.preparers import Preparers

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
        if not reading.is_server_address(address, self.config.server.address):
            return "550 5.1.1 Not a mailbox of this server"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        mail_from = "" if envelope.mail_from == "<>" else envelope.mail_from
        return await self.answer(intake.Delivery(envelope.original_content, mail_from,
                                                 tuple(envelope.rcpt_tos)))


class LmtpHandler(SmtpHandler):
    """LMTP (RFC 2033) from the local MTA: after DATA, one answer for each recipient accepted by
    RCPT, in their order.  The message is recorded and carried out once, whatever its recipients, so
    every recipient gets the answer of that one commit."""

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        return "\r\n".join([answer] * len(envelope.rcpt_tos))


def lmtp_factory(config: Config, answer: Answer) -> Callable[[], LMTP]:
    """Makes the LMTP protocol of each connection on the Unix socket `[lmtp] socket`."""
    handler = LmtpHandler(config, answer)
    hostname = config.smtp.hostname or socket.getfqdn()
    return lambda: LMTP(handler, data_size_limit=config.smtp.max_message_size, enable_SMTPUTF8=True,
                        hostname=hostname, ident="pbm")


def protocol_factory(config: Config, handler: SmtpHandler) -> Callable[[], SMTP]:
    """Makes the SMTP protocol of each connection, the same in every process of `pbm serve`."""
    hostname = config.smtp.hostname or socket.getfqdn()     # may ask the DNS: once, not per connection
    return lambda: _Smtp(handler, data_size_limit=config.smtp.max_message_size, enable_SMTPUTF8=True,
                         hostname=hostname, ident="pbm")


class _Smtp(SMTP):
    """aiosmtpd's SMTP, remembering the addresses of MAIL and RCPT it has parsed: it parses each
    with the email package's full RFC 5322 parser, and builds a class while at it -- 80 µs, twice
    per message, for the same few addresses over and over.  (The parse also reads
    `local_part_limit`, which is the same for every connection here.)"""

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        parsed = _ADDRESSES.get(arg)
        if parsed is None:
            if len(_ADDRESSES) >= _ADDRESSES_MAX:
                _ADDRESSES.clear()
            parsed = _ADDRESSES[arg] = super()._getaddr(arg)
        return parsed


_ADDRESSES: dict[str, tuple[str | None, str | None]] = {}   # `MAIL FROM:`/`RCPT TO:` argument -> parsed
_ADDRESSES_MAX = 10_000


# --- in the main process ---------------------------------------------------------------------------

Accept = Callable[[intake.Arrival, Callable[[str], None]], None]
"""Has a prepared message committed, and its answer passed to the callback (in the loop's thread)."""


def start(config: Config, sockets: Sequence, accept: Accept, children: link.Children) -> None:
    """Start `config.smtp.processes` SMTP processes on the (bound) `sockets`, as `children`.
    `accept` answers the messages they pass on."""
    listeners = [socket.fromfd(s.fileno(), s.family, s.type) for s in sockets]
    for number in range(config.smtp.processes):
        children.start(f"pbm-smtp-{number}", run_child, (config, listeners),
                       lambda reader, writer: _serve_child(reader, writer, accept))
    for listener in listeners:
        listener.listen(100)            # connections wait in the backlog until a child takes them
        listener.close()                # the children have their own


async def _serve_child(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, accept: Accept) -> None:
    """Pass on the messages one child hands over; each answer goes back once it is committed.  (A
    child that stops waits for its answers before it closes the link.)"""
    while (request := await link.receive(reader)) is not None:
        request_id, arrival = request
        accept(arrival, functools.partial(_reply, writer, request_id))


def _reply(writer: asyncio.StreamWriter, request_id: int, answer: str) -> None:
    if not writer.is_closing():         # else the child is gone, and its client with it
        link.send(writer, (request_id, answer))


# --- in an SMTP process ----------------------------------------------------------------------------

def run_child(config: Config, listeners: list[socket.socket], main_link: socket.socket) -> None:
    """The SMTP process: serve SMTP until SIGTERM or SIGINT, or until the main process is gone."""
    configure_logging(config)
    link.name_process(multiprocessing.current_process().name)
    asyncio.run(_child(config, listeners, main_link))


async def _child(config: Config, listeners: list[socket.socket], main_link: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    preparers = Preparers(config)
    main = _MainProcess(preparers, *await asyncio.open_connection(sock=main_link))
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

    def __init__(self, preparers: Preparers, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter):
        self.preparers = preparers
        self.writer = writer
        self._ids = itertools.count()
        self._waiting: dict[int, asyncio.Future[str]] = {}
        self.reading = asyncio.create_task(self._read_answers(reader))

    async def answer(self, delivery: intake.Delivery) -> str:
        """Prepare the message (`Preparers`: at once, or in a thread where scrypt or a big
        message takes a while), pass it on, await the answer."""
        try:
            arrival = await asyncio.wrap_future(self.preparers.prepare(delivery))
        except Exception as e:
            log.error("a message could not be prepared, answered 451:\n%s",
                      describe_exception(e))
            return INTERNAL_ERROR
        if self.reading.done():
            return LOST
        request_id = next(self._ids)
        future = self._waiting[request_id] = asyncio.get_running_loop().create_future()
        try:
            link.send(self.writer, (request_id, arrival))
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
        while (message := await link.receive(reader)) is not None:
            request_id, text = message
            future = self._waiting.get(request_id)
            if future is not None and not future.done():
                future.set_result(text)
        for future in self._waiting.values():
            if not future.done():
                future.set_result(LOST)
