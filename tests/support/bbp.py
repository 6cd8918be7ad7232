"""bbpPairings, the Dutch pairing engine FIDE endorses (2025 rules), as the tests' reference.

It is built from source by the project's reference script (`shared/refs/build.sh`, found above the
checkout or named by $PBM_REFS_BUILD; it builds once into $PBM_REFS, default /tmp/pbm-refs), as CI
does.  A missing script or a failed build fails the test that needs it: a reference that is not
there must never pass for a green run.
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
def program() -> str:
    """bbpPairings.exe, built if it is not yet."""
    done = subprocess.run(["sh", str(build_script())], capture_output=True, text=True, check=True)
    exe = Path(done.stdout.strip().splitlines()[-1]) / "bbpPairings.exe"
    if not exe.is_file():
        raise FileNotFoundError(f"{exe} was not built: see {exe.parent}/bbp.log")
    return str(exe)


def pair(trf: str, folder: Path) -> list[tuple[int, int]]:
    """bbpPairings' pairing of the round a TRF asks for: (White, Black) by starting rank, Black
    0 for the bye; [] when it finds no valid pairing (its exit code 1)."""
    source, out = folder / "round.trf", folder / "pairs.txt"
    source.write_text(trf, encoding="utf-8")
    done = subprocess.run([program(), "--dutch", str(source), "-p", str(out)],
                          capture_output=True, text=True)
    if done.returncode == 1:
        return []
    if done.returncode:
        raise RuntimeError(f"bbpPairings refused the file ({done.returncode}): {done.stderr}")
    lines = out.read_text().split("\n")
    return [(int(a), int(b)) for a, b in (line.split() for line in lines[1:int(lines[0]) + 1])]


def check(trf: str, folder: Path) -> str:
    """bbpPairings' checker (`-c`) on a whole TRF: its report, which lists under each "Round #N"
    line the pairings it would make where the file's differ (nothing when they agree)."""
    source = folder / "whole.trf"
    source.write_text(trf, encoding="utf-8")
    done = subprocess.run([program(), "--dutch", str(source), "-c"], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"bbpPairings refused the file ({done.returncode}): {done.stderr}")
    return done.stdout


def differences(report: str) -> list[str]:
    """The rounds the checker's report pairs differently ("FILE: Round #N" lines followed by
    pairs)."""
    found, current = [], None
    for line in report.splitlines():
        if "Round #" in line:
            current = line[line.index("Round #"):]
        elif line.strip() and current is not None:
            found.append(current)
            current = None
    return found
