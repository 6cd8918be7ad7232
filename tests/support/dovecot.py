"""A private Dovecot IMAP server for the `pbm poll` tests.

The IMAP intake is tested against the real thing, not a fake: the session starts its own Dovecot
master process with its own configuration and runtime directory, listening on 127.0.0.1 on a free
port, and stops it at the end; each test gets a new passwd-file user with an empty Maildir.
Install Dovecot with `.ci/setup` (Debian: `apt-get install dovecot-imapd`); without it
the tests fail and say so, they are not skipped.
"""
from __future__ import annotations

import grp
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from imapclient import RECENT, IMAPClient
from support.processes import greets, wait_until

SBIN = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
DOVECOT = shutil.which("dovecot", path=SBIN)
DOVEADM = shutil.which("doveadm", path=SBIN)
STARTUP_DEADLINE = 20.0   # seconds; a generous bound, not a measured time
USER = "pbm"              # users are pbm1, pbm2, ...
PASSWORD = "imap-secret"

CONFIG = """\
base_dir = {base}/run
state_dir = {base}/state
instance_name = pbm-test-{port}
log_path = {base}/dovecot.log
listen = 127.0.0.1
protocols = imap
ssl = yes
ssl_cert = <{base}/cert.pem
ssl_key = <{base}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = {uid}
{unprivileged}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {base}/passwd/%n
}}
userdb {{
  driver = passwd-file
  args = {base}/passwd/%n
}}
mail_location = maildir:~/Maildir
mailbox_idle_check_interval = 1 secs   # the fallback when inotify cannot tell IDLE of new mail
service anvil {{
  {chroot}
  unix_listener anvil-auth-penalty {{
    mode = 0    # no growing delay for logins after the wrong-password test
  }}
}}
service imap-login {{
  {chroot}
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
  }}
}}
"""
# Run by an ordinary user, every Dovecot process runs as that user, and none may chroot.
UNPRIVILEGED = """\
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
"""


@dataclass
class Dovecot:
    """One user's mailbox on the running private Dovecot; the tests fill its INBOX."""

    host: str
    port: int           # IMAP, with STARTTLS
    imaps_port: int     # IMAP over TLS
    ca_file: Path       # the self-signed certificate both present
    username: str
    password: str
    conf: Path          # the server's dovecot.conf, for doveadm

    def client(self) -> IMAPClient:
        """A logged-in client; use it as a context manager so it logs out."""
        client = IMAPClient(self.host, self.port, ssl=False, timeout=30)
        client.login(self.username, self.password)
        return client

    def append(self, raw: bytes, folder: str = "INBOX") -> None:
        with self.client() as client:
            client.append(folder, raw)

    def flags(self, folder: str = "INBOX") -> dict[int, set[bytes]]:
        """UID -> flags (without the session-bound \\Recent) of every message in `folder`.

        The folder is examined read-only, so looking does not change what `pbm poll` will see.
        """
        with self.client() as client:
            client.select_folder(folder, readonly=True)
            fetched = client.fetch(client.search("ALL"), ["FLAGS"])
            return {uid: set(data[b"FLAGS"]) - {RECENT} for uid, data in fetched.items()}

    def kick(self) -> None:
        """Drop every IMAP connection of this user, as a server restart or a network failure does."""
        subprocess.run([DOVEADM, "-c", str(self.conf), "kick", self.username], check=True,
                       capture_output=True)

    def settings(self, **extra: object) -> dict[str, object]:
        """The `[imap]` keys of a pbm configuration that point at this mailbox."""
        return {"host": self.host, "port": self.port, "ssl": False, "starttls": False,
                "username": self.username, "password": self.password, **extra}


