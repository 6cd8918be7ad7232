"""LMTP: `pbm serve` takes mail from the local MTA on a Unix socket (`[lmtp] socket`), with
one answer per recipient after DATA (RFC 2033), 250 only after the commit, the codes of SMTP.
Spoken with smtplib.LMTP, which reads the first answer after DATA; the others are read with
getreply(), as an LMTP client must."""
from __future__ import annotations

import smtplib
import stat

import pytest
from support.postoffice import PASSWORDS, text
from support.processes import PbmEnv, alive, wait_until, wire
from test_crash import KILLED, assert_each_reply_sent_once

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


@pytest.fixture
def socket_path(pbm_env: PbmEnv):
    path = pbm_env.data_dir / "lmtp.sock"
    pbm_env.configure(lmtp={"socket": str(path)})
    return path


def lmtp_send(path, message, recipients: list[str]) -> list[tuple[int, bytes]]:
    """MAIL, RCPT for each recipient, DATA; every answer after DATA, one per accepted recipient."""
    with smtplib.LMTP(str(path), timeout=30) as client:
        client.ehlo()
        client.mail(message["From"].addresses[0].addr_spec)
        accepted = [r for r in recipients if client.rcpt(r)[0] == 250]
        answers = [client.data(wire(message))]
        answers += [client.getreply() for _ in accepted[1:]]
        return answers


def test_a_game_over_lmtp(pbm_env: PbmEnv, socket_path):
    server = pbm_env.start_server()
    assert stat.S_IMODE(socket_path.stat().st_mode) == 0o660 and socket_path.is_socket()
    for user in ("alice", "bob"):
        message = pbm_env.message(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
        assert lmtp_send(socket_path, message, [pbm_env.address]) == [(250, b"2.0.0 Message accepted (processed)")]
    pbm_env.wait_replies(2)
    lmtp_send(socket_path, pbm_env.message("xiangqi challenge alice bob"), [pbm_env.address])
    pbm_env.wait_replies(2)
    lmtp_send(socket_path, pbm_env.message(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3"),
              [pbm_env.address])
    mails = {m["To"]: m for m in pbm_env.wait_replies(2)}
    answer = pbm_env.message(f"Re: {mails['bob@example.org']['Subject']}", "h10g8\n", sender="bob@example.org",
                             to=mails["bob@example.org"]["Reply-To"])
    assert lmtp_send(socket_path, answer, [mails["bob@example.org"]["Reply-To"]])[0][0] == 250
    mails = {m["To"]: m for m in pbm_env.wait_replies(2)}
    assert "bob played h10g8 (H8+7)" in text(mails["alice@example.org"])
    assert server.stop() == 0


def test_one_answer_per_recipient_and_the_message_recorded_once(pbm_env: PbmEnv, socket_path):
    server = pbm_env.start_server()
    message = pbm_env.message("help")
    answers = lmtp_send(socket_path, message, [pbm_env.address, "pbm+help@pbm.test", "stranger@elsewhere.org"])
    assert [code for code, _ in answers] == [250, 250]       # two accepted recipients, two answers
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]
    assert len(pbm_env.wait_replies(1)) == 1
    with smtplib.LMTP(str(socket_path), timeout=30) as client:
        assert client.ehlo()[0] == 250
        client.mail("alice@example.org")
        assert client.rcpt("someone@elsewhere.org")[0] == 550   # not ours: refused at RCPT
        assert client.docmd("HELO", "x")[0] == 500                # LMTP has LHLO only
    assert server.stop() == 0


def test_killed_between_commit_and_250_answered_once_after_restart(pbm_env: PbmEnv, socket_path):
    message = pbm_env.message("help")
    doomed = pbm_env.start_server(PBM_FAULT="after-commit")
    outbox_process, = doomed.children("pbm-outbox")
    with pytest.raises(smtplib.SMTPServerDisconnected):
        lmtp_send(socket_path, message, [pbm_env.address])
    assert doomed.process.wait(30) == KILLED
    assert wait_until(lambda: not alive(outbox_process))
    assert pbm_env.outbox_files() == []

    server = pbm_env.start_server()                         # replaces the dead server's socket
    assert lmtp_send(socket_path, message, [pbm_env.address]) == [(250, b"2.0.0 Message accepted (duplicate)")]
    pbm_env.wait_replies()
    assert server.stop() == 0
    assert_each_reply_sent_once(pbm_env)
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]
