"""The page port's bounds, so that the pages can never starve the mail that `pbm serve` takes on the
same loop: connections in total and per client address (`[web] connections`,
`connections_per_address`), refused at once past either -- closed before they cost a read; a
deadline for the request head (`[web] head_timeout`: aiohttp's keep-alive timeout, which also
closes a connection that has not sent a whole request by then: a slow client); and a resource
error of the loop (EMFILE at accept) logged once a minute at most, with the count, not once per
accept with a traceback (1.2 million lines in two minutes, in the review of 2026-11-28).
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from pbm.config import WebSection

log = logging.getLogger(__name__)

QUIET = 60.0            # seconds between two log lines of the same resource error, at least


class Limits:
    """Who is connected, by client address."""

    def __init__(self, web_config: WebSection):
        self.total, self.per_address = web_config.connections, web_config.connections_per_address
        self.open: Counter[str] = Counter()
        self.refused = 0

    def admit(self, address: str) -> bool:
        if sum(self.open.values()) >= self.total or self.open[address] >= self.per_address:
            self.refused += 1
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class _Gate(asyncio.Protocol):
    """One connection: refused (closed at once) past the limits, else aiohttp's own handler."""

    def __init__(self, handler: RequestHandler, limits: Limits):
        self.handler, self.limits, self.address = handler, limits, None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else ""
        if not self.limits.admit(address):
            transport.abort()
            return
        self.address = address
        self.handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            self.limits.release(self.address)
            self.address = None
            self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


class BoundedSite(web.TCPSite):
    """aiohttp's TCP site, each connection through the gate."""

    def __init__(self, runner: web.AppRunner, web_config: WebSection):
        super().__init__(runner, web_config.host, web_config.port)
        self.limits = Limits(web_config)

    async def start(self) -> None:
        await web.BaseSite.start(self)      # registers the site with its runner
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        self._server = await loop.create_server(lambda: _Gate(server(), self.limits), self._host,
                                                self._port, reuse_address=self._reuse_address)


class QuietResources:
    """A loop's exception handler that tells a resource error ("out of system resource": no file
    descriptor left) in one line a minute, with how many there were, and passes the rest on."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.previous = loop.get_exception_handler()
        self.last, self.count = -QUIET, 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "out of system resource" not in str(context.get("message", "")):
            if self.previous is None:
                loop.default_exception_handler(context)
            else:
                self.previous(loop, context)
            return
        self.count += 1
        now = time.monotonic()
        if now - self.last >= QUIET:
            error = context.get("exception")
            log.error("%s (%s), %d time(s) since the last report: more connections than file "
                      "descriptors; see [web] connections and LimitNOFILE in docs/operating.md",
                      context["message"], error, self.count)
            self.last, self.count = now, 0


def quiet_resource_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Install QuietResources on `loop` (once)."""
    if not isinstance(loop.get_exception_handler(), QuietResources):
        loop.set_exception_handler(QuietResources(loop))
