"""Processes that draw the board pictures of `pbm serve`'s outbox, one a core.

Drawing is most of the outbox's work (pbm.pictures.deferred), and one process uses one core.  The
outbox process is a daemonic child of `pbm serve`, which multiprocessing does not let have children
of its own, so the drawers are plain subprocesses (`python -m pbm.runners.drawers`) that read a
view's token a line and answer its picture's base64 lines, length first.  Drawing is pure: a drawer
that dies (or is killed: `PBM_FAULT=while-drawing`) costs only time -- its pictures are drawn by the
outbox process as it fills the mails, and the drawer is started again for the next batch.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from typing import BinaryIO

from pbm.pictures import deferred
from pbm.runners.processes import name_process

log = logging.getLogger(__name__)


class Drawers:
    """The pool of drawing processes; `draw(raws)` draws a batch's pictures before it is sent."""

    def __init__(self, count: int | None = None):
        self.count = count if count is not None else os.cpu_count() or 1
        self.processes: list[subprocess.Popen | None] = [None] * self.count

    def __call__(self, raws: list[bytes]) -> None:
        if self.count < 2:
            return                      # one core: the sender draws as it fills
        tokens = deferred.undrawn(raws)
        if len(tokens) < 2:
            return                      # one picture is drawn sooner by the sender itself
        for start in range(0, len(tokens), self.count):
            asked = [(index, token) for index, token in enumerate(tokens[start:start + self.count])
                     if self._ask(index, token)]
            for index, token in asked:          # every drawer of the round draws at once
                lines = self._answer(index)
                if lines is not None:
                    deferred.keep(token, lines)

    def _ask(self, index: int, token: bytes) -> bool:
        process = self._process(index)
        try:
            process.stdin.write(token + b"\n")
            process.stdin.flush()
            return True
        except OSError:
            self._died(index)
            return False

    def _answer(self, index: int) -> bytes | None:
        try:
            return _read_answer(self.processes[index].stdout)
        except (OSError, ValueError, EOFError):
            self._died(index)
            return None

    def _died(self, index: int) -> None:
        log.warning("outbox: a drawing process died; its pictures are drawn by the outbox "
                    "process, and it is started again")
        self._stop(index)

    def _process(self, index: int) -> subprocess.Popen:
        process = self.processes[index]
        if process is None or process.poll() is not None:
            process = subprocess.Popen([sys.executable, "-m", "pbm.runners.drawers"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.processes[index] = process
        return process

    def _stop(self, index: int) -> None:
        process = self.processes[index]
        self.processes[index] = None
        if process is not None:
            process.kill()
            process.wait()

    def close(self) -> None:
        for index in range(self.count):
            self._stop(index)


def _read_answer(stream: BinaryIO) -> bytes | None:
    header = stream.readline()
    if not header:
        raise EOFError("the drawer is gone")
    size = int(header)
    return stream.read(size) if size else None


def main() -> None:
    """A drawer: a token a line in, `SIZE\\n` and the base64 lines out (0: could not be drawn)."""
    name_process("pbm-drawer")
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        lines = deferred.draw_token(line.strip())
        out.write(b"%d\n" % len(lines or b""))
        out.write(lines or b"")
        out.flush()


if __name__ == "__main__":
    main()
