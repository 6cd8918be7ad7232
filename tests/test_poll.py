"""`pbm poll` against a real Dovecot: mail put in the mailbox over IMAP is answered exactly once, and
flagged or moved only after it is committed."""
from __future__ import annotations

import signal
import sqlite3
import subprocess
import time

import pytest
from imapclient import SEEN
from support.processes import PBM, PbmEnv, pbm_environment

pytest.register_assert_rewrite("dovecot")
from support.dovecot import Dovecot  # noqa: E402
from support.postoffice import plain

EX_TEMPFAIL = 75
WAIT = 30.0     # seconds a running `pbm poll` may take to answer: a bound, not a measurement

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


@pytest.fixture
def env(pbm_env: PbmEnv, dovecot: Dovecot) -> PbmEnv:
    pbm_env.configure(imap=dovecot.settings())
    return pbm_env


def poll(env: PbmEnv) -> str:
    """`pbm poll --once`; fails the test unless it exits 0; returns its log."""
    result = env.run("poll", "--once")
    log = (result.stdout + result.stderr).decode(errors="replace")
    assert result.returncode == 0, log
    return log


def test_mail_is_answered_then_flagged_seen(env: PbmEnv, dovecot: Dovecot) -> None:
    dovecot.append(bytes(env.message("signup alice Sw0rdfish")))

    log = poll(env)

    [reply] = env.replies()
    assert reply["To"] == "alice@example.org"
    assert list(dovecot.flags().values()) == [{SEEN}]
    assert env.query("SELECT status FROM inbound") == [("processed",)]
    assert "Sw0rdfish" not in log + reply.as_string()     # the log is at DEBUG level


@pytest.mark.parametrize("server", ["dovecot", "plain_dovecot"])
def test_done_mailbox_receives_the_processed_mail(pbm_env: PbmEnv, request: pytest.FixtureRequest,
                                                  server: str) -> None:
    """With MOVE, and with COPY + \\Deleted + EXPUNGE on a server without MOVE and UIDPLUS."""
    imap: Dovecot = request.getfixturevalue(server)
    pbm_env.configure(imap=imap.settings(done_mailbox="Done"))     # poll creates it
    imap.append(bytes(pbm_env.message("signup alice Sw0rdfish")))
    imap.append(bytes(pbm_env.message("signup bob Hunter22", sender="bob@example.org")))

    poll(pbm_env)

    assert imap.flags("INBOX") == {}
    assert list(imap.flags("Done").values()) == [{SEEN}, {SEEN}]
    assert sorted(r["To"] for r in pbm_env.replies()) == ["alice@example.org", "bob@example.org"]


def test_automatic_mail_is_recorded_and_not_answered(env: PbmEnv, dovecot: Dovecot) -> None:
    dovecot.append(bytes(env.message("Out of office", Auto_Submitted="auto-replied")))
    dovecot.append(bytes(env.message("Undeliverable: signup bob Hunter22",
                                     sender="MAILER-DAEMON@example.org")))
    dovecot.append(b"Return-Path: <>\r\nFrom: carol@example.org\r\nSubject: signup carol Hunter22\r\n"
                   b"Message-ID: <bounce-1@example.org>\r\n\r\nno return path\r\n")

    poll(env)

    assert env.replies() == []
    assert env.query("SELECT status FROM inbound") == [("automatic",)] * 3
    assert list(dovecot.flags().values()) == [{SEEN}] * 3


def test_crash_after_the_commit_leaves_mail_unseen_and_it_is_answered_once(
        env: PbmEnv, dovecot: Dovecot) -> None:
    dovecot.append(bytes(env.message("signup alice Sw0rdfish")))

    crashed = env.run("poll", "--once", PBM_FAULT="after-commit")   # SIGKILL right after COMMIT

    assert crashed.returncode == -signal.SIGKILL
    assert list(dovecot.flags().values()) == [set()]
    assert env.query("SELECT status FROM inbound") == [("processed",)]
    assert env.replies() == []
    poll(env)
    poll(env)
    assert len(env.replies()) == 1
    assert env.query("SELECT status FROM inbound") == [("processed",)]
    assert list(dovecot.flags().values()) == [{SEEN}]


def test_mail_delivered_twice_is_answered_once(env: PbmEnv, dovecot: Dovecot) -> None:
    raw = bytes(env.message("signup alice Sw0rdfish"))
    dovecot.append(raw)
    poll(env)
    dovecot.append(raw)                 # the provider delivers the same message again

    poll(env)

    assert len(env.replies()) == 1
    assert list(dovecot.flags().values()) == [{SEEN}, {SEEN}]
    assert env.query("SELECT count(*) FROM inbound") == [(1,)]


