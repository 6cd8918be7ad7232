"""The game pages over HTTP, with aiohttp's server: `pbm web` alone, or inside `pbm serve`'s loop.

Every page is read through one read-only connection per worker thread (pbm.model.store.open_reader),
so a page never writes and never waits for the writer; the work runs in threads, off the loop that
also speaks SMTP.  Every answer says `Referrer-Policy: no-referrer` (the link is a secret), a strict
Content-Security-Policy (no script, nothing from elsewhere) and `X-Content-Type-Options: nosniff`;
a forged, revoked or unknown link is a plain 404, the same for all.  The port is bounded
(pbm.web.gate): connections in total and per address, a deadline for each request head. With `[review] keys`, review
workers on other machines take their jobs here (pbm.review.remote: the only writes, each in a
thread on a connection of its own, once per game reviewed).
"""
from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from importlib import resources
from typing import TypeVar

from aiohttp import web

from pbm.config import Config
from pbm.logs import describe_exception
from pbm.model.db import Database
from pbm.model.store import open_db, open_reader
from pbm.review import remote
from pbm.web import gate, pages, ratings, tournaments, unsubscribe

log = logging.getLogger(__name__)

HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
}
STYLESHEET = (resources.files("pbm.web") / "page.css").read_bytes()
T = TypeVar("T")


class _Readers(threading.local):
    """One read-only connection per worker thread, opened when first needed."""
    db: Database | None = None


class _Writers(threading.local):
    """One writing connection per worker thread, for the review workers' posts."""
    db: Database | None = None


