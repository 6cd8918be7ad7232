"""Crashes (a real SIGKILL, see pbm/faults.py) between commit and sending, and while sending: after
the restart every reply is sent exactly once."""
from __future__ import annotations

import signal
import smtplib
from email import message_from_bytes, policy

import pytest
from support.processes import EX_SOFTWARE, PbmEnv, alive, wait_until

KILLED = -signal.SIGKILL

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def assert_each_reply_sent_once(env: PbmEnv) -> None:
    rows = env.query("SELECT message_id, status FROM outbox")
    assert rows and {status for _, status in rows} == {"sent"}
    in_maildir = [message_from_bytes(path.read_bytes(), policy=policy.default)["Message-ID"]
                  for path in env.outbox_files()]
    assert sorted(in_maildir) == sorted(message_id for message_id, _ in rows)


def test_deliver_killed_between_commit_and_sending(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")

    assert pbm_env.deliver(msg, PBM_FAULT="after-commit").returncode == KILLED
    assert pbm_env.outbox_files() == []
    # claimed as they were queued, by the process now dead: the next one takes them over
    assert {s for (s,) in pbm_env.query("SELECT status FROM outbox")} == {"sending"}

    assert pbm_env.deliver(msg).returncode == 0        # the MTA delivers again: no exit 0 yet
    assert_each_reply_sent_once(pbm_env)
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]


def test_deliver_killed_while_sending(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")

    assert pbm_env.deliver(msg, PBM_FAULT="while-sending").returncode == KILLED
    [written] = pbm_env.outbox_files()          # handed over, but not yet marked sent
    assert pbm_env.query("SELECT status FROM outbox ORDER BY id LIMIT 1") == [("sending",)]

    assert pbm_env.deliver(msg).returncode == 0
    assert_each_reply_sent_once(pbm_env)


def test_killed_while_sending_after_the_reader_took_the_mail(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")
    assert pbm_env.deliver(msg, PBM_FAULT="while-sending").returncode == KILLED
    [written] = pbm_env.outbox_files()
    written.rename(pbm_env.maildir / "cur" / f"{written.name}:2,S")   # a mail client read it

    assert pbm_env.run("outbox", "flush").returncode == 0
    assert_each_reply_sent_once(pbm_env)


def test_serve_killed_between_commit_and_250(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")
    doomed = pbm_env.start_server(PBM_FAULT="after-commit")
    outbox_process, = doomed.children("pbm-outbox")
    with pytest.raises(smtplib.SMTPServerDisconnected):     # died before answering
        doomed.send(msg)
    assert doomed.process.wait(30) == KILLED
    assert wait_until(lambda: not alive(outbox_process))    # it stops without its main process
    assert pbm_env.outbox_files() == []

    server = pbm_env.start_server()
    assert server.send(msg) == {}       # the sender had no 250, so it tries again
    pbm_env.wait_replies()
    assert server.stop() == 0
    assert_each_reply_sent_once(pbm_env)
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]


def test_serve_outbox_process_killed_while_sending(pbm_env: PbmEnv) -> None:
    """Killed with the replies handed over but not marked sent: the server stops for its supervisor
    to start it afresh, and the new one takes over the dead process's claim."""
    msg = pbm_env.message("help")
    doomed = pbm_env.start_server(PBM_FAULT="while-sending")
    assert doomed.send(msg) == {}       # answered at the commit, before any reply is sent
    assert doomed.process.wait(30) == EX_SOFTWARE
    assert pbm_env.outbox_files()
    assert pbm_env.query("SELECT DISTINCT status FROM outbox") == [("sending",)]

    server = pbm_env.start_server()
    server.send(msg)
    server.send(pbm_env.message("help"))
    pbm_env.wait_replies(2)
    assert server.stop() == 0
    assert_each_reply_sent_once(pbm_env)


def test_serve_drawing_process_killed_while_drawing(pbm_env: PbmEnv) -> None:
    """The outbox draws each batch's pictures in a pool of processes; one killed while drawing
    costs nothing: every reply is sent once, with its real picture (drawn by the outbox process
    itself), and the server goes on."""
    server = pbm_env.start_server(PBM_FAULT="while-drawing")
    server.send(pbm_env.message("signup alice Sw0rdfish"))
    server.send(pbm_env.message("signup bob Hunter22", sender="bob@example.org"))
    server.send(pbm_env.message("xiangqi challenge alice bob"))
    server.send(pbm_env.message("xiangqi move 101 alice Sw0rdfish h3e3"))
    boards = [mail for mail in pbm_env.wait_replies(6) if "Board 101" in mail["Subject"]]
    assert server.process.poll() is None
    assert server.stop() == 0
    assert_each_reply_sent_once(pbm_env)
    assert len(boards) == 4
    for mail in boards:
        [picture] = [part for part in mail.walk() if part.get_content_type() == "image/png"]
        assert len(picture.get_content()) > 1000       # a board, not the blank stand-in
    assert "a drawing process died" in server.log_path.read_text()
