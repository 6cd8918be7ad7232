"""`pbm poll`: take the server's mail from an IMAP mailbox, for a mail account at a provider.

A message is pending while it is unseen and not deleted in the configured mailbox.  It is fetched
with BODY.PEEK[], so reading it changes nothing; `intake.accept` records and answers it in one
transaction; only after that commit is it flagged \\Seen (and then moved to `done_mailbox`, if one is
configured).  A crash between the commit and the flag leaves it unseen, so the next round fetches it
again and intake, which deduplicates by Message-ID, answers it once.  When intake fails for a while
(the database is locked, the disk is full), the message stays unseen and the round ends: the next one
retries.  When it fails with a bug, the message stays unseen too, and the others go on.

Without --once the poller waits for new mail with IDLE where the server offers it, and wakes at least
every `interval` seconds anyway, so that outbox retries run and a dead connection is noticed.  SIGTERM
and SIGINT end it between two messages, never in the middle of one.
"""
from __future__ import annotations

import logging
import signal
import ssl
import time
from collections.abc import Callable
from types import FrameType

from imapclient import SEEN, IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from pbm import intake
from pbm.config import Config, ConfigError, ImapSection
from pbm.logs import describe_exception
from pbm.model.db import Database
from pbm.model.store import open_db
from pbm.outbox import claims, compose, sending

log = logging.getLogger(__name__)

TIMEOUT = 60.0   # seconds one IMAP command may take before the connection counts as dead


class ImapError(Exception):
    """The IMAP account cannot be used: no connection, TLS failure, login refused, no mailbox."""


def run(config: Config, once: bool = False) -> int:
    """Take pending mail from `[imap] mailbox`: one round with `once`, else until SIGTERM/SIGINT.

    Returns the number of messages recorded.  Raises ConfigError for an unusable [imap] section and
    ImapError when the first connection fails, so that a wrong setting shows at once; later
    connection failures (without `once`) are logged and retried every `interval` seconds.
    """
    compose.environment()           # held in memory, as in `pbm serve`
    imap = config.imap
    if not imap.username:
        raise ConfigError("[imap] username is not set; `pbm poll` needs an IMAP account")
    if imap.ssl and imap.starttls:
        raise ConfigError("[imap] ssl and starttls exclude each other: for STARTTLS set ssl = false")
    db = open_db(config)
    poller = _Poller(db, config, _connect(imap))
    if once:
        try:
            with poller.client:
                return poller.round()
        except (OSError, IMAPClientError) as e:
            raise ImapError(f"IMAP connection to {imap.host}:{imap.port} lost: {_reason(e)}") from e
        finally:
            _send_outbox(db, config)
    with _StopOnSignal() as stop:
        return poller.loop(stop)


class _StopOnSignal:
    """Turns SIGTERM/SIGINT into `requested`; only a wait in `wait()` is cut short by them."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    class _Interrupt(Exception):
        pass

    def __init__(self) -> None:
        self.requested = False
        self._waiting = False

    def __enter__(self) -> _StopOnSignal:
        self._previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        log.info("%s received, stopping", signal.Signals(signum).name)
        self.requested = True
        if self._waiting:
            self._waiting = False       # a second signal must not interrupt the clean-up
            raise self._Interrupt

    def wait(self, sleep: Callable[[float], object], seconds: float) -> None:
        """`sleep(seconds)`, unless a stop was requested before or during it."""
        try:
            self._waiting = True
            if not self.requested:
                sleep(seconds)
        except self._Interrupt:
            pass
        finally:
            self._waiting = False


def _connect(imap: ImapSection) -> IMAPClient:
    """A logged-in client with the mailbox selected (and done_mailbox created if missing)."""
    # imapclient logs every line it reads at DEBUG level, and player mail carries passwords.
    logging.getLogger("imapclient.imaplib").setLevel(logging.WARNING)
    context = ssl.create_default_context(cafile=imap.ca_file or None)
    where = f"{imap.host}:{imap.port}"
    try:
        client = IMAPClient(imap.host, imap.port, ssl=imap.ssl, ssl_context=context, timeout=TIMEOUT)
    except (OSError, IMAPClientError) as e:
        raise ImapError(f"cannot connect to IMAP server {where}: {_reason(e)}") from e
    try:
        if imap.starttls:
            client.starttls(context)
        client.login(imap.username, imap.password)
        if imap.done_mailbox and not client.folder_exists(imap.done_mailbox):
            client.create_folder(imap.done_mailbox)
        client.select_folder(imap.mailbox)
    except LoginError as e:
        client.shutdown()
        raise ImapError(f"IMAP server {where} refused the login of {imap.username!r}: {_reason(e)}") from e
    except (OSError, IMAPClientError) as e:
        client.shutdown()
        raise ImapError(f"cannot use mailbox {imap.mailbox!r} on IMAP server {where}: {_reason(e)}") from e
    return client


def _reason(error: Exception) -> str:
    """The server's words (imaplib hands them over as a bytes repr) or the socket error."""
    text = str(error)
    if text.startswith(("b'", 'b"')):
        text = text[2:-1]
    return text or type(error).__name__


