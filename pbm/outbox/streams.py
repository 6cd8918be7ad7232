"""The two streams of mail as the outbox sends them (docs/operating.md, "Getting into the inbox").

Every reply is queued through `prepare`, the one place where a mail's stream has its effects: a
subscribed mail (pbm.outbox.compose.subscribed) is dropped for a reader who turned that stream off
and for an address that bounced hard, and carries the one-click unsubscribe of RFC 8058 (an HTTPS
URI on `[web] base_url`, served by pbm.web.unsubscribe, and a `mailto:` to the server's own
address, taken by pbm.intake); every mail carries a `Feedback-ID` (stream, game kind, server) and
goes out from its stream's envelope sender (`envelope_sender`), so that bounces and complaints are
counted per stream.  A reader whose subscribed stream was turned off is told how to turn it on in
the next mail they get.
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from pbm import i18n
from pbm.config import Config
from pbm.i18n import _
from pbm.mail.messages import STREAMS, SUBSCRIBED, Outgoing
from pbm.model.db import Database
from pbm.model.players import accounts, subscriptions, tokens
from pbm.outbox import compose


def envelope_sender(config: Config, stream: str) -> str:
    """The envelope sender (MAIL FROM) of a mail of `stream`: `[outbound] bounce_address` (else the
    server's address) tagged with the stream, `bounces+subscribed@example.org`."""
    local, _at, domain = (config.outbound.bounce_address or config.server.address).rpartition("@")
    return f"{local}+{stream}@{domain}"


def prepare(db: Database, config: Config, outgoing: Iterable[Outgoing], now: datetime) -> list[Outgoing]:
    """The mails to queue of `outgoing`, each with its stream's headers (inside the transaction)."""
    mails = list(outgoing)
    if not mails:
        return mails
    subscribed = [mail for mail in mails if mail.stream == SUBSCRIBED]
    bounced = _hard_bounced(db, [mail.to for mail in subscribed])
    known = subscriptions.readers(db, {mail.reader for mail in subscribed if mail.reader})
    off = {reader for reader, generation in known.items() if generation is None}
    unsubscribe = {reader: _unsubscribe_headers(config, reader, generation)
                   for reader, generation in known.items() if generation is not None}
    untold = subscriptions.untold(db, [mail.to for mail in mails])
    kept = []
    for mail in mails:
        if mail.stream == SUBSCRIBED and (mail.to.lower() in bounced or mail.reader in off):
            continue
        headers = {"Feedback-ID": _feedback_id(config, mail)}
        if mail.stream == SUBSCRIBED and mail.reader:
            headers.update(unsubscribe[mail.reader])
        mail = replace(mail, headers={**mail.headers, **headers})
        reader = untold.pop(mail.to.lower(), None)
        if reader is not None:
            mail = _tell(db, mail, reader, now)
        kept.append(mail)
    return kept


def _hard_bounced(db: Database, addresses: list[str]) -> set[str]:
    """Of `addresses`, those a relay or a bounce refused for good at least once (pbm.outbox.bounces)."""
    wanted = sorted({address.lower() for address in addresses})
    if not wanted:
        return set()
    return {row[0] for row in db.execute(
        f"SELECT address FROM bounces WHERE address IN ({', '.join('?' * len(wanted))})", wanted)}


def _feedback_id(config: Config, mail: Outgoing) -> str:
    """`subscribed:xiangqi:pbm:example.org`: Gmail's Feedback-ID, whose fields its postmaster tools
    count complaints by (the last one, the sender, is the server's domain)."""
    kind = compose.thread_variant(mail.references, config.server.address) or "server"
    return f"{mail.stream}:{kind}:pbm:{config.server.address.rpartition('@')[2]}"


def _unsubscribe_headers(config: Config, reader: str, generation: int) -> dict[str, str]:
    token = tokens.unsubscribe(config.secret, SUBSCRIBED, reader, generation)
    local, _at, domain = config.server.address.rpartition("@")
    mailto = f"<mailto:{local}+{token}@{domain}?subject=unsubscribe>"
    if not config.web.base_url:
        return {"List-Unsubscribe": mailto}
    return {"List-Unsubscribe": f"<{unsubscribe_url(config.web.base_url, token)}>, {mailto}",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def unsubscribe_url(base_url: str, token: str) -> str:
    """The one-click unsubscribe URI of a token (pbm.web.unsubscribe answers it)."""
    return f"{base_url.rstrip('/')}/u/{token}"


def _tell(db: Database, mail: Outgoing, reader: str, now: datetime) -> Outgoing:
    """`mail` with a first paragraph telling `reader` how to have the subscribed stream again."""
    prefs = accounts.preferences(db, reader)
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        text = compose.render("note.j2", lines=[_(
            "The mail you subscribed to (digests, reminders, end-of-game notices, the games you "
            "observe, tournament news) is off for you: you unsubscribed, or marked one of our mails "
            "as spam. To have it again, send: {command}").format(
            command=f"set {reader} PASSWORD {subscriptions.PREFERENCE}=on")])
    subscriptions.told(db, mail.to, now)
    told_html = mail.html
    if told_html:
        paragraph = f"<p>{html.escape(text.strip())}</p>"
        told_html = _BODY.sub(lambda found: found[0] + paragraph, told_html, count=1)
    return replace(mail, body=f"{text}\n{mail.body}", html=told_html)


_BODY = re.compile(r"<body[^>]*>")


def summary(db: Database, since: datetime | None = None) -> dict[str, str]:
    """Each stream's mail sent `since` then (None: ever) and what came back about it, in words (for
    `pbm outbox` and `pbm doctor`)."""
    counts = subscriptions.counts(db, since)
    words = (("sent", "sent"), ("bounce", "bounced"), ("complaint", "complaints"),
             ("unsubscribe", "unsubscribed"))
    return {stream: ", ".join(f"{word} {counts.get((stream, kind), 0)}" for kind, word in words)
            for stream in STREAMS}
