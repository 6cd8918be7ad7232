"""One-click unsubscribe (RFC 8058) on the pages' listener: `POST /u/TOKEN`, the URI of a subscribed
mail's List-Unsubscribe (pbm.outbox.streams).

A POST with a genuine token turns the subscribed stream off for the reader it names at once -- no
login, no page to click through -- and answers 200, as often as it comes (a spent token changes
nothing more); a forged one is the pages' plain 404.  A GET (a person who opened the link, or a
scanner that follows every link) changes nothing: it shows a button that posts.  Its own module, so
that the pages' server adds it with one line (pbm.web.server).
"""
from __future__ import annotations

import asyncio
import html
from datetime import datetime, timezone

from aiohttp import web

from pbm import i18n
from pbm.config import Config
from pbm.i18n import _
from pbm.model.db import transaction
from pbm.model.players import subscriptions, tokens
from pbm.model.store import open_db

PATH = "/u/{token}"


def routes(config: Config, headers: dict[str, str]) -> list[web.RouteDef]:
    """The unsubscribe routes, answering with the pages' `headers`."""

    def named(request: web.Request) -> str:
        """The reader a genuine token names; 404 for any other token."""
        found = tokens.check_unsubscribe(config.secret, request.match_info["token"])
        if found is None:
            raise web.HTTPNotFound()
        return found[1]

    def turn_off(token: str) -> None:
        db = open_db(config)
        try:
            with transaction(db):
                subscriptions.unsubscribe(db, config.secret, token, "web", datetime.now(timezone.utc))
        finally:
            db.close()

    async def post(request: web.Request) -> web.Response:
        user = named(request)
        await asyncio.to_thread(turn_off, request.match_info["token"])
        with _speaking(request):
            text = _("Done: {server} sends you no more of the mail you subscribed to. To have it "
                     "again, send: {command}").format(server=config.server.name,
                                                      command=f"set {user} PASSWORD subscribed=on")
        return web.Response(text=text + "\n", headers=headers)

    async def get(request: web.Request) -> web.Response:
        named(request)
        with _speaking(request):
            said = _("This stops the mail you subscribed to from {server}: digests, reminders, "
                     "end-of-game notices, the games you observe, tournament news. The mail of your "
                     "own games goes on.").format(server=config.server.name)
            button = _("Unsubscribe")
        page = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(button)}"
                f"</title></head><body><p>{html.escape(said)}</p><form method=\"post\"><button "
                f"type=\"submit\">{html.escape(button)}</button></form></body></html>")
        own = {**headers, "Content-Security-Policy": headers["Content-Security-Policy"].replace(
            "form-action 'none'", "form-action 'self'")}
        return web.Response(text=page, content_type="text/html", charset="utf-8", headers=own)

    return [web.post(PATH, post), web.get(PATH, get)]


def _speaking(request: web.Request):
    return i18n.speaking(i18n.from_header(request.headers.get("Accept-Language", "")) or "en")