def test_broken_mail_does_not_stop_the_round(env: PbmEnv, dovecot: Dovecot) -> None:
    dovecot.append(b"\x00\xff\xfe no header at all\r\n\r\n\x80\x81\r\n")
    dovecot.append(b"From: alice@example.org\r\nSubject: =?x-unknown?B?////?=\r\n"
                   b"Message-ID: <broken-1@example.org>\r\n"
                   b"Content-Type: multipart/mixed; boundary=\"never-closed\"\r\n"
                   b"Content-Transfer-Encoding: base64\r\n\r\n--never-closed\r\n!!! not base64\r\n")
    dovecot.append(bytes(env.message("signup bob Hunter22", sender="bob@example.org")))

    poll(env)

    assert "bob@example.org" in [r["To"] for r in env.replies()]
    assert list(dovecot.flags().values()) == [{SEEN}] * 3
    assert env.query("SELECT count(*) FROM inbound") == [(3,)]


def test_mail_intake_fails_on_stays_unseen_and_the_rest_goes_on(env: PbmEnv, dovecot: Dovecot) -> None:
    """An error that is not transient (here a failing constraint, as a bug would raise) skips
    that one message."""
    assert env.run("outbox").returncode == 0    # creates the database
    with sqlite3.connect(env.data_dir / "pbm.sqlite3") as db:
        db.execute("CREATE TRIGGER poison BEFORE INSERT ON inbound WHEN NEW.sender = 'mallory@example.org' "
                   "BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
    dovecot.append(bytes(env.message("signup mallory Sw0rdfish", sender="mallory@example.org")))
    dovecot.append(bytes(env.message("signup bob Hunter22", sender="bob@example.org")))

    log = poll(env)

    assert [r["To"] for r in env.replies()] == ["bob@example.org"]
    assert list(dovecot.flags().values()) == [set(), {SEEN}]
    assert "IMAP message 1 left unseen" in log and "IntegrityError" in log
    assert "Sw0rdfish" not in log


def test_mail_over_the_size_limit_is_answered_from_its_header(env: PbmEnv, dovecot: Dovecot) -> None:
    env.configure(smtp={"max_message_size": 4096})
    big = env.message("signup alice Sw0rdfish")
    big.add_attachment(b"\x00" * 100_000, maintype="application", subtype="octet-stream",
                       filename="big.bin")
    dovecot.append(bytes(big))

    poll(env)

    [reply] = env.replies()
    assert reply["To"] == "alice@example.org"
    assert "at most 4096 bytes" in plain(reply)
    [(status, size, raw)] = env.query("SELECT status, size, raw FROM inbound")
    assert status == "too_large" and size > 100_000 and len(raw) < 4096
    assert list(dovecot.flags().values()) == [{SEEN}]


def test_locked_database_leaves_mail_unseen_for_the_next_round(env: PbmEnv, dovecot: Dovecot) -> None:
    env.configure(storage={"busy_timeout": 0.2})
    assert env.run("outbox").returncode == 0    # creates the database
    dovecot.append(bytes(env.message("signup alice Sw0rdfish")))
    dovecot.append(bytes(env.message("signup bob Hunter22", sender="bob@example.org")))
    lock = sqlite3.connect(env.data_dir / "pbm.sqlite3", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")             # another writer holds the lock past busy_timeout

    log = poll(env)

    lock.execute("ROLLBACK")
    lock.close()
    assert "left unseen for the next round" in log
    assert list(dovecot.flags().values()) == [set(), set()]
    assert env.replies() == []

    poll(env)

    assert len(env.replies()) == 2
    assert list(dovecot.flags().values()) == [{SEEN}, {SEEN}]


@pytest.mark.parametrize("tls", ["ssl", "starttls"])
def test_tls_with_the_configured_ca_file(env: PbmEnv, dovecot: Dovecot, tls: str) -> None:
    port = dovecot.imaps_port if tls == "ssl" else dovecot.port
    env.configure(imap={tls: True, "port": port, "ca_file": str(dovecot.ca_file)})
    dovecot.append(bytes(env.message("signup alice Sw0rdfish")))

    poll(env)

    assert len(env.replies()) == 1


def test_untrusted_certificate_is_refused(env: PbmEnv, dovecot: Dovecot) -> None:
    env.configure(imap={"ssl": True, "port": dovecot.imaps_port})     # system CAs only
    dovecot.append(bytes(env.message("signup alice Sw0rdfish")))

    result = env.run("poll", "--once")

    assert result.returncode == EX_TEMPFAIL
    assert "CERTIFICATE_VERIFY_FAILED" in result.stderr.decode()
    assert list(dovecot.flags().values()) == [set()]


def test_wrong_imap_password_is_reported_without_the_password(env: PbmEnv, dovecot: Dovecot) -> None:
    env.configure(imap={"password": "not-the-password"})

    result = env.run("poll", "--once")

    err = result.stderr.decode()
    assert result.returncode == EX_TEMPFAIL
    assert f"refused the login of '{dovecot.username}'" in err
    assert "not-the-password" not in err + result.stdout.decode()


def test_missing_mailbox_is_reported(env: PbmEnv) -> None:
    env.configure(imap={"mailbox": "Nowhere"})

    result = env.run("poll", "--once")

    assert result.returncode == EX_TEMPFAIL
    assert "cannot use mailbox 'Nowhere'" in result.stderr.decode()


@pytest.mark.parametrize("imap, error", [
    ({}, "[imap] username is not set"),
    ({"username": "pbm", "starttls": True}, "for STARTTLS set ssl = false"),   # ssl defaults to true
])
def test_unusable_imap_section_is_a_configuration_error(pbm_env: PbmEnv, imap: dict, error: str) -> None:
    pbm_env.configure(imap=imap)

    result = pbm_env.run("poll", "--once")

    assert result.returncode == 78      # EX_CONFIG
    assert error in result.stderr.decode()


@pytest.mark.parametrize("server", ["dovecot", "plain_dovecot"])
def test_running_poller_answers_new_mail_and_stops_on_sigterm(
        pbm_env: PbmEnv, request: pytest.FixtureRequest, server: str) -> None:
    """IDLE wakes the poller on Dovecot; without IDLE it looks every `interval` seconds."""
    imap: Dovecot = request.getfixturevalue(server)
    pbm_env.configure(imap=imap.settings(interval=300 if server == "dovecot" else 0.2))
    imap.append(bytes(pbm_env.message("signup alice Sw0rdfish")))
    with Poller(pbm_env) as poller:
        replies = poller.wait_for_replies(1)
        imap.append(bytes(pbm_env.message("signup bob Hunter22", sender="bob@example.org")))
        replies += poller.wait_for_replies(1)

    assert poller.returncode == 0, poller.log
    assert [r["To"] for r in replies] == ["alice@example.org", "bob@example.org"]
    assert list(imap.flags().values()) == [{SEEN}, {SEEN}]
    assert "SIGTERM received" in poller.log
    assert "Sw0rdfish" not in poller.log and "Hunter22" not in poller.log


def test_running_poller_reconnects_when_the_connection_drops(env: PbmEnv, dovecot: Dovecot) -> None:
    env.configure(imap={"interval": 0.2})
    with Poller(env) as poller:
        dovecot.append(bytes(env.message("signup alice Sw0rdfish")))
        poller.wait_for_replies(1)
        dovecot.kick()
        dovecot.append(bytes(env.message("signup bob Hunter22", sender="bob@example.org")))
        poller.wait_for_replies(1)

    assert poller.returncode == 0, poller.log
    assert f"IMAP connection to 127.0.0.1:{dovecot.port} lost" in poller.log
    assert list(dovecot.flags().values()) == [{SEEN}, {SEEN}]


class Poller:
    """`pbm poll` running in the background; stopped with SIGTERM when the block ends."""

    def __init__(self, env: PbmEnv) -> None:
        self.env = env
        self.process = subprocess.Popen([*PBM, "--config", str(env.config_path), "poll"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        cwd=env.root, env=pbm_environment())
        self.log = ""
        self.returncode: int | None = None

    def __enter__(self) -> Poller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            out, _ = self.process.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        self.log = out.decode(errors="replace")
        self.returncode = self.process.returncode

    def wait_for_replies(self, count: int) -> list:
        deadline = time.monotonic() + WAIT
        replies: list = []
        while len(replies) < count:
            assert self.process.poll() is None, self.process.communicate()[0].decode(errors="replace")
            assert time.monotonic() < deadline, "pbm poll did not answer in time"
            time.sleep(0.05)
            replies += self.env.replies()
        return replies
