"""`python -m rules` run as a script would run it: a real subprocess, its output and its refusals."""
from __future__ import annotations

import subprocess
import sys

from support.processes import REPO


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rules", *args], input=stdin, capture_output=True,
                          text=True, cwd=REPO, timeout=60, check=False)


def ok(*args: str, stdin: str | None = None) -> str:
    done = run(*args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(*args: str, stdin: str | None = None) -> str:
    """Run a command that must fail cleanly; returns its message."""
    done = run(*args, stdin=stdin)
    assert done.returncode != 0, f"accepted: {args}\n{done.stdout}"
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip(), "a refusal must say why"
    return done.stderr
