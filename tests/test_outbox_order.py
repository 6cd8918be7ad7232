"""After a relay outage each recipient still gets their replies in the order they were queued; a
reply refused for good tells someone; an international address gets a valid To.  A real
aiosmtpd relay in the test process, real SQLite, real `pbm deliver`."""
from __future__ import annotations

import re

from datetime import datetime, timezone
from email import message_from_bytes, policy

from support.relay import Relay

from pbm.config import load_config
from pbm.mail.messages import Outgoing
from pbm.model.db import transaction
from pbm.model.store import open_db
from pbm.outbox import queue, sending

RECIPIENTS = [f"p{i}@example.org" for i in range(4)]


def queue_interleaved(env, count: int) -> None:
    config = load_config(env.config_path)
    db = open_db(config)
    with transaction(db):
        queue.queue(db, config, [Outgoing(to=RECIPIENTS[n % len(RECIPIENTS)], subject=f"reply {n}",
                                           body="board\n") for n in range(count)],
                     datetime.now(timezone.utc))
    db.close()


def received(relay: Relay) -> dict[str, list[int]]:
    order: dict[str, list[int]] = {}
    for _, rcpts, data in relay.accepted:
        number = int(message_from_bytes(data, policy=policy.default)["Subject"].split()[-1])
        order.setdefault(rcpts[0], []).append(number)
    return order


def test_after_an_outage_every_recipient_gets_their_replies_once_and_in_order(relay_env) -> None:
    env, start = relay_env
    env.configure(outbound={"retry_base": 600.0})
    relay = start(script=[None, "451 4.3.0 Try later", None, None, "451 4.3.0 Try later",
                          "421 4.7.0 Closing", None, "451 4.3.0 Try later"])
    queue_interleaved(env, 40)
    config = load_config(env.config_path)
    db = open_db(config)
    first = sending.send_due(db, config)
    assert first.retrying == 4 and first.sent > 0
    waiting = env.query("SELECT count(*) FROM outbox WHERE status = 'queued'")[0][0]
    assert waiting > first.retrying        # the later replies of those recipients wait for them
    for got in received(relay).values():
        assert got == sorted(got)
    assert sending.send_due(db, config).sent == 0             # nothing may overtake a deferred reply
    while env.query("SELECT count(*) FROM outbox WHERE status = 'queued'")[0][0]:
        sending.send_due(db, config, force=True)             # the relay is back
    order = received(relay)
    assert sum(map(len, order.values())) == 40              # each once
    for recipient, got in order.items():
        assert got == sorted(got) == [n for n in range(40) if RECIPIENTS[n % 4] == recipient]


def test_a_permanent_refusal_is_told_and_the_third_makes_the_address_bouncing(relay_env) -> None:
    env, start = relay_env
    env.configure(admins={"users": ["root"], "notify": ["ops@example.org"]})
    relay = start(refuse=frozenset({"gone@example.org"}))
    # game mail to gone@ (the signup's own address); alice@ confirms by answering its confirmation
    env.mail("signup alice Sw0rdfish gone@example.org alice@example.org", sender="gone@example.org")
    # the welcome to gone@ is the 1st refusal; alice@ gets only its confirmation
    [ask] = [m for _, r, m in relay.accepted if r == ["alice@example.org"]]
    token = re.search(rb"Reply-To: (pbm\+confirm-[^\s]+)", ask)[1].decode()
    env.mail("Re: confirm", "yes", sender="alice@example.org", to=token)
    env.mail("signup bob Hunter22", sender="bob@example.org")
    env.mail("xiangqi challenge alice bob", sender="bob@example.org")       # 2nd refusal
    env.run("outbox", "flush")          # the notices (`pbm deliver` sends only its own replies)
    notices = [m for _, rcpts, m in relay.accepted if b"for good:" in m]
    assert [rcpts for rcpts, m in ((r, m) for _, r, m in relay.accepted) if b"for good:" in m] \
        == [["ops@example.org"], ["ops@example.org"], ["alice@example.org"]]
    assert b"change address alice PASSWORD alice@example.org" in notices[2]
    for user, move in (("alice", "h3e3"), ("bob", "h10g8"), ("alice", "h1g3"), ("bob", "a10a9")):
        env.mail(f"xiangqi move 101 {user} {'Sw0rdfish' if user == 'alice' else 'Hunter22'} {move}",
                 sender=f"{user}@example.org")                                # the 3rd
    env.run("outbox", "flush")
    assert env.query("SELECT failures FROM bounces") == [(3,)]
    assert b"no longer sent" in [m for _, r, m in relay.accepted if r == ["ops@example.org"]][-1]
    env.mail("xiangqi status 101", sender="bob@example.org")
    [status] = [m for _, r, m in relay.accepted
                if b"Summary of Xiangqi Board 101" in m and r == ["bob@example.org"]][-1:]
    assert b"Mail to alice (gone@example.org) was refused for good: 550 5.1.1 No such user" \
        in b" ".join(status.split())
    env.mail("xiangqi move 101 alice Sw0rdfish b1c3")
    env.mail("xiangqi move 101 bob Hunter22 b10c8", sender="bob@example.org")
    skipped = env.query("SELECT status, last_error FROM outbox WHERE recipient = 'gone@example.org' "
                        "ORDER BY id DESC LIMIT 1")
    assert skipped == [("failed", "not sent: mail to this address failed for good 3 times")]
    assert env.query("SELECT failures FROM bounces") == [(3,)]                # not tried again


def test_an_international_address_is_answered_with_smtputf8_or_refused_cleanly(relay_env) -> None:
    env, start = relay_env
    relay = start(smtputf8=True)
    env.deliver("From: Jörg <jörg@exämple.org>\r\nTo: pbm@pbm.test\r\nSubject: help\r\n"
                "Message-ID: <intl-1@example.org>\r\n\r\nhi\r\n".encode())
    [(mail_from, rcpts, data)] = relay.accepted
    assert rcpts == ["jörg@xn--exmple-cua.org"]
    assert "To: jörg@xn--exmple-cua.org".encode() in data
    relay.stop()
    relay = start()                             # a relay without SMTPUTF8
    result = env.deliver("From: jörg@example.org\r\nTo: pbm@pbm.test\r\nSubject: help\r\n"
                         "Message-ID: <intl-2@example.org>\r\n\r\nhi\r\n".encode())
    assert result.returncode == 0 and relay.accepted == []
    [(status, error)] = env.query("SELECT status, last_error FROM outbox ORDER BY id DESC LIMIT 1")
    assert status == "failed" and "does not offer SMTPUTF8" in error
