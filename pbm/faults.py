"""Crash points for the crash tests: `PBM_FAULT=after-commit` makes the process SIGKILL itself there.

A real kill -9, not an exception, so that nothing (no finally, no atexit, no buffered write) runs
after it: exactly what a power cut or the OOM killer does.  PBM_FAULT holds comma-separated names:

- `after-commit`:  intake committed a message and its replies, before answering (250, exit 0)
                   and before sending the replies.
- `while-sending`: the outbox handed a reply over (Maildir file in place, or relay said 250),
                   before the outbox row is marked sent.
- `while-drawing`: a drawing process of `pbm serve`'s outbox (pbm.runners.outbox.Drawers) is
                   drawing a picture of a batch not yet sent.

and one that raises instead, for the path of a bug in a command:

- `command-error`: `InjectedFault` is raised right after the command ran, before its replies
                   are queued.
"""
from __future__ import annotations

import os
import signal


class InjectedFault(Exception):
    """Raised at an error point named in PBM_FAULT."""


def _armed(name: str) -> bool:
    return name in os.environ.get("PBM_FAULT", "").split(",")


def crash_point(name: str) -> None:
    if _armed(name):
        os.kill(os.getpid(), signal.SIGKILL)


def error_point(name: str) -> None:
    if _armed(name):
        raise InjectedFault(name)