def app(config: Config) -> web.Application:
    """The pages' application: a reader's page `/g/TOKEN` (its picture `/g/TOKEN/board.png`, its
    records `/g/TOKEN/record.SUFFIX`), a game's public view `/p/xiangqi-101` (the same beneath it),
    a tournament's page `/t/xiangqi/NAME`, a game's rating list `/r/xiangqi`; a one-click unsubscribe
    `/u/TOKEN` (pbm.web.unsubscribe)."""
    readers = _Readers()

    def read(work: Callable[[Database, Config], T]) -> T:
        if readers.db is None:
            readers.db = open_reader(config)
        return work(readers.db, config)

    async def run(work: Callable[[Database, Config], T]) -> T:
        """`work(db, config)` in a worker thread, on its read-only connection."""
        try:
            return await asyncio.to_thread(read, work)
        except pages.NotFound:
            raise web.HTTPNotFound() from None

    def who(db: Database, config: Config, request: web.Request) -> pages.Reader:
        return pages.find(db, config, request.match_info["kind"], request.match_info["name"],
                          request.headers.get("Accept-Language", ""))

    async def game(request: web.Request) -> web.Response:
        html = await run(lambda db, config: pages.page(db, config, who(db, config, request),
                                                       request.match_info["name"], request.query.get("ply"),
                                                       datetime.now(timezone.utc)))
        return web.Response(text=html, content_type="text/html", charset="utf-8", headers=HEADERS)

    async def board(request: web.Request) -> web.Response:
        png = await run(lambda db, config: pages.picture(db, config, who(db, config, request),
                                                         request.query.get("ply")))
        return web.Response(body=png, content_type="image/png", headers=HEADERS)

    async def chart(request: web.Request) -> web.Response:
        png = await run(lambda db, config: pages.chart(db, config, who(db, config, request)))
        return web.Response(body=png, content_type="image/png", headers=HEADERS)

    async def record(request: web.Request) -> web.Response:
        utf8 = request.query.get("encoding", "").lower() == "utf-8"
        data, media, name = await run(lambda db, config: pages.record(
            db, config, who(db, config, request), request.match_info["suffix"], utf8))
        return web.Response(body=data, headers={**HEADERS, "Content-Type": media,
                                                "Content-Disposition": f'inline; filename="{name}"'})

    async def tournament(request: web.Request) -> web.Response:
        html = await run(lambda db, config: tournaments.page(
            db, config, request.match_info["variant"], request.match_info["name"],
            request.headers.get("Accept-Language", ""), datetime.now(timezone.utc)))
        return web.Response(text=html, content_type="text/html", charset="utf-8", headers=HEADERS)

    async def rating_list(request: web.Request) -> web.Response:
        html = await run(lambda db, config: ratings.page(
            db, request.match_info["variant"], request.headers.get("Accept-Language", ""),
            datetime.now(timezone.utc)))
        return web.Response(text=html, content_type="text/html", charset="utf-8", headers=HEADERS)

    writers = _Writers()

    def write(work: Callable[[Database, Config, dict], object], body: dict) -> object:
        if writers.db is None:
            writers.db = open_db(config)
        return work(writers.db, config, body)

    def reviewing(work: Callable[[Database, Config, dict], object]) -> Callable:
        async def handle(request: web.Request) -> web.Response:
            try:
                body = await request.json()
                if not isinstance(body, dict):
                    raise ValueError(body)
                answer = await asyncio.to_thread(write, work, body)
            except ValueError:
                return web.Response(status=400, text="a JSON object, please\n", headers=HEADERS)
            except remote.Refused as e:
                return web.Response(status=e.status, text=f"{e}\n", headers=HEADERS)
            if answer is None and work is remote.acquire:
                return web.Response(status=204, headers=HEADERS)
            return web.json_response(answer or {}, headers=HEADERS)
        return handle

    async def stylesheet(request: web.Request) -> web.Response:
        return web.Response(body=STYLESHEET, content_type="text/css", charset="utf-8",
                            headers={**HEADERS, "Cache-Control": "public, max-age=86400"})

    @web.middleware
    async def plain_errors(request: web.Request, handler: Callable) -> web.StreamResponse:
        """Every refusal (an unknown path, a wrong method) the same plain text, with the headers;
        a fault of ours too (a 500, logged without its text)."""
        try:
            return await handler(request)
        except web.HTTPException as e:
            return web.Response(status=e.status, text=f"{e.reason}\n", headers=HEADERS)
        except Exception as e:
            log.error("page %s failed:\n%s", request.path[:200], describe_exception(e))
            return web.Response(status=500, text="Internal Server Error\n", headers=HEADERS)

    application = web.Application(middlewares=[plain_errors])
    game_page = "/{kind:[gp]}/{name}"
    application.add_routes([web.get(game_page, game), web.get(game_page + "/board.png", board),
                            web.get(game_page + "/chart.png", chart),
                            web.get(game_page + "/record.{suffix}", record),
                            web.get("/t/{variant}/{name}", tournament),
                            web.get("/r/{variant}", rating_list),
                            web.get("/static/page.css", stylesheet)])
    if config.review.keys:
        application.add_routes([web.post("/review/acquire", reviewing(remote.acquire)),
                                web.post("/review/done", reviewing(remote.done)),
                                web.post("/review/failed", reviewing(remote.failed))])
    application.add_routes(unsubscribe.routes(config, HEADERS))    # one-click unsubscribe (RFC 8058)
    return application


async def start(config: Config) -> web.AppRunner:
    """Serve the pages on `[web] listen` in the running loop; the runner's cleanup() stops them."""
    gate.quiet_resource_errors(asyncio.get_running_loop())
    # aiohttp's keep-alive timeout runs from the connection's start: a request head that is not
    # whole by then (a slow client) is closed, as is a connection idle that long
    runner = web.AppRunner(app(config), access_log=None, keepalive_timeout=config.web.head_timeout)
    await runner.setup()
    site = gate.BoundedSite(runner, config.web)
    await site.start()
    log.info("serving the game pages on %s (%s)", config.web.listen, config.web.base_url)
    return runner


def run(config: Config) -> None:
    """`pbm web`: the pages alone, until SIGTERM or SIGINT."""
    asyncio.run(_alone(config))


async def _alone(config: Config) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runner = await start(config)
    await stop.wait()
    await runner.cleanup()
    log.info("stopped")
