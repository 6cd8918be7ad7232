"""ElephantEye's PGN reader (xqbase's own code for Chinese and WXF PGN) and vschess (the DhtmlXQ/dpxq
viewer, run with node), the Xiangqi programs players read records with, as the tests' references.

They come from the project's reference folder (`shared/refs/`, found above the checkout or named by
$PBM_REFS_BUILD, its build.sh); ElephantEye is built by that script into $PBM_REFS (default
/tmp/pbm-refs), as CI does.  A missing script, build or node fails the test that needs them: a
reference that is not there must never pass for a green run.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from support.refs import build_script, built


def iccs(move: str) -> str:
    """pbm's `h3e3` as the references print it: ranks 0-9 from Red's side (`h2e2`)."""
    fr_file, fr_rank, to_file, to_rank = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", move).groups()
    return f"{fr_file}{int(fr_rank) - 1}{to_file}{int(to_rank) - 1}"


def eleeye(path: Path, traditional: bool = False) -> tuple[str, list[str]]:
    """(start FEN's placement and side, moves) as ElephantEye's PgnFileStruct::Read reads the file's
    bytes (GBK, or Big5 with `traditional`)."""
    program = built() / "pgndump"
    if not program.is_file():
        raise FileNotFoundError(f"{program} was not built: see {program.parent}/pgndump.log")
    done = subprocess.run([str(program), str(path), *(["trad"] if traditional else [])],
                          capture_output=True, check=True)
    lines = dict(line.split(" ", 1) if " " in line else (line, "")
                 for line in done.stdout.decode("latin-1").splitlines())
    return lines["FEN"], lines["MOVES"].split()


def vschess(paths: list[Path], kind: str = "pgn") -> list[dict]:
    """What vschess reads from each file (its node build's dataToNode, as the page's reader does):
    {"fen", "moves" (ICCS, ranks 0-9), "comments", "info"} or {"error"}."""
    reader = build_script().parent / "vschess"
    done = subprocess.run(["node", str(reader / "read.js"), str(reader / "vschess.function.js"),
                           f"--type={kind}", *map(str, paths)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def vschess_names(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """vschess's own WXF and Chinese names (Node2WXF, Node2Chinese) of each (FEN, ICCS move)."""
    script = ("const v = require(process.argv[1]);"
              "for (const l of require('fs').readFileSync(0, 'utf8').split('\\n').filter(Boolean)) {"
              "  const [fen, mv] = l.split('\\t');"
              "  console.log(v.Node2WXF(mv, fen).move + '\\t' + v.Node2Chinese(mv, fen).move); }")
    done = subprocess.run(["node", "-e", script, str(build_script().parent / "vschess" / "vschess.function.js")],
                          input="".join(f"{fen}\t{move}\n" for fen, move in pairs),
                          capture_output=True, text=True, check=True)
    return [tuple(line.split("\t")) for line in done.stdout.splitlines()]
