"""`pbm deliver` hands its message to a running `pbm serve` over `[lmtp] socket` (pbm.runners.handover) and
exits with the server's verdict; without a server it delivers in-process, and a message is never
applied twice, even when the server dies between its commit and its answer."""
from __future__ import annotations

import socket
import sqlite3

import pytest
from support.postoffice import PASSWORDS, by_recipient, text
from support.processes import PbmEnv
from test_crash import KILLED

pytestmark = pytest.mark.slow   # real processes

IN_PROCESS = b"delivered in this process"


@pytest.fixture
def socket_path(pbm_env: PbmEnv):
    path = pbm_env.data_dir / "lmtp.sock"
    pbm_env.configure(lmtp={"socket": str(path)})
    return path


def deliver(env: PbmEnv, message, sender: str = "alice@example.org"):
    """`pbm deliver --sender --recipient`, as Postfix's pipe runs it."""
    if isinstance(message, str):
        message = env.message(message, sender=sender)
    return env.deliver(message, mail_from=sender, rcpt_to=env.address)


def start_game(env: PbmEnv) -> None:
    """alice and bob sign up and start board 101 (in-process: no server runs yet)."""
    for user in ("alice", "bob"):
        assert deliver(env, f"signup {user} {PASSWORDS[user]}", f"{user}@example.org").returncode == 0
    assert deliver(env, "xiangqi challenge alice bob").returncode == 0
    env.replies()


def moves(env: PbmEnv) -> list[tuple[str]]:
    return env.query("SELECT move FROM moves ORDER BY ply")


def test_deliver_hands_over_to_the_running_server(pbm_env: PbmEnv, socket_path) -> None:
    start_game(pbm_env)
    server = pbm_env.start_server()
    move = pbm_env.message(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
    result = deliver(pbm_env, move)
    assert (result.returncode, result.stderr) == (0, b"")        # no log: nothing ran in-process
    assert move["Message-ID"] in server.log()                     # the server took it
    mails = by_recipient(pbm_env.wait_replies(2))                # and the server's outbox sent these

    # the envelope reaches the server: a reply recognised by its envelope recipient alone
    token_address = str(mails["bob@example.org"]["Reply-To"])
    answer = pbm_env.message("Re: your move", "h10g8\n", sender="bob@example.org")
    result = pbm_env.deliver(answer, mail_from="bob@example.org", rcpt_to=token_address)
    assert (result.returncode, result.stderr) == (0, b"")
    assert "bob played h10g8 (H8+7)" in text(by_recipient(pbm_env.wait_replies(2))["alice@example.org"])
    assert pbm_env.query("SELECT envelope_from, envelope_to FROM inbound WHERE message_id = ?",
                         (answer["Message-ID"],)) == [("bob@example.org", token_address)]
    assert moves(pbm_env) == [("h3e3",), ("h10g8",)]
    assert server.stop() == 0


def test_the_null_sender_and_two_recipients_reach_the_server(pbm_env: PbmEnv, socket_path) -> None:
    """MAILER-DAEMON (Postfix's pipe without null_sender=) goes on as MAIL FROM:<>; `--recipient A
    B` as two RCPTs, one message."""
    server = pbm_env.start_server()
    message = pbm_env.message("help")
    result = pbm_env.run("deliver", "--sender", "MAILER-DAEMON", "--recipient", pbm_env.address,
                         "pbm+help@pbm.test", input=bytes(message))
    assert (result.returncode, result.stderr) == (0, b"")        # handed over
    assert pbm_env.query("SELECT envelope_from, envelope_to, status FROM inbound") == [
        ("", f"{pbm_env.address},pbm+help@pbm.test", "automatic")]
    assert server.stop() == 0
    assert pbm_env.replies() == []


def test_a_recipient_the_server_refuses_exits_67(pbm_env: PbmEnv, socket_path) -> None:
    server = pbm_env.start_server()
    result = pbm_env.deliver(pbm_env.message("help"), mail_from="alice@example.org",
                             rcpt_to="someone@elsewhere.org")
    assert result.returncode == 67                                # EX_NOUSER: the MTA bounces it
    assert b"550 5.1.1" in result.stderr
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(0,)]
    assert server.stop() == 0


def test_a_temporary_failure_of_the_server_exits_75(pbm_env: PbmEnv, socket_path) -> None:
    pbm_env.configure(storage={"busy_timeout": 0.5})
    server = pbm_env.start_server()
    locker = sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3", isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")                             # the server cannot write
    try:
        result = deliver(pbm_env, "help")
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert result.returncode == 75                                # EX_TEMPFAIL: the MTA retries
    assert b"the server answered 451" in result.stderr and IN_PROCESS not in result.stderr
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(0,)]
    assert server.stop() == 0


