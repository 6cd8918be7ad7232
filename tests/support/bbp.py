"""bbpPairings, the Dutch pairing engine FIDE endorses (2025 rules), as the tests' reference.

It is built from source by the project's reference script (`shared/refs/build.sh`, found above the
checkout or named by $PBM_REFS_BUILD; it builds once into $PBM_REFS, default /tmp/pbm-refs), as CI
does.  A missing script or a failed build fails the test that needs it: a reference that is not
there must never pass for a green run.
"""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from support.refs import built


@functools.cache
def program() -> str:
    """bbpPairings.exe, built if it is not yet."""
    exe = built() / "bbpPairings.exe"
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
