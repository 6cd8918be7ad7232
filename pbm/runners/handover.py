"""`pbm deliver` as a thin client: the message goes to a running `pbm serve` over its LMTP socket.

A process per message then pays for starting Python, parsing its arguments and this module -- not
for the email package, Jinja2, the rules core or SQLite, which the server has loaded already, nor
for pbm.config: of the configuration it needs `[lmtp] socket` alone (`socket_path`), and the
server tells it the largest message it takes.  The few lines of LMTP are spoken here over the
socket module: smtplib imports the email package and ssl (docs/decisions.md).  Its exit status is
the server's verdict, as sysexits.h says:

- 250: 0, the message is committed (or was seen before);
- 4xx at any stage: 75 (EX_TEMPFAIL), the MTA keeps the message and tries again;
- 5xx to every RCPT: 67 (EX_NOUSER), the envelope recipient is not the server's address;
- any other 5xx: 69 (EX_UNAVAILABLE), the server refused the message for good.

The message must never be applied twice.  So `NoServer` -- deliver in this process instead -- is
raised only while nothing was handed over: no socket, nobody listening, or the server gone before
DATA.  Once DATA is sent, an answer that never comes (the server killed, a timeout) exits 75: the
server may have committed the message, and when the MTA tries again the server, or `pbm deliver`
in-process, finds it by its Message-ID (else by the hash of its bytes, whatever their line ends:
pbm.mail.reading.dedup_key) and only answers again.
"""
from __future__ import annotations

import os
import re
import socket
import sys

TYPE_CHECKING = False                   # as in pbm.cli: typing is not imported to hand over
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

EX_OK = 0
EX_NOUSER = 67
EX_UNAVAILABLE = 69
EX_TEMPFAIL = 75

TIMEOUT = 120.0         # seconds to wait for each answer; the commit may wait for the write lock
MAX_LINE = 998          # octets per line that SMTP and LMTP carry (RFC 5321 4.5.3.1.6)


class NoServer(Exception):
    """Nothing was handed over: no server answers, or the message is better read in-process.
    `message`: (what was read of it, its size), once it was read from the input."""

    def __init__(self, why: str, message: tuple[bytes, int] | None = None):
        super().__init__(why)
        self.message = message


class _Lost(Exception):
    """The server closed the connection, or said something that is not an answer."""


def socket_path(config_file: str | None) -> str | None:
    """`[lmtp] socket` of the configuration file, resolved against the file's folder as
    pbm.config resolves every path (tests/test_config.py holds the two together); None without
    one, or when the file is one only pbm.config can make sense of (it then says what is wrong).
    The one setting is read by `_lmtp_socket`, not tomllib: a process that hands over imports
    next to nothing."""
    if config_file is None:
        return None
    path = os.path.realpath(config_file)
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    value = _lmtp_socket(text)
    if value is _UNSURE:                # a form the few lines below do not read: tomllib does
        import tomllib
        try:
            value = tomllib.loads(text).get("lmtp", {}).get("socket")
        except (tomllib.TOMLDecodeError, AttributeError):
            return None
    if not isinstance(value, str) or not value:
        return None
    return os.path.join(os.path.dirname(path), os.path.expanduser(value))


_UNSURE = object()
_TABLE = re.compile(r"\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(?:#.*)?")
_SOCKET = re.compile(r"""\s*socket\s*=\s*(?:"([^"\\]*)"|'([^']*)')\s*(?:#.*)?""")


def _lmtp_socket(text: str) -> object:
    """`socket` of the `[lmtp]` table, for a file written as pbm's documentation writes it (a plain
    `[lmtp]` header, `socket = "..."` or `'...'` without escapes); None if there is none; _UNSURE
    where the file names lmtp or socket in any other way (a dotted key, an inline table, an escape,
    a second table of that name)."""
    table, found = None, None
    for line in text.splitlines():
        if (header := _TABLE.fullmatch(line)) is not None:
            if header[1] == "lmtp" and table == "lmtp" or found is not None and header[1] == "lmtp":
                return _UNSURE
            table = header[1]
        elif table == "lmtp" and (setting := _SOCKET.fullmatch(line)) is not None:
            if found is not None:
                return _UNSURE
            found = setting[1] if setting[1] is not None else setting[2]
        elif "lmtp" in line or table == "lmtp" and "socket" in line or line.lstrip().startswith("["):
            return _UNSURE
    return found


def read_limited(stream: BinaryIO, limit: int) -> tuple[bytes, int]:
    """Read a message, keeping at most limit + 1 bytes but draining (and counting) the rest."""
    data = stream.read(limit + 1)
    size = len(data)
    while chunk := stream.read(1 << 20):
        size += len(chunk)
    return data, size


