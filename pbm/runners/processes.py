"""The processes of `pbm serve` and the links between them.

The main process (the one writer of the database) starts child processes -- the SMTP processes
(pbm.runners.listener) and the outbox process (pbm.runners.outbox) -- each with a socket pair to it, over which
they exchange length-prefixed pickles: only between processes of one server, which trust each other.
The main process reads its links with asyncio; the outbox process, which has nothing else to wait
for, with plain blocking calls.

If a child dies on its own, the whole server stops (exit status 70) so that its supervisor starts it
afresh, instead of limping on without it; a child that loses the main process stops too.
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import pickle
import socket
import struct
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger(__name__)

_LENGTH = struct.Struct("!I")
_SPAWN = multiprocessing.get_context("spawn")   # a fresh interpreter: no threads forked

Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
"""Talks to one child over its link, until the child closes it."""


class Children:
    """Child processes of one kind, seen from the main process."""

    def __init__(self, stopping: asyncio.Event):
        self.stopping = stopping        # set once the server stops: children exit then, as asked
        self.processes: list = []
        self.links: list[asyncio.Task] = []
        self.lost = False               # one of them died on its own

    def start(self, name: str, target: Callable, args: tuple, serve: Serve) -> None:
        """Start `target(*args, link)` in a new process named `name`; `serve` talks to it."""
        ours, theirs = socket.socketpair()
        process = _SPAWN.Process(target=target, args=(*args, theirs), name=name, daemon=True)
        process.start()
        theirs.close()
        self.processes.append(process)
        self.links.append(asyncio.create_task(self._link(name, ours, serve)))

    async def _link(self, name: str, sock: socket.socket, serve: Serve) -> None:
        reader, writer = await asyncio.open_connection(sock=sock)
        try:
            await serve(reader, writer)
        finally:
            writer.close()
        if not self.stopping.is_set():
            log.error("process %s died; stopping, to be started afresh", name)
            self.lost = True
            self.stopping.set()

    async def stop(self, timeout: float) -> bool:
        """SIGTERM them, let them finish what they hold, wait; False if one had died before."""
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        loop = asyncio.get_running_loop()
        for process in self.processes:
            await loop.run_in_executor(None, process.join, timeout)
            if process.is_alive():
                log.error("%s (%d) did not stop; killed", process.name, process.pid)
                process.kill()
        await asyncio.gather(*self.links, return_exceptions=True)
        return not self.lost


def name_process(name: str) -> None:
    """Show `name` for this process -- or, called from another thread, for that thread -- in ps
    and top (`top -H` shows threads; Linux only, elsewhere nothing happens), so that an operator
    can tell the parts of `pbm serve` apart, and what each costs."""
    try:
        Path(f"/proc/self/task/{threading.get_native_id()}/comm").write_text(name[:15])
    except OSError:
        pass


# --- messages: asyncio streams in the main process (and the SMTP processes), sockets elsewhere ---

def send(writer: asyncio.StreamWriter, message: object) -> None:
    writer.write(_frame(message))


async def receive(reader: asyncio.StreamReader) -> object | None:
    """The next message, or None once the other process has closed the link."""
    try:
        length, = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
        return pickle.loads(await reader.readexactly(length))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def send_blocking(sock: socket.socket, message: object) -> None:
    sock.sendall(_frame(message))


def receive_blocking(sock: socket.socket) -> object | None:
    """The next message, or None once the other process has closed the link."""
    header = _read_exactly(sock, _LENGTH.size)
    data = None if header is None else _read_exactly(sock, _LENGTH.unpack(header)[0])
    return None if data is None else pickle.loads(data)


def _frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    """`size` bytes, or None if the link closes first."""
    data = bytearray()
    while len(data) < size:
        try:
            chunk = sock.recv(size - len(data))
        except ConnectionError:
            return None
        if not chunk:
            return None
        data += chunk
    return bytes(data)
