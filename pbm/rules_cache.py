"""The rules core's compiled move tables, kept on disk between processes (rules.tables.store).

Compiling Xiangqi's tables takes about 60 ms, which `pbm serve` pays once but a `pbm deliver` (a
process per message) paid for every message; reading them back takes about 5 ms.  They live in
the data directory (0700: a pickle is code, and only the server writes there), one file per variant
and parameters, named by a fingerprint of the rules core's source, so that an upgrade never reads
tables an older core compiled.  A file that cannot be read is compiled again and rewritten.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import cached_property
from pathlib import Path

import rules
from rules import tables
from rules.variant import Variant


class DiskTables:
    def __init__(self, folder: Path):
        self.folder = folder

    @cached_property
    def fingerprint(self) -> str:
        digest = hashlib.sha256(sys.version.encode())
        package = Path(rules.__file__).parent
        for source in sorted(package.rglob("*.py")):
            digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
        return digest.hexdigest()[:16]

    def _path(self, v: Variant) -> Path:
        params = hashlib.sha256(repr(sorted(v.params)).encode()).hexdigest()[:8]
        return self.folder / f"tables-{v.name}-{params}-{self.fingerprint}.pickle"

    def load(self, v: Variant) -> tables.Tables | None:
        try:
            with open(self._path(v), "rb") as f:
                found = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
            return None
        return found if isinstance(found, tables.Tables) and found.variant.name == v.name else None

    def save(self, v: Variant, compiled: tables.Tables) -> None:
        path = self._path(v)
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            with open(temporary, "wb") as f:
                pickle.dump(compiled, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)     # whole or not at all, whoever reads it meanwhile
        except OSError:
            pass                            # a cache: the next process compiles them again


def install(folder: Path) -> None:
    """Keep compiled tables in `folder` from now on, in this process."""
    tables.store = DiskTables(folder)
