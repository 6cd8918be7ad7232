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
from collections import deque
from typing import BinaryIO

from pbm.pictures import deferred
from pbm.runners.processes import name_process

log = logging.getLogger(__name__)

# Views asked of a drawer at once: it goes on to the next while the outbox reads an answer or waits
# for another drawer's (drawn in rounds of one a drawer, each drawer waited for the slowest of the
# round).  A few hundred bytes of tokens: its input pipe never fills.
DEPTH = 8


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
        waiting = tokens[::-1]          # the next one to hand out last
        asked: list[deque[bytes]] = [deque() for _ in range(self.count)]
        for index in range(self.count):
            self._give(index, waiting, asked[index])
        while any(asked):
            for index, queue in enumerate(asked):
                if not queue:
                    continue
                token = queue.popleft()
                lines = self._answer(index) if self.processes[index] is not None else None
                if self.processes[index] is None:
                    queue.clear()       # it died: the sender draws its pictures as it fills
                    continue
                if lines is not None:
                    deferred.keep(token, lines)
                self._give(index, waiting, queue)

    def _give(self, index: int, waiting: list[bytes], queue: deque[bytes]) -> None:
        """Keep DEPTH views asked of drawer `index`: it draws the next while its answers are read."""
        while waiting and len(queue) < DEPTH:
            token = waiting.pop()
            if not self._ask(index, token):
                return
            queue.append(token)

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
