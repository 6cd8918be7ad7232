"""Real `pbm` processes for end-to-end tests: a config file, `pbm deliver` and `pbm serve`
subprocesses, real sockets, the outbox Maildir (fixtures `pbm_env` and `pbm_server` in conftest).

    def test_help(pbm_env):
        pbm_env.mail("help")                        # a real message piped into `pbm deliver`
        [reply] = pbm_env.replies()                 # new mails in the outbox Maildir

    def test_over_smtp(pbm_env):
        pbm_env.configure(server={"timer_interval": 1})   # any [section] keys, before starting
        server = pbm_env.start_server()             # `pbm serve` on a free loopback port
        server.send(pbm_env.message("help"))        # smtplib, real socket
"""
from __future__ import annotations

import json
import os
import re
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from support.postoffice import NO_OUTAGES, by_recipient

REPO = Path(__file__).resolve().parents[2]
PBM = [sys.executable, "-m", "pbm"]
SERVER_ADDRESS = "pbm@pbm.test"
START_TIMEOUT = 30.0    # seconds `pbm serve` may take to listen: a bound, not a measurement
EX_SOFTWARE = 70        # `pbm serve` stopped because one of its processes died


def pbm_environment(**extra: str) -> dict[str, str]:
    """The environment for a pbm subprocess: this checkout importable, no inherited pbm settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("PBM_CONFIG", "PBM_FAULT", "PBM_NOW")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def wire(message: EmailMessage) -> bytes:
    """A message as SMTP carries it: CRLF line ends."""
    return message.as_bytes(policy=policy.SMTP)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def toml(sections: dict[str, dict[str, object]]) -> str:
    """TOML for a dict of sections of scalars and lists (JSON strings are valid TOML strings)."""
    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(str(v))
    return "".join(f"[{name}]\n" + "".join(f"{key} = {value(v)}\n" for key, v in keys.items()) + "\n"
                   for name, keys in sections.items())


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_until(condition, timeout: float = 30) -> bool:
    """Whether `condition()` came true within `timeout` seconds (a bound, not a measurement)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def listening(port: int) -> bool:
    """Whether a server on 127.0.0.1:`port` takes a connection."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def greets(port: int, banner: bytes) -> bool:
    """Whether a server on 127.0.0.1:`port` answers a connection with `banner` first."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            return sock.recv(64).startswith(banner)
    except OSError:
        return False