def _free_ports(count: int) -> list[int]:
    """Ports nobody listens on now: bound together, so they differ, then released for Dovecot."""
    socks = [socket.socket() for _ in range(count)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


class _Server:
    """The Dovecot master process; one per test session, with a fresh user (and Maildir) per test.

    As root, Dovecot keeps its privilege separation (auth runs as `dovecot`, login as `dovenull`)
    and refuses uid 0 for mail, so mail is owned by `nobody` and the directory is made traversable.
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        self.port, self.imaps_port = _free_ports(2)
        self.cert = base / "cert.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                        "-keyout", str(base / "key.pem"), "-out", str(self.cert)],
                       check=True, capture_output=True)
        self.log = base / "dovecot.log"
        self.passwd = base / "passwd"   # one passwd-file per user, so new users need no reload
        self.passwd.mkdir()
        if os.geteuid() == 0:
            self.owner = pwd.getpwnam("nobody")
            unprivileged, chroot = "", ""
            base.chmod(0o711)
        else:
            self.owner = pwd.getpwuid(os.geteuid())
            unprivileged = UNPRIVILEGED.format(user=self.owner.pw_name,
                                               group=grp.getgrgid(self.owner.pw_gid).gr_name)
            chroot = "chroot ="
        self.conf = base / "dovecot.conf"
        self.conf.write_text(CONFIG.format(base=base, port=self.port, imaps_port=self.imaps_port,
                                           uid=self.owner.pw_uid, unprivileged=unprivileged,
                                           chroot=chroot))
        self.users = 0
        self.process = subprocess.Popen([DOVECOT, "-F", "-c", str(self.conf)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)

    def wait_until_serving(self) -> None:
        wait_until(lambda: self.process.poll() is not None or greets(self.port, b"* OK"), STARTUP_DEADLINE)
        if self.process.poll() is not None:
            pytest.fail(f"dovecot exited with status {self.process.returncode}:\n{self.output()}")
        if not greets(self.port, b"* OK"):
            pytest.fail(f"dovecot did not answer on port {self.port}:\n{self.output()}")

    def output(self) -> str:
        """What Dovecot said: its stderr once it has exited, and its log file."""
        exited = self.process.poll() is not None
        stderr = self.process.stderr.read().decode(errors="replace") if exited else ""
        return stderr + (self.log.read_text(errors="replace") if self.log.exists() else "")

    def add_user(self, capability: str = "") -> Dovecot:
        """A new user with an empty mailbox.

        `capability` (one word, e.g. "IMAP4rev1") replaces what Dovecot offers this user after login,
        to play a server without MOVE, UIDPLUS or IDLE.
        """
        self.users += 1
        name = f"{USER}{self.users}"
        home = self.base / "home" / name
        home.mkdir(parents=True)
        os.chown(home, self.owner.pw_uid, self.owner.pw_gid)
        extra = f"userdb_imap_capability={capability}" if capability else ""
        (self.passwd / name).write_text(
            f"{name}:{{PLAIN}}{PASSWORD}:{self.owner.pw_uid}:{self.owner.pw_gid}::{home}::{extra}\n")
        return Dovecot("127.0.0.1", self.port, self.imaps_port, self.cert, name, PASSWORD, self.conf)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stderr.close()


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[_Server]:
    """The private Dovecot, started once for the session."""
    if DOVECOT is None:
        pytest.fail("Dovecot is not installed: the IMAP tests need a real server. "
                    "Run .ci/setup as root (or: apt-get install dovecot-imapd).")
    # Not pytest's tmp_path: Dovecot's unix sockets need a short path, and its unprivileged
    # processes must be able to traverse every parent directory.
    base = Path(tempfile.mkdtemp(prefix="pbm-dovecot-"))
    try:
        server = _Server(base)
        try:
            server.wait_until_serving()
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def dovecot(dovecot_server: _Server) -> Dovecot:
    """A fresh user with an empty INBOX on the session's Dovecot."""
    return dovecot_server.add_user()


@pytest.fixture
def plain_dovecot(dovecot_server: _Server) -> Dovecot:
    """Like `dovecot`, but the server offers this user bare IMAP4rev1: no MOVE, UIDPLUS or IDLE."""
    return dovecot_server.add_user(capability="IMAP4rev1")
