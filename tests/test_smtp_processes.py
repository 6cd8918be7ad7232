"""`pbm serve` with `[smtp] processes`: child processes speak SMTP and pass each message to the main
process, which still answers 250 only after the commit (smtplib to a real server, real processes)."""
from __future__ import annotations

import os
import signal
import smtplib

import pytest
from support.postoffice import plain
from support.processes import EX_SOFTWARE, PbmEnv, PbmServer, alive, wait_until, wire

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


@pytest.fixture
def served(pbm_env: PbmEnv) -> PbmServer:
    pbm_env.configure(smtp={"processes": 2})
    return pbm_env.start_server()


def test_a_command_is_answered_through_an_smtp_process(pbm_env: PbmEnv, served: PbmServer) -> None:
    assert len(served.children("pbm-smtp", 2)) == 2
    msg = pbm_env.message("help")
    with served.smtp() as smtp:
        smtp.ehlo()
        smtp.mail("alice@example.org")
        assert smtp.rcpt("nobody@elsewhere.test")[0] == 550
        smtp.rcpt(pbm_env.address)
        code, text = smtp.data(wire(msg))
    assert (code, text) == (250, b"2.0.0 Message accepted (processed)")
    [(status, envelope_from)] = pbm_env.query("SELECT status, envelope_from FROM inbound")
    assert (status, envelope_from) == ("processed", "alice@example.org")     # committed before the 250
    assert pbm_env.wait_replies()[0]["In-Reply-To"] == msg["Message-ID"]


def test_games_are_played_through_smtp_processes(pbm_env: PbmEnv, served: PbmServer) -> None:
    """Passwords are checked in the SMTP process; the main process takes its word for them."""
    for user, password in (("alice", "Sw0rdfish"), ("bob", "Hunter22")):
        served.send(pbm_env.message(f"signup {user} {password}", sender=f"{user}@example.org"))
    served.send(pbm_env.message("xiangqi challenge alice bob"))
    served.send(pbm_env.message("xiangqi move 101 alice Sw0rdfish h3e3"))
    served.send(pbm_env.message("xiangqi move 101 bob WRONG-pw h8e8", sender="bob@example.org"))
    replies = pbm_env.wait_replies(7)   # 2 welcomes, 2 challenge mails, 2 board mails, 1 error
    assert pbm_env.query("SELECT move FROM moves") == [("h3e3",)]
    assert any("Invalid password for bob" in plain(r) for r in replies)
    assert "WRONG-pw" not in served.log() and "Sw0rdfish" not in served.log()


def test_a_dead_smtp_process_stops_the_server(pbm_env: PbmEnv, served: PbmServer) -> None:
    first, second = served.children("pbm-smtp", 2)
    os.kill(first, signal.SIGKILL)
    assert served.process.wait(60) == EX_SOFTWARE      # for the supervisor to start it afresh
    assert "process pbm-smtp-" in served.log() and "died" in served.log()
    assert wait_until(lambda: not alive(second))


def test_an_smtp_process_answers_451_when_the_main_process_dies(pbm_env: PbmEnv) -> None:
    """Killed between the commit and the answer: the client gets 451 and sends again; the message
    is recorded and answered once."""
    pbm_env.configure(smtp={"processes": 1})
    doomed = pbm_env.start_server(PBM_FAULT="after-commit")
    smtp_process, = doomed.children("pbm-smtp")
    msg = pbm_env.message("help")
    with pytest.raises(smtplib.SMTPDataError) as refused:
        doomed.send(msg)
    assert refused.value.smtp_code == 451
    assert wait_until(lambda: not alive(smtp_process))     # it stops without its main process

    server = pbm_env.start_server()
    assert server.send(msg) == {}
    assert len(pbm_env.wait_replies()) == 1
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]