class PbmServer:
    """A running `pbm serve` subprocess; its log is in `log_path`."""

    def __init__(self, env: PbmEnv, program: list[str] = PBM, **extra_env: str):
        self.env = env
        self.host = "127.0.0.1"
        self.port = free_port()
        env.configure(smtp={"listen": f"{self.host}:{self.port}"})
        self.log_path = env.root / f"serve-{self.port}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([*program, "--config", str(env.config_path), "serve"],
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            cwd=env.root, env=pbm_environment(**extra_env))
        self._wait_listening()

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pbm serve exited with {self.process.returncode}:\n{self.log()}")
            try:
                socket.create_connection((self.host, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"pbm serve did not listen within {START_TIMEOUT}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def smtp(self) -> smtplib.SMTP:
        return smtplib.SMTP(self.host, self.port, timeout=30)

    def send(self, message: EmailMessage | bytes, mail_from: str | None = None,
             rcpt_tos: list[str] | None = None) -> dict:
        """Send over SMTP; raises smtplib errors on refusal, returns sendmail's refused dict."""
        if isinstance(message, EmailMessage):
            mail_from = mail_from if mail_from is not None else message["From"].addresses[0].addr_spec
            message = wire(message)
        with self.smtp() as smtp:
            return smtp.sendmail(mail_from if mail_from is not None else "alice@example.org",
                                 rcpt_tos or [self.env.address], message)

    def command(self, sender: str, subject: str, count: int) -> dict[str, EmailMessage]:
        """Mail `subject` from `sender` and wait for the `count` replies, keyed by recipient."""
        self.send(self.env.message(subject, sender=sender))
        return by_recipient(self.env.wait_replies(count))

    def answer(self, mail: EmailMessage, line: str, count: int) -> dict[str, EmailMessage]:
        """Answer a game mail with just `line`, to its Reply-To, as a mail client does; wait for the
        `count` replies, keyed by recipient."""
        reply = self.env.message(f"Re: {mail['Subject']}", f"{line}\n", sender=mail["To"],
                                 to=mail["Reply-To"], In_Reply_To=mail["Message-ID"])
        self.send(reply, rcpt_tos=[mail["Reply-To"]])
        return by_recipient(self.env.wait_replies(count))

    def children(self, name: str, count: int = 1) -> list[int]:
        """The pids of the server's child processes whose name (as ps shows it) starts with `name`
        ("pbm-smtp": its SMTP processes, "pbm-outbox": its outbox process), once there are
        `count` (a child names itself when it has started)."""
        pid = self.process.pid

        def named() -> list[int]:
            found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            return [int(child) for child in found if alive(int(child))
                    and Path(f"/proc/{child}/comm").read_text().startswith(name)]
        assert wait_until(lambda: len(named()) >= count, START_TIMEOUT), f"no {count} {name} processes"
        return named()

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, then the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class PbmEnv:
    """A pbm installation in a temporary directory: config file, data directory, outbox Maildir."""

    def __init__(self, root: Path):
        self.root = root
        self.config_path = root / "pbm.toml"
        self.data_dir = root / "var"
        self.maildir = root / "outbox"
        self.address = SERVER_ADDRESS
        self.sections: dict[str, dict[str, object]] = {
            "server": {"address": SERVER_ADDRESS, "name": "pbm test", "log_level": "DEBUG"},
            "storage": {"data_dir": str(self.data_dir), "busy_timeout": 5.0},
            "outbound": {"mode": "maildir", "maildir": str(self.maildir)},
            "admins": {"users": ["root"]},
            # PBM_NOW jumps by days between timer runs, which a server's heartbeat never does:
            # outage credit stays off but for the tests that configure it
            "clocks": {"outage_after": NO_OUTAGES},
        }
        self.servers: list[PbmServer] = []
        self._seen: set[str] = set()
        self._write()

    def configure(self, **sections: dict[str, object]) -> None:
        """Set config keys, e.g. configure(smtp={"max_message_size": 65536}); rewrites the file."""
        for name, keys in sections.items():
            self.sections.setdefault(name, {}).update(keys)
        self._write()

    def _write(self) -> None:
        self.config_path.write_text(toml(self.sections))

    def run(self, *args: str, input: bytes | None = None, timeout: float = 120,
            **extra_env: str) -> subprocess.CompletedProcess:
        """`python -m pbm --config FILE ARGS...`; output captured as bytes."""
        return subprocess.run([*PBM, "--config", str(self.config_path), *args], input=input,
                              capture_output=True, cwd=self.root, timeout=timeout,
                              env=pbm_environment(**extra_env))

    def popen(self, *args: str, **extra_env: str) -> subprocess.Popen:
        """`python -m pbm --config FILE ARGS...` in the background; output to pipes."""
        return subprocess.Popen([*PBM, "--config", str(self.config_path), *args],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=self.root, env=pbm_environment(**extra_env))

    def deliver(self, raw: bytes | str | EmailMessage, mail_from: str | None = None,
                rcpt_to: str | list[str] | None = None, **extra_env: str) -> subprocess.CompletedProcess:
        """Pipe one message into `pbm deliver`, as an MTA does."""
        args = ["deliver"]
        if mail_from is not None:
            args += ["--sender", mail_from]
        for rcpt in [rcpt_to] if isinstance(rcpt_to, str) else rcpt_to or []:
            args += ["--recipient", rcpt]
        data = bytes(raw) if isinstance(raw, EmailMessage) else raw.encode() if isinstance(raw, str) else raw
        return self.run(*args, input=data, **extra_env)

    def message(self, subject: str, body: str = "", sender: str = "alice@example.org",
                to: str | None = None, **headers: str) -> EmailMessage:
        """A plain-text message to the server; keyword headers: Auto_Submitted="auto-replied"."""
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = to or self.address
        msg["Subject"] = subject
        msg["Date"] = formatdate()
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content(body)
        for name, value in headers.items():     # after set_content, which sets the Content-* ones
            del msg[name.replace("_", "-")]
            msg[name.replace("_", "-")] = value
        return msg

    def mail(self, subject: str, body: str = "", sender: str = "alice@example.org",
             to: str | None = None, **headers: str) -> subprocess.CompletedProcess:
        """Build a message and deliver it; fails the test unless `pbm deliver` exits 0."""
        result = self.deliver(self.message(subject, body, sender, to, **headers))
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return result

    def reply(self, original: EmailMessage, body: str, subject: str | None = None,
              sender: str | None = None) -> subprocess.CompletedProcess:
        """Answer a mail from the server the way a mail client does: to its Reply-To, "Re:" subject."""
        msg = self.message(subject if subject is not None else f"Re: {original['Subject']}", body,
                           sender=sender or str(original["To"]),
                           to=str(original["Reply-To"] or original["From"]),
                           In_Reply_To=original["Message-ID"], References=original["Message-ID"])
        result = self.deliver(msg)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return result

    def outbox_files(self) -> list[Path]:
        """All mails in the outbox Maildir (new/ and cur/), in the order they were queued."""
        files = [p for sub in ("new", "cur") if (self.maildir / sub).exists()
                 for p in (self.maildir / sub).iterdir()]
        return sorted(files, key=lambda p: [int(n) for n in re.findall(r"^(\d+)\.P(\d+)Q", p.name)[0]])

    def replies(self) -> list[EmailMessage]:
        """Mails that arrived in the outbox Maildir since the last call, in queue order."""
        new = [p for p in self.outbox_files() if p.name.split(":")[0] not in self._seen]
        self._seen.update(p.name.split(":")[0] for p in new)
        return [message_from_bytes(p.read_bytes(), policy=policy.default) for p in new]

    def wait_replies(self, count: int = 1, timeout: float = 30) -> list[EmailMessage]:
        """Replies sent by a running `pbm serve`: wait until at least `count` new ones are there."""
        got: list[EmailMessage] = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            got += self.replies()
            if len(got) >= count:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(got)} replies after {timeout}s, expected {count}")
            time.sleep(0.05)
        return got

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Read the server's database (a separate connection, as an operator would)."""
        with sqlite3.connect(self.data_dir / "pbm.sqlite3") as db:
            return db.execute(sql, params).fetchall()

    def start_server(self, program: list[str] = PBM, **extra_env: str) -> PbmServer:
        """Start `pbm serve` (extra environment variables, e.g. PBM_FAULT, for this process);
        `program` is how to run pbm (default: this checkout's, with this interpreter)."""
        server = PbmServer(self, program, **extra_env)
        self.servers.append(server)
        return server

    def close(self) -> None:
        for server in self.servers:
            server.kill()


