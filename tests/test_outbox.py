"""The outbox against a real SMTP relay: an aiosmtpd server in the test, spoken to by real `pbm`
subprocesses over loopback, with STARTTLS and AUTH."""
from __future__ import annotations

import ssl
from datetime import datetime, timedelta, timezone

from support.processes import PbmEnv
from support.relay import RELAY_PASSWORD, RELAY_USER

from pbm.config import load_config
from pbm.mail.messages import Outgoing
from pbm.model.db import parse_timestamp, transaction
from pbm.model.store import open_db
from pbm.outbox import queue, sending


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
    # the envelope sender of the answer's stream (pbm.outbox.streams)
    assert (mail_from, rcpt_tos) == (env.address.replace("@", "+transactional@"), ["alice@example.org"])
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
