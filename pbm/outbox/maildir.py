"""The embedded default transport: each reply a file in a local Maildir, written idempotently."""
from __future__ import annotations

import functools
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

from pbm.config import Config
from pbm.model.db import parse_timestamp


class Maildir:
    """The embedded default: each reply becomes a file in a local Maildir (`new/`)."""

    idempotent = True                   # a second delivery of a row replaces the first

    def __init__(self, config: Config):
        # Paths as text: joining pathlib paths cost more than writing the files.
        self.tmp, self.new, self.cur = (os.path.join(config.outbox_maildir, sub)
                                        for sub in ("tmp", "new", "cur"))
        for folder in (config.outbox_maildir, self.tmp, self.new, self.cur):   # as mailbox.Maildir
            os.makedirs(folder, mode=0o700, exist_ok=True)     # makes them, without importing it
        self.domain = config.server.address.rpartition("@")[2]
        self._staged: list[tuple[str, int]] = []    # file name in tmp/, open descriptor
        self._bodies: dict[int, tuple[bytes, bytes]] = {}   # id -> a shared body, with LF line ends

    def send(self, row: dict) -> None:
        """Write the file to tmp/; `sync()` makes it durable and moves it into new/.

        Plain descriptors, kept open until `sync()`: Python's file objects cost three more system
        calls per file, and reopening for the fsync two more."""
        name = maildir_name(row, self.domain)
        if row["attempts"] > 1 and self._delivered(name):
            return                      # handed over before a crash, and already read from new/
        fd = os.open(f"{self.tmp}/{name}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            data = memoryview(self._lf(row["raw"], row["body"]))
            while data:
                data = data[os.write(fd, data):]
        except BaseException:
            os.close(fd)
            raise
        self._staged.append((name, fd))

    def _lf(self, raw: bytes, body: bytes) -> bytes:
        """`raw` with LF line ends, as a Maildir holds mail; the `body` it ends with converted once
        for all the copies of a mail that share it (pbm.outbox.queue)."""
        converted = self._bodies.get(id(body))
        if converted is None or converted[0] is not body:
            converted = self._bodies[id(body)] = (body, body.replace(b"\r\n", b"\n"))
        return raw[:len(raw) - len(body)].replace(b"\r\n", b"\n") + converted[1]

    def sync(self) -> None:
        """fsync the staged files (in a few parallel runs: the file system merges them into few
        journal commits), rename them into new/ (a resend replaces, never doubles), fsync new/."""
        if not self._staged:
            return
        names, fds = [name for name, _ in self._staged], [fd for _, fd in self._staged]
        runs = [fds[i::_FSYNC_THREADS] for i in range(min(_FSYNC_THREADS, len(fds)))]
        try:
            list(_FSYNC_POOL.map(_fsync_all, runs))
        finally:
            self.close()
        for name in names:
            os.replace(f"{self.tmp}/{name}", f"{self.new}/{name}")     # os.path.join: 3 more µs each
        _fsync(self.new)

    def _delivered(self, name: str) -> bool:
        return os.path.exists(os.path.join(self.new, name)) or any(
            entry.startswith(name + ":") for entry in os.listdir(self.cur))

    def close(self) -> None:
        """Close the staged files (a batch that fails before `sync()` is claimed again later)."""
        for _, fd in self._staged:
            os.close(fd)
        self._staged.clear()
        self._bodies.clear()


def maildir_name(row: dict, domain: str) -> str:
    """time.unique.host, all taken from the row, so the same reply always gets the same name."""
    epoch = _epoch(row["queued_at"])
    digest = hashlib.sha256(row["message_id"].encode()).hexdigest()[:16]
    return f"{epoch}.P{row['id']}Q{digest}.{domain.replace('/', '_').replace(':', '_')}"


@functools.lru_cache(maxsize=64)
def _epoch(queued_at: str) -> int:
    """The Unix time of a row's `queued_at`: the same for all the replies of a command."""
    return int(parse_timestamp(queued_at).timestamp())


# Kept for the life of the process: starting threads for every batch cost more than the fsyncs.
# Few threads, each with a run of files: a task per file cost more than its fsync.
_FSYNC_THREADS = 4
_FSYNC_POOL = ThreadPoolExecutor(max_workers=_FSYNC_THREADS, thread_name_prefix="pbm-fsync")


def _fsync_all(fds: list[int]) -> None:
    for fd in fds:
        os.fsync(fd)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
