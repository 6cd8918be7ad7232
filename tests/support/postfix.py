"""A private Postfix for the tests that put pbm behind a real MTA (tests/test_postfix.py).

It runs as `postfix -c DIR start`: its own main.cf and master.cf, queue, data directory and log file
(`maillog_file`, written by its `postlog` service: no syslog needed) in a temporary folder, smtpd on
127.0.0.1 and a free port; the system's /etc/postfix is only read (postfix-files, dynamicmaps.cf).
The players' domain example.org is a virtual mailbox domain whose Maildirs are in the folder, so a
reply pbm sends back through Postfix lands where the test reads it.  Install Postfix with
`.ci/setup` (Debian: `apt-get install postfix`, "No configuration"); without it the tests fail
and say so, as Dovecot's do.  It needs root (`postfix start`; the pipe's `user=` must not be root).
"""
from __future__ import annotations

import os
import pwd
import re
import shutil
import smtplib
import socket
import subprocess
import tempfile
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

SBIN = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
POSTFIX = shutil.which("postfix", path=SBIN)
WAIT = 30.0             # seconds to wait for a log line: a bound, not a measured time
PLAYERS_DOMAIN = "example.org"

MAIN_CF = """\
compatibility_level = 3.6
queue_directory = {base}/spool
data_directory = {base}/data
maillog_file = {base}/maillog
maillog_file_prefixes = {base}
syslog_name = postfix-pbmtest
myhostname = mx.pbm.test
mydomain = pbm.test
myorigin = $mydomain
mydestination = {destinations}
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
biff = no
recipient_delimiter = +
transport_maps = hash:{config}/transport
# pbm@ is no passwd user here (pbmtest is): the transport map lists the local recipients
local_recipient_maps = $transport_maps
virtual_mailbox_domains = {players}
virtual_mailbox_base = {base}/mail
virtual_mailbox_maps = hash:{config}/vmailbox
virtual_uid_maps = static:{uid}
virtual_gid_maps = static:{gid}
virtual_minimum_uid = 1
smtpd_banner = $myhostname ESMTP
"""

# As Debian's, with chroot off except for lmtp: Debian runs its lmtp client chrooted in the queue
# directory, so the socket is named relative to it (`lmtp:unix:pbm/lmtp.sock`), as the docs say.
MASTER_CF = """\
127.0.0.1:{port} inet n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
smtp      unix  - - n - - smtp
relay     unix  - - n - - smtp
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
local     unix  - n n - - local
virtual   unix  - n n - - virtual
lmtp      unix  - - y - - lmtp
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
{pipes}"""


class Postfix:
    """The running instance: send mail to it, read its log and the players' Maildirs."""

    def __init__(self, base: Path, pipes: str, transports: dict[str, str], destinations: list[str]):
        if POSTFIX is None:
            pytest.fail("Postfix is not installed: the tests behind a real MTA need it. "
                        "Run .ci/setup as root (or: apt-get install postfix, \"No configuration\").")
        self.base = base
        self.config = base / "etc"
        self.queue = base / "spool"
        self.log_path = base / "maillog"
        self.port = _free_port()
        owner = pwd.getpwnam("nobody")
        for folder in (self.config, self.queue, base / "mail"):
            folder.mkdir()
        os.chown(base / "mail", owner.pw_uid, owner.pw_gid)
        (self.config / "main.cf").write_text(MAIN_CF.format(
            base=base, config=self.config, destinations=", ".join(destinations),
            players=PLAYERS_DOMAIN, uid=owner.pw_uid, gid=owner.pw_gid))
        (self.config / "master.cf").write_text(MASTER_CF.format(port=self.port, pipes=pipes))
        self.map("transport", transports)
        self.map("vmailbox", {})
        self.run("postfix", "start")
        self._wait_listening()

    def run(self, command: str, *args: str) -> str:
        """A Postfix command on this instance's configuration (`postfix -c DIR ...`)."""
        result = subprocess.run([shutil.which(command, path=SBIN), "-c", str(self.config), *args],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"{command} {' '.join(args)}: {result.stderr}{self.log()}")
        return result.stdout

    def map(self, name: str, entries: dict[str, str]) -> None:
        """Write a lookup table and postmap it (`hash:` as the docs say)."""
        (self.config / name).write_text("".join(f"{key} {value}\n" for key, value in entries.items()))
        self.run("postmap", f"hash:{self.config / name}")

    def mailboxes(self, *local_parts: str) -> None:
        """Maildirs for these players of example.org, where pbm's replies land."""
        self.map("vmailbox", {f"{name}@{PLAYERS_DOMAIN}": f"{name}/" for name in local_parts})

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                    if sock.recv(64).startswith(b"220"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"postfix did not answer on port {self.port}:\n{self.log()}")
            time.sleep(0.1)

    def send(self, raw: bytes, mail_from: str, rcpt_tos: list[str]) -> str:
        """Submit over SMTP to Postfix's smtpd; the queue id it gave the message."""
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as smtp:
            smtp.ehlo("client.example.org")
            code, text = smtp.mail(mail_from)
            assert code == 250, text
            for rcpt in rcpt_tos:
                code, text = smtp.rcpt(rcpt)
                assert code == 250, text
            code, text = smtp.data(raw)
        assert code == 250, text
        return re.search(rb"queued as (\w+)", text)[1].decode()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def deliveries(self, queue_id: str, count: int = 1, status: str | None = None,
                   timeout: float = WAIT) -> list[str]:
        """The log lines of the message's deliveries (`to=<...>, relay=..., status=...`), once
        there are `count` of them (of that status, if given)."""
        pattern = re.compile(rf"^.*postfix-pbmtest/\w+\[\d+\]: {queue_id}: to=<.*status="
                             rf"{status or ''}.*$", re.MULTILINE)
        deadline = time.monotonic() + timeout
        while len(lines := pattern.findall(self.log())) < count:
            if time.monotonic() > deadline:
                pytest.fail(f"no {count} deliveries of {queue_id} in the log:\n{self.log()}")
            time.sleep(0.1)
        return lines

    def flush(self) -> None:
        """`postqueue -f`: deliver what is deferred now."""
        self.run("postqueue", "-f")

    def maildir(self, name: str) -> list[Path]:
        """The messages delivered to name@example.org, oldest first."""
        folder = self.base / "mail" / name / "new"
        return sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns) if folder.exists() else []

    def mails(self, name: str, sender: str) -> list[EmailMessage]:
        """The mails to name@example.org from `sender`, oldest first."""
        found = [message_from_bytes(path.read_bytes(), policy=policy.default) for path in self.maildir(name)]
        return [mail for mail in found if f"<{sender}>" in str(mail["From"])]

    def stop(self) -> None:
        subprocess.run([shutil.which("postfix", path=SBIN), "-c", str(self.config), "stop"],
                       capture_output=True, timeout=60)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_folder() -> Path:
    """Not pytest's tmp_path: the chrooted lmtp client and the unprivileged users must traverse
    it, and Postfix's socket paths must be short."""
    base = Path(tempfile.mkdtemp(prefix="pbm-postfix-"))
    base.chmod(0o755)
    return base