def test_without_a_listener_deliver_works_in_process(pbm_env: PbmEnv, socket_path) -> None:
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX) as left:                   # a socket file nobody listens on
        left.bind(str(socket_path))
    result = deliver(pbm_env, "help")
    assert result.returncode == 0
    assert IN_PROCESS in result.stderr and b"Connection refused" in result.stderr
    [reply] = pbm_env.replies()                                   # written before it exited
    assert reply["To"] == "alice@example.org"


def test_without_an_envelope_deliver_works_in_process(pbm_env: PbmEnv, socket_path) -> None:
    server = pbm_env.start_server()
    for envelope in ({}, {"mail_from": "alice@example.org"}, {"rcpt_to": pbm_env.address}):
        result = pbm_env.deliver(pbm_env.message("help"), **envelope)
        assert result.returncode == 0 and IN_PROCESS in result.stderr
        assert b"no envelope (--sender and --recipient)" in result.stderr
    assert len(pbm_env.replies()) == 3                            # written before each exited
    assert server.stop() == 0


def test_a_message_larger_than_the_server_takes_is_read_here(pbm_env: PbmEnv, socket_path) -> None:
    """The sender is told it was too large, as without a server, instead of a bounce."""
    pbm_env.configure(smtp={"max_message_size": 2048})
    server = pbm_env.start_server()
    result = deliver(pbm_env, pbm_env.message("help", ("x" * 70 + "\n") * 60))
    assert result.returncode == 0 and b"larger than the server takes (2048 bytes)" in result.stderr
    [notice] = pbm_env.replies()
    assert "was not read" in text(notice)
    # the server still runs with the old limit; this process reads a larger one: the MTA retries
    pbm_env.configure(smtp={"max_message_size": 8192})
    result = deliver(pbm_env, pbm_env.message("help", ("x" * 70 + "\n") * 60))
    assert result.returncode == 75 and b"restart it" in result.stderr
    assert pbm_env.query("SELECT status FROM inbound") == [("too_large",)]
    assert server.stop() == 0


def test_a_move_is_never_applied_twice(pbm_env: PbmEnv, socket_path) -> None:
    start_game(pbm_env)
    move = pbm_env.message(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
    doomed = pbm_env.start_server(PBM_FAULT="after-commit")      # killed between commit and 250
    result = deliver(pbm_env, move)
    assert result.returncode == 75 and b"no answer from the server after DATA" in result.stderr
    assert doomed.process.wait(30) == KILLED
    assert moves(pbm_env) == [("h3e3",)]                          # committed all the same

    # the MTA tries again: the dead server's socket is left, nobody listens, so in-process
    result = deliver(pbm_env, move)
    assert result.returncode == 0 and IN_PROCESS in result.stderr and b"duplicate" in result.stderr
    # and once more with a server again
    server = pbm_env.start_server()
    result = deliver(pbm_env, move)
    assert (result.returncode, result.stderr) == (0, b"")
    assert f"{move['Message-ID']}: duplicate" in server.log()
    assert server.stop() == 0
    assert moves(pbm_env) == [("h3e3",)]
    assert pbm_env.query("SELECT count(*) FROM inbound WHERE message_id = ?", (move["Message-ID"],)) == [(1,)]


def test_without_message_id_a_second_delivery_by_the_other_path_is_recognised(
        pbm_env: PbmEnv, socket_path) -> None:
    """The pipe gives LF line ends, LMTP carries CRLF: the same message all the same."""
    raw = b"From: alice@example.org\nTo: pbm@pbm.test\nSubject: help\n\nno Message-ID here\n.\n"
    server = pbm_env.start_server()
    result = pbm_env.deliver(raw, mail_from="alice@example.org",
                             rcpt_to=["pbm@pbm.test", "pbm+help@pbm.test"])   # two answers, one commit
    assert (result.returncode, result.stderr) == (0, b"")
    assert server.stop() == 0                                     # the MTA tries again: no server now
    result = deliver(pbm_env, raw)
    assert result.returncode == 0 and IN_PROCESS in result.stderr and b"duplicate" in result.stderr
    assert pbm_env.query("SELECT count(*), envelope_to FROM inbound") == [(1, "pbm@pbm.test,pbm+help@pbm.test")]
