"""The outbox against a real SMTP relay: an aiosmtpd server in the test, spoken to by real `pbm`
subprocesses over loopback, with STARTTLS and AUTH."""
from __future__ import annotations

import ssl
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from conftest import PbmEnv, free_port

from pbm.config import load_config
from pbm.mail.messages import Outgoing
from pbm.model.db import open_db, parse_timestamp, transaction
from pbm.outbox import queue, sending

RELAY_USER, RELAY_PASSWORD = "pbm-relay", "relay-Pa55word"


class Relay:
    """A real SMTP server standing in for the smarthost.  `script` holds the answers to successive
    DATA commands (None: accept); mail to the `refuse` addresses is refused for good."""

    def __init__(self, port: int, tls: ssl.SSLContext | None = None, script: list | None = None,
                 smtputf8: bool = False, refuse: frozenset[str] = frozenset()):
        self.script = list(script or [])
        self.refuse = refuse            # recipients answered 550 (unknown user), always
        self.attempts = 0
        self.accepted: list[tuple[str, list[str], bytes]] = []
        self.logins: list[bytes] = []
        options = dict(tls_context=tls, require_starttls=True, auth_required=True,
                       authenticator=self._authenticate) if tls else {}
        self.controller = Controller(self, hostname="127.0.0.1", port=port, enable_SMTPUTF8=smtputf8,
                                     **options)
        self.controller.start()

    def _authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        self.logins.append(auth_data.login)
        ok = (auth_data.login, auth_data.password) == (RELAY_USER.encode(), RELAY_PASSWORD.encode())
        return AuthResult(success=ok, handled=False)    # handled=False: aiosmtpd answers 535

    async def handle_DATA(self, server, session, envelope) -> str:
        self.attempts += 1
        answer = self.script.pop(0) if self.script else None
        if self.refuse & set(envelope.rcpt_tos):
            answer = "550 5.1.1 No such user"
        if answer:
            return answer
        self.accepted.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 2.0.0 queued"

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture(scope="session")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost, made by the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.fixture
def relay_env(pbm_env: PbmEnv):
    """pbm_env sending through a relay on a free port (started by the test with `start`)."""
    port = free_port()
    pbm_env.configure(outbound={"mode": "smtp", "host": "127.0.0.1", "port": port, "timeout": 10.0,
                                "retry_base": 0.0})
    relays: list[Relay] = []

    def start(**kwargs) -> Relay:
        relays.append(Relay(port, **kwargs))
        return relays[-1]

    yield pbm_env, start
    for relay in relays:
        relay.stop()


def outbox_rows(env: PbmEnv) -> list[tuple]:
    return env.query("SELECT status, attempts, last_error FROM outbox ORDER BY id")


def test_starttls_and_auth(relay_env, certificate) -> None:
    env, start = relay_env
    cert, key = certificate
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    relay = start(tls=tls)
    env.configure(outbound={"host": "localhost", "starttls": True, "ca_file": str(cert),
                            "username": RELAY_USER, "password": RELAY_PASSWORD})

    result = env.deliver(env.message("help"))

    assert result.returncode == 0
    [(status, attempts, error)] = outbox_rows(env)[:1]
    assert (status, attempts, error) == ("sent", 1, None)
    assert relay.logins == [RELAY_USER.encode()]
    mail_from, rcpt_tos, data = relay.accepted[0]
    assert (mail_from, rcpt_tos) == (env.address, ["alice@example.org"])
    [(raw,)] = env.query("SELECT raw FROM outbox_bodies ORDER BY id LIMIT 1")
    assert data == raw                  # the stored bytes, exactly
    assert RELAY_PASSWORD.encode() not in result.stderr


def test_wrong_relay_password_keeps_mail_queued(relay_env, certificate) -> None:
    env, start = relay_env
    cert, key = certificate
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    relay = start(tls=tls)
    env.configure(outbound={"host": "localhost", "starttls": True, "ca_file": str(cert),
                            "username": RELAY_USER, "password": "wrong-Pa55"})

    result = env.deliver(env.message("help"))

    assert result.returncode == 0
    status, attempts, error = outbox_rows(env)[0]
    assert (status, attempts) == ("queued", 1) and error.startswith("relay localhost")
    assert "535" in error and b"wrong-Pa55" not in result.stderr
    assert relay.accepted == []


