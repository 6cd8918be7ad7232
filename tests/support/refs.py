"""The field's own programs the tests check pbm against (`shared/refs/`: ElephantEye's PGN reader,
vschess, bbpPairings), found above the checkout or named by $PBM_REFS_BUILD, and built once by its
build.sh into $PBM_REFS (default /tmp/pbm-refs), as CI does.  A missing script or a failed build
fails the test that needs it: a reference that is not there must never pass for a green run.
"""
from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path


def build_script() -> Path:
    """The reference build script: $PBM_REFS_BUILD, or `shared/refs/build.sh` in a folder above."""
    if os.environ.get("PBM_REFS_BUILD"):
        return Path(os.environ["PBM_REFS_BUILD"])
    for folder in Path(__file__).resolve().parents:
        if (folder / "shared" / "refs" / "build.sh").is_file():
            return folder / "shared" / "refs" / "build.sh"
    raise FileNotFoundError("no shared/refs/build.sh above the checkout: set PBM_REFS_BUILD")


@functools.cache
def built() -> Path:
    """The folder the references are built into."""
    done = subprocess.run(["sh", str(build_script())], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip().splitlines()[-1])