def _send_outbox(db: Database, config: Config) -> None:
    try:
        sending.send_due(db, config)
    except Exception as e:      # the replies are safe in the outbox; the next round sends them
        log.warning("replies stay queued: %s", describe_exception(e))


class _Poller:
    """One IMAP connection at a time, and the rounds over its mailbox."""

    def __init__(self, db: Database, config: Config, client: IMAPClient) -> None:
        self.db = db
        self.config = config
        self.imap = config.imap
        self.client = client
        self.broken: set[int] = set()   # UIDs intake failed on with an error that is not transient

    def round(self, stop: _StopOnSignal | None = None) -> int:
        """Accept every pending message, oldest first; return how many were recorded."""
        processed = 0
        pending = [uid for uid in self.client.search(["UNSEEN", "UNDELETED"]) if uid not in self.broken]
        sizes = self.client.fetch(pending, ["RFC822.SIZE"]) if pending else {}
        for uid in pending:
            if stop is not None and stop.requested:
                break
            size = sizes.get(uid, {}).get(b"RFC822.SIZE")
            raw = None if size is None else self._fetch(uid, size)
            if raw is None:
                continue                # expunged by someone else meanwhile
            try:
                result = intake.accept(self.db, self.config, raw, size=size, claimant=claims.claimant())
            except intake.TransientError as e:
                # What failed (a locked or full database) would fail the rest of the round too.
                log.warning("IMAP message %s left unseen for the next round: %s", uid, e)
                break
            except Exception as e:
                # A bug: keep the message unseen for the operator and a fixed pbm, and go on.
                log.error("IMAP message %s left unseen, not retried until pbm poll restarts:\n%s",
                          uid, describe_exception(e))
                self.broken.add(uid)
                continue
            log.info("IMAP message %s: inbound %s %s", uid, result.inbound_id, result.status)
            self._done(uid)
            processed += 1
        return processed

    def _fetch(self, uid: int, size: int) -> bytes | None:
        """The message, without marking it read; only its header when it is over the size limit
        (intake answers that it was too large without needing the rest)."""
        part = "BODY[]" if size <= self.config.smtp.max_message_size else "BODY[HEADER]"
        fetched = self.client.fetch([uid], [part.replace("BODY", "BODY.PEEK")]).get(uid)
        return None if fetched is None else fetched[part.encode()]

    def _done(self, uid: int) -> None:
        """Flag a recorded message \\Seen, then move it to done_mailbox if one is configured."""
        self.client.add_flags([uid], [SEEN], silent=True)
        done = self.imap.done_mailbox
        if not done:
            return
        if self.client.has_capability("MOVE"):
            self.client.move([uid], done)
            return
        self.client.copy([uid], done)
        self.client.delete_messages([uid], silent=True)
        if self.client.has_capability("UIDPLUS"):
            self.client.uid_expunge([uid])
        else:
            self.client.expunge()       # all \Deleted mail: nothing narrower exists without UIDPLUS

    def loop(self, stop: _StopOnSignal) -> int:
        """Rounds until a stop is requested; a lost connection is reopened after `interval`."""
        processed = 0
        while not stop.requested:
            try:
                with self.client:
                    while not stop.requested:
                        new = self.round(stop)
                        processed += new
                        _send_outbox(self.db, self.config)
                        if not new:
                            # Only after a round that found nothing: mail that came during a
                            # round was announced in answers to its commands, not to IDLE.
                            self._wait_for_mail(stop)
            except (OSError, IMAPClientError) as e:
                log.warning("IMAP connection to %s:%s lost: %s", self.imap.host, self.imap.port,
                            _reason(e))
            self._reconnect(stop)
        return processed

    def _wait_for_mail(self, stop: _StopOnSignal) -> None:
        """Return when new mail may have come (IDLE), or after `interval` seconds at most."""
        if not self.client.has_capability("IDLE"):
            stop.wait(time.sleep, self.imap.interval)
            return
        self.client.idle()
        try:
            stop.wait(self.client.idle_check, self.imap.interval)
        finally:
            self.client.idle_done()

    def _reconnect(self, stop: _StopOnSignal) -> None:
        while not stop.requested:
            stop.wait(time.sleep, self.imap.interval)
            if stop.requested:
                return
            try:
                self.client = _connect(self.imap)
                return
            except ImapError as e:
                log.warning("%s; next try in %g s", e, self.imap.interval)