def test_temporary_failure_then_success(relay_env) -> None:
    env, start = relay_env
    relay = start(script=["451 4.3.0 Greylisted, try again"])

    env.mail("help")

    status, attempts, error = outbox_rows(env)[0]
    assert (status, attempts, error) == ("queued", 1, "451 4.3.0 Greylisted, try again")
    listing = env.run("outbox").stdout.decode()
    assert "queued" in listing and "Greylisted" in listing

    flush = env.run("outbox", "flush")

    assert flush.returncode == 0, flush.stderr
    assert outbox_rows(env)[0] == ("sent", 2, None)
    assert relay.attempts == 2 + len(outbox_rows(env)) - 1
    [(message_id,)] = env.query("SELECT message_id FROM outbox ORDER BY id LIMIT 1")
    assert message_id.encode() in relay.accepted[0][2]


def test_permanent_failure_is_not_retried(relay_env) -> None:
    env, start = relay_env
    relay = start(script=["550 5.1.1 No such user"])

    env.mail("help")
    flush = env.run("outbox", "flush")

    status, attempts, error = outbox_rows(env)[0]
    assert (status, attempts, error) == ("failed", 1, "550 5.1.1 No such user")
    assert relay.attempts == len(outbox_rows(env))      # the failed one was not sent again
    assert "failed" in env.run("outbox", "--status", "failed").stdout.decode()
    assert flush.returncode == 0


def test_relay_down_then_up(relay_env) -> None:
    env, start = relay_env

    env.mail("help")                    # nothing listens on the relay's port

    status, attempts, error = outbox_rows(env)[0]
    assert (status, attempts) == ("queued", 1) and "ConnectionRefusedError" in error
    assert env.run("outbox", "flush").returncode == 75     # still queued: tell the operator

    relay = start()
    assert env.run("outbox", "flush").returncode == 0
    assert {row[0] for row in outbox_rows(env)} == {"sent"}
    assert len(relay.accepted) == len(outbox_rows(env))


def _queue(env: PbmEnv, count: int) -> None:
    """Queue replies straight into the outbox, as a command would."""
    config = load_config(env.config_path)
    db = open_db(config)
    now = datetime.now(timezone.utc)
    with transaction(db):
        queue.queue(db, config, [Outgoing(to=f"p{i}@example.org", subject=f"Xiangqi Board {i}",
                                           body="board\n") for i in range(count)], now)
    db.close()


def test_backoff_and_giving_up(relay_env) -> None:
    env, start = relay_env
    env.configure(outbound={"retry_base": 600.0, "retry_max": 900.0})
    relay = start(script=["421 4.7.0 Busy"] * 3)
    _queue(env, 1)
    config = load_config(env.config_path)
    db = open_db(config)

    def due() -> timedelta:
        [(queued, next_attempt)] = env.query("SELECT queued_at, next_attempt_at FROM outbox")
        return parse_timestamp(next_attempt) - parse_timestamp(queued)

    assert sending.send_due(db, config).retrying == 1
    assert due() >= timedelta(seconds=600)
    assert sending.send_due(db, config).retrying == 0          # not due yet: not tried
    assert relay.attempts == 1
    assert sending.send_due(db, config, force=True).retrying == 1
    assert due() >= timedelta(seconds=900)                    # doubled, capped at retry_max
    env.configure(outbound={"give_up_after": 0.0})
    assert sending.send_due(db, load_config(env.config_path), force=True).failed == 1
    [(status, error)] = env.query("SELECT status, last_error FROM outbox")
    assert status == "failed" and error == "gave up after 3 attempts: 421 4.7.0 Busy"


def test_two_senders_never_send_a_row_twice(relay_env) -> None:
    env, start = relay_env
    relay = start()
    _queue(env, 300)

    flushes = [env.popen("outbox", "flush") for _ in range(3)]
    for process in flushes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err

    recipients = [rcpt for _, [rcpt], _ in relay.accepted]
    assert sorted(recipients) == sorted(f"p{i}@example.org" for i in range(300))
    assert env.query("SELECT status, count(*) FROM outbox GROUP BY status") == [("sent", 300)]
