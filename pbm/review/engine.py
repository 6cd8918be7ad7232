"""A UCI engine in a process of its own, spoken to over a pipe.

The engines that know Xiangqi and Janggi (Fairy-Stockfish and its kin) are GPL: pbm imports none of
them, it starts one as a separate program and talks the Universal Chess Interface to it.  Every read
has a deadline, so an engine that hangs is killed instead of holding a worker for ever; one that dies,
prints what UCI does not say or is missing raises `EngineError`, whose text goes into the log, into
`pbm doctor` and into the review's row (which is then tried again later).
"""
from __future__ import annotations

import os
import re
import select
import shlex
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from pbm.config import Config

DEBIAN = "/usr/games/fairy-stockfish"   # where Debian's package puts it (not on a user's PATH)
INSTALL = "apt-get install fairy-stockfish"
START_TIMEOUT = 10.0                    # seconds for `uci` and `isready` to be answered
MAX_LINE = 65536                        # a longer line is garbage, not UCI


def uci_variant(variant: str, params: Mapping[str, object]) -> str | None:
    """The engine's UCI_Variant for a game of `variant` with `params`, or None where the engine cannot
    be given the game's rules (Padwar qi and Gi-Qi, which Fairy-Stockfish does not know).  pbm's
    Janggi without `points` ends a bikjang or two passes in a draw: Fairy-Stockfish's
    janggitraditional; with `points` those go to the side ahead on material: its janggi."""
    if variant == "xiangqi" and not params:
        return "xiangqi"
    if variant == "janggi":
        return "janggi" if params.get("points") else "janggitraditional"
    return None


class EngineError(Exception):
    """The engine is missing, died, hung or answered what UCI does not say; the text says which."""


@dataclass(frozen=True)
class Settings:
    """How the engine is started and how long it searches: `[review]`."""
    argv: tuple[str, ...]
    nodes: int
    threads: int
    hash: int
    timeout: float

    @classmethod
    def of(cls, config: Config, nodes: int | None = None) -> Settings | None:
        """The configured engine, or None when none is installed (reviews are then off)."""
        argv = command(config)
        if argv is None:
            return None
        r = config.review
        return cls(tuple(argv), nodes or r.nodes, r.threads, r.hash, r.timeout)


def command(config: Config) -> list[str] | None:
    """The engine's command line: `[review] engine`, else fairy-stockfish on PATH or in /usr/games;
    None when there is none."""
    if config.review.engine:
        return shlex.split(config.review.engine)
    found = shutil.which("fairy-stockfish")
    if found:
        return [found]
    return [DEBIAN] if os.access(DEBIAN, os.X_OK) else None


class Evaluation(NamedTuple):
    """The engine's verdict on one position, from the side to move's view."""
    cp: int | None                      # centipawns, when no mate is in sight
    mate: int | None                    # moves to mate: > 0 the side to move mates, <= 0 it is mated
    best: str | None                    # the best move (coordinates); None: the side to move has none
    line: tuple[str, ...]               # the principal variation, the best move first


_SCORE = re.compile(r"\bscore (cp|mate) (-?\d+)(?: (?:lowerbound|upperbound))?\b")
_PV = re.compile(r"\bpv ((?:\S+ ?)+)$")
_MOVE = re.compile(r"[a-z]\d{1,2}[a-z]\d{1,2}[a-z+]?")


class Engine:
    """One engine process, set up for one variant.  Use as a context manager; it is killed on exit."""

    def __init__(self, settings: Settings, variant: str):
        self.settings = settings
        self._buffer = b""
        try:
            self._process = subprocess.Popen(settings.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, bufsize=0, start_new_session=True)
        except OSError as e:
            raise EngineError(f"cannot start the engine {shlex.join(settings.argv)}: {e.strerror or e}; "
                              f"install one ({INSTALL}) or set [review] engine") from None
        try:
            self._send("uci")
            self._until("uciok", START_TIMEOUT, "uci")
            for name, value in (("UCI_Variant", variant), ("Threads", settings.threads),
                                ("Hash", settings.hash)):
                self._send(f"setoption name {name} value {value}")
            self._send("isready")
            self._until("readyok", START_TIMEOUT, "isready")
        except EngineError:
            self.close()
            raise

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        return self._process.pid

    def evaluate(self, fen: str, moves: list[str]) -> Evaluation:
        """The position after `moves` from `fen`, searched to `nodes`."""
        self._send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self._send(f"go nodes {self.settings.nodes}")
        deadline = time.monotonic() + self.settings.timeout
        score: tuple[str, int] | None = None
        line: tuple[str, ...] = ()
        while True:
            text = self._line(deadline, "go")
            if text.startswith("info "):
                found = _SCORE.search(text)
                if found and (" multipv " not in text or " multipv 1 " in text):
                    score = found.group(1), int(found.group(2))
                    pv = _PV.search(text)
                    line = tuple(pv.group(1).split()) if pv else line
            elif text.startswith("bestmove"):
                words = text.split()
                best = words[1] if len(words) > 1 else ""
                if best == "(none)":
                    return Evaluation(None, 0, None, ())
                if not _MOVE.fullmatch(best) or score is None:
                    raise EngineError(f"the engine answered {text[:80]!r} without a score or with no "
                                      f"move: not UCI")
                if not line or line[0] != best:
                    line = (best,)
                kind, value = score
                return Evaluation(value if kind == "cp" else None, value if kind == "mate" else None,
                                  best, tuple(m for m in line if _MOVE.fullmatch(m)))
            elif text and not text.startswith(("info", "id ", "option ")):
                raise EngineError(f"the engine printed {text[:80]!r}, which is not UCI")

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self._send("quit")
                self._process.wait(1)
            except (EngineError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream:
                stream.close()

    # --- the pipe ----------------------------------------------------------------------------------

    def _send(self, line: str) -> None:
        try:
            self._process.stdin.write(line.encode() + b"\n")
        except (BrokenPipeError, ValueError):
            raise self._died("a command") from None

    def _until(self, word: str, timeout: float, asked: str) -> None:
        deadline = time.monotonic() + timeout
        while self._line(deadline, asked).split()[:1] != [word]:
            pass

    def _line(self, deadline: float, asked: str) -> str:
        """The next line the engine prints, or EngineError once `deadline` passes or it dies."""
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._process.kill()
                raise EngineError(f"the engine did not answer {asked!r} within {self._seconds(asked)} s: "
                                  f"hung, killed")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._died(asked)
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE and b"\n" not in self._buffer:
                raise EngineError("the engine printed a line longer than 64 KB: not UCI")
        raw, _nl, self._buffer = self._buffer.partition(b"\n")
        try:
            return raw.decode().strip()
        except UnicodeDecodeError:
            raise EngineError(f"the engine printed bytes that are not text ({raw[:40]!r}): not UCI") from None

    def _seconds(self, asked: str) -> str:
        return f"{self.settings.timeout if asked == 'go' else START_TIMEOUT:g}"

    def _died(self, asked: str) -> EngineError:
        status = self._process.wait()
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        return EngineError(f"the engine died ({how}) after {asked!r}")
