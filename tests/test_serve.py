"""`pbm serve`: smtplib speaking SMTP to a real server subprocess on a loopback port."""
from __future__ import annotations

import smtplib
import sqlite3
import threading

import pytest
from support.postoffice import plain
from support.processes import PbmEnv, PbmServer, alive, wait_until, wire

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def test_a_command_over_smtp_is_answered(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    msg = pbm_env.message("help")
    assert pbm_server.send(msg) == {}

    replies = pbm_env.wait_replies()
    assert all(r["To"] == "alice@example.org" for r in replies)
    assert replies[0]["In-Reply-To"] == msg["Message-ID"]
    [(status, envelope_from, envelope_to)] = pbm_env.query(
        "SELECT status, envelope_from, envelope_to FROM inbound")
    assert (status, envelope_from, envelope_to) == ("processed", "alice@example.org", "pbm@pbm.test")


def test_the_answer_comes_after_the_commit(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    with pbm_server.smtp() as smtp:
        smtp.ehlo()
        smtp.mail("alice@example.org")
        smtp.rcpt(pbm_env.address)
        code, text = smtp.data(wire(pbm_env.message("help")))
        # Read by a separate connection at the moment the 250 arrives: already committed.
        recorded = pbm_env.query("SELECT status FROM inbound")
    assert code == 250 and b"processed" in text
    assert recorded == [("processed",)]


def test_recipients_that_are_not_the_server_get_550(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    with pbm_server.smtp() as smtp:
        smtp.ehlo()
        smtp.mail("alice@example.org")
        assert smtp.rcpt("bob@example.org")[0] == 550
        assert smtp.rcpt("pbm@other.test")[0] == 550
        assert smtp.rcpt("alice@pbm.test")[0] == 550
        assert smtp.rcpt("PBM@pbm.TEST")[0] == 250
        assert smtp.rcpt("pbm+xiangqi-101-alice-3k9f2q@pbm.test")[0] == 250
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        pbm_server.send(pbm_env.message("help"), rcpt_tos=["bob@example.org"])


def test_same_message_twice_is_answered_once(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    msg = pbm_env.message("help")
    pbm_server.send(msg)
    first = pbm_env.wait_replies()
    pbm_server.send(msg)
    pbm_server.send(pbm_env.message("help"))     # a later, different message is answered ...
    second = pbm_env.wait_replies()
    assert len(second) == len(first)              # ... and the repeated one was not
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(2,)]


def test_null_sender_is_recorded_not_answered(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    bounce = pbm_env.message("Undelivered Mail Returned to Sender", sender="mailer@example.org")
    pbm_server.send(bounce, mail_from="<>")
    pbm_server.send(pbm_env.message("help"))
    pbm_env.wait_replies()
    assert pbm_env.query("SELECT status, detail, envelope_from FROM inbound ORDER BY id") == [
        ("automatic", "null return path", ""), ("processed", None, "alice@example.org")]
    assert all(r["To"] == "alice@example.org" for r in pbm_env.replies())


def test_over_the_size_limit_552(pbm_env: PbmEnv) -> None:
    pbm_env.configure(smtp={"max_message_size": 65536})
    server = pbm_env.start_server()
    big = wire(pbm_env.message("help", "x" * 70000))

    with pytest.raises(smtplib.SMTPSenderRefused) as refused:      # announced with SIZE=
        server.send(big)
    assert refused.value.smtp_code == 552
    with server.smtp() as smtp:                                     # or not announced
        smtp.ehlo()
        smtp.mail("alice@example.org")
        smtp.rcpt(pbm_env.address)
        assert smtp.data(big)[0] == 552
        assert smtp.noop()[0] == 250                                # the session goes on
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(0,)]


def test_ten_megabyte_attachment_over_smtp(pbm_env: PbmEnv, pbm_server: PbmServer) -> None:
    msg = pbm_env.message("help", "photo attached")
    msg.add_attachment(bytes(range(256)) * (10 * 4096), maintype="image", subtype="jpeg",
                       filename="board.jpg")
    pbm_server.send(msg)
    assert pbm_env.wait_replies()


@pytest.mark.parametrize("processes", [0, 1])   # SMTP in the main process, or in a child
def test_database_locked_451_then_retry(pbm_env: PbmEnv, processes: int) -> None:
    pbm_env.configure(smtp={"processes": processes}, storage={"busy_timeout": 0.2})
    server = pbm_env.start_server()
    msg = pbm_env.message("help")
    lock = sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            server.send(msg)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert refused.value.smtp_code == 451

    server.send(msg)                    # the sending MTA tries again
    assert pbm_env.wait_replies()


def test_loop_answers_while_a_message_waits_for_the_database(pbm_env: PbmEnv) -> None:
    pbm_env.configure(storage={"busy_timeout": 60.0})
    server = pbm_env.start_server()
    lock = sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    results: list = []
    sender = threading.Thread(target=lambda: results.append(server.send(pbm_env.message("help"))))
    sender.start()
    try:
        with server.smtp() as smtp:     # another client is served meanwhile
            assert smtp.ehlo()[0] == 250
            assert smtp.noop()[0] == 250
        assert sender.is_alive() and results == []
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    sender.join(60)
    assert results == [{}]
    assert pbm_env.wait_replies()


def test_the_server_runs_the_game_timers(pbm_env: PbmEnv) -> None:
    """A player who lets the time limit (here a second and a half) pass is reminded, then loses on
    time, without any message coming in."""
    pbm_env.configure(server={"timer_interval": 0.2, "min_timeout_days": 0.0})
    server = pbm_env.start_server()
    for user, password in (("alice", "Sw0rdfish"), ("bob", "Hunter22")):
        server.send(pbm_env.message(f"signup {user} {password}", sender=f"{user}@example.org"))
    server.send(pbm_env.message("xiangqi challenge --timeout=0.00002 alice bob"))
    pbm_env.wait_replies(4)             # two welcomes, two challenge mails
    assert wait_until(lambda: pbm_env.query("SELECT status, winner FROM games") == [("finished", "bob")])
    replies = pbm_env.wait_replies(3)   # the reminder to alice, the result to both
    assert sum("alice has lost on time" in plain(r) for r in replies) == 2


def serving(pbm_env: PbmEnv, processes: int) -> PbmServer:
    """`pbm serve` speaking SMTP in its main process (0), or through SMTP processes."""
    pbm_env.configure(smtp={"processes": processes})
    return pbm_env.start_server()


@pytest.mark.parametrize("processes", [0, 2])
def test_sigterm_stops_cleanly(pbm_env: PbmEnv, processes: int) -> None:
    served = serving(pbm_env, processes)
    served.send(pbm_env.message("help"))
    pbm_env.wait_replies()
    children = served.children("pbm-", processes + 1)     # the SMTP processes and the outbox process
    assert served.stop() == 0
    assert "stopped" in served.log()
    assert not any(alive(pid) for pid in children)
    with pytest.raises(OSError):
        served.smtp()


@pytest.mark.parametrize("processes", [0, 2])
def test_concurrent_messages_each_answered_once(pbm_env: PbmEnv, processes: int) -> None:
    """Messages arriving together are committed together (group commit): each still recorded once,
    duplicates among them included."""
    served = serving(pbm_env, processes)
    repeated = pbm_env.message("help")
    messages = [repeated] * 4 + [pbm_env.message("help", sender=f"p{i}@example.org") for i in range(16)]
    answers: list = []
    threads = [threading.Thread(target=lambda m=m: answers.append(served.send(m))) for m in messages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert answers == [{}] * len(messages)
    assert pbm_env.query("SELECT count(*), count(DISTINCT dedup_key) FROM inbound") == [(17, 17)]
    replies = pbm_env.wait_replies(17)
    assert sorted(str(r["To"]) for r in replies) == sorted(
        ["alice@example.org"] + [f"p{i}@example.org" for i in range(16)])