def hand_over(path: str, stream: BinaryIO, sender: str | None, recipients: Sequence[str]) -> int:
    """Pass the message on `stream` to the server listening on `path`; the exit status of its
    answer.

    Raises NoServer, before anything is sent, where processing in this process is the right thing:
    no server; no envelope (LMTP cannot say "unknown": in-process, the message's headers count
    then); lines longer than LMTP carries; or a message larger than the server takes (in-process,
    its sender is told, instead of a bounce)."""
    if sender is None or not recipients:
        raise NoServer("no envelope (--sender and --recipient) to pass on")
    try:
        lmtp = _Lmtp(path)
    except (OSError, _Lost) as e:
        raise NoServer(f"no server on {path}: {e}") from None
    try:
        return _transaction(lmtp, stream, sender, list(recipients))
    finally:
        lmtp.close()


def _transaction(lmtp: _Lmtp, stream: BinaryIO, sender: str, recipients: list[str]) -> int:
    try:
        code, text = lmtp.command("LHLO localhost")
    except (OSError, _Lost) as e:
        raise NoServer(f"the server went away before the message was sent: {e}") from None
    if code != 250:
        return _verdict(code, text, permanent=EX_UNAVAILABLE)
    limit = re.search(r"^SIZE (\d+)$", text, re.MULTILINE)
    raw, size = read_limited(stream, int(limit[1]) if limit else 1 << 62)
    data = re.sub(rb"\r?\n", b"\r\n", raw)
    if limit and max(size, len(data)) > int(limit[1]):
        raise NoServer(f"larger than the server takes ({limit[1]} bytes)", (raw, size))
    if any(len(line) > MAX_LINE for line in data.split(b"\r\n")):
        raise NoServer("a line is longer than LMTP carries", (raw, size))
    options = "".join([" SMTPUTF8" * (not all(a.isascii() for a in (sender, *recipients))),
                       " BODY=8BITMIME" * (not data.isascii())])
    try:
        code, text = lmtp.command(f"MAIL FROM:<{sender}>{options}")
        if code == 250:
            answers = [lmtp.command(f"RCPT TO:<{address}>") for address in recipients]
            accepted = [answer for answer in answers if answer[0] == 250]
            if not accepted:
                return _verdict(*answers[0], permanent=EX_NOUSER)
            code, text = lmtp.command("DATA")
    except (OSError, _Lost) as e:
        raise NoServer(f"the server went away before the message was sent: {e}", (raw, size)) from None
    if code != 354:
        return _verdict(code, text, permanent=EX_UNAVAILABLE)
    try:                                # from here on the server may commit the message
        stuffed = re.sub(rb"(?m)^\.", b"..", data)
        lmtp.send(stuffed + (b"" if stuffed.endswith(b"\r\n") else b"\r\n") + b".\r\n")
        code, text = lmtp.reply()
        for _ in accepted[1:]:          # LMTP: one answer per recipient, all of the same commit
            lmtp.reply()
    except (OSError, _Lost) as e:
        _say(f"no answer from the server after DATA, exit 75 so that the MTA retries "
             f"(the server may have the message; a second delivery is recognised): {e}")
        return EX_TEMPFAIL
    return _verdict(code, text, permanent=EX_UNAVAILABLE)


def _verdict(code: int, text: str, permanent: int) -> int:
    if code == 250:
        return EX_OK
    _say(f"the server answered {code} {' '.join(text.splitlines())}")
    return permanent if 500 <= code < 600 else EX_TEMPFAIL


def _say(line: str) -> None:
    """To stderr, which the MTA logs (and quotes in a bounce): the logging package is not loaded."""
    print(f"pbm deliver: {line}", file=sys.stderr)


class _Lmtp:
    """The client side of LMTP (RFC 2033) on a Unix socket: a command, its answer."""

    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        try:
            self.sock.connect(path)
            self.answers = self.sock.makefile("rb")
            code, text = self.reply()
        except BaseException:
            self.sock.close()
            raise
        if code != 220:
            self.close()
            raise _Lost(f"greeted with {code} {text}")

    def command(self, line: str) -> tuple[int, str]:
        self.send(line.encode() + b"\r\n")
        return self.reply()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def reply(self) -> tuple[int, str]:
        """One answer: (code, its lines' text, one a line), read to its last line (`250 ...`, not
        `250-...`)."""
        lines = []
        while True:
            line = self.answers.readline(MAX_LINE + 2)
            if not line[:3].isdigit():
                raise _Lost(f"the server said {line[:80]!r}" if line else "the server closed the connection")
            lines.append(line[4:].strip().decode(errors="replace"))
            if line[3:4] != b"-":
                return int(line[:3]), "\n".join(lines)

    def close(self) -> None:
        try:
            self.command("QUIT")
        except (OSError, _Lost):
            pass
        self.sock.close()
