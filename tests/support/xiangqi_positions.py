"""Xiangqi test positions: published perft figures, hand-made edge cases, and seeded random playouts
played by Fairy-Stockfish (pyffish).

`playout(plan, checking_moves)` plays one seeded random game with pyffish and yields pyffish's
verdicts (FEN, legal moves, check, result) on every position as it goes; test_pyffish_diff.py compares
the rules core with them live. The same playouts, with pyffish's WXF string for every legal move, are
also stored in ``data/xiangqi_pyffish.json.gz`` for the command-line tests (test_rules_cli.py), which
want fixed named positions without asking pyffish themselves:

    python tests/xiangqi_positions.py            # rewrite tests/data/xiangqi_pyffish.json.gz
    python tests/xiangqi_positions.py --check    # replay with pyffish, report if the file differs

pyffish is GPL: it is imported only inside the functions that need it, and only tests use them.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from support import pyffish_playouts
from support.pyffish_playouts import CheckingMoves, PlayoutPlan, Verdicts, board

VARIANT = "xiangqi"
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
ORACLE_PATH = Path(__file__).parents[1] / "data" / "xiangqi_pyffish.json.gz"

# Published perft node counts (Fairy-Stockfish's test suite / chessprogramming wiki; the same figures
# as the published perft counts). Index i holds the count for depth i + 1.
PERFT: list[tuple[str, list[int]]] = [
    (START_FEN, [44, 1920, 79666, 3290240, 133312995]),
    ("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1", [38, 1128, 43929, 1339047]),
    ("4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1", [13, 272, 3707, 92741]),
]

# Hand-made positions for what random play rarely reaches: tandem pieces (WXF front/rear markers and
# the numbered-soldier form), a tandem piece whose twin is blocked or cannot move that way, pins by the
# facing kings, and stalemates (a loss for the stalemated side in Xiangqi).
EDGE_FENS: list[str] = [
    "3k5/9/4P4/4P4/2P1P1P2/2P3P2/9/9/9/5K3 w - - 0 1",  # soldiers: 3 tandem files incl. a triple
    "5k3/9/9/9/2p3p2/2p1p1p2/4p4/4p4/9/3K5 b - - 0 1",  # the same for Black
    "3k5/9/9/9/2P3P2/2P6/9/9/9/5K3 w - - 0 1",  # one tandem soldier file
    "3k5/9/9/9/2P3P2/2P3P2/9/9/9/5K3 w - - 0 1",  # two tandem soldier files
    "3k5/9/9/2P6/2P6/2P3P2/9/9/9/5K3 w - - 0 1",  # a triple whose rear soldier cannot move
    "5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1",  # tandem horses, rooks, cannons
    "3k5/9/9/2n1r1c2/9/2n1r1c2/9/9/9/5K3 b - - 0 1",  # the same for Black
    "5k3/9/9/9/4N4/3P5/4N4/9/9/3K5 w - - 0 1",  # tandem horses, one leg blocked
    "5k3/9/9/9/4R4/4P4/4R4/9/9/3K5 w - - 0 1",  # tandem rooks with a soldier between
    "5k3/9/9/9/9/9/9/2N6/9/2NK5 w - - 0 1",  # rear horse on the edge rank
    "5k3/9/9/9/9/6B2/9/3A5/9/3AK1B2 w - - 0 1",  # advisors and elephants sharing a file
    "3ak4/5a3/2b6/9/2b6/9/9/9/9/5K3 b - - 0 1",  # black elephants sharing a file, one blocked by its king
    "4k4/4c4/9/9/9/9/9/9/9/4K4 b - - 0 1",  # a cannon pinned between the kings
    "4k4/9/9/9/4N4/9/9/9/9/4K4 w - - 0 1",  # a horse pinned between the kings
    "3k5/4a4/9/9/9/9/9/9/4A4/5K3 w - - 0 1",  # kings on neighbouring files: the king may not step across
    "3k5/9/P2P5/9/2P6/9/9/4K4/9/9 b - - 0 52",  # stalemate (Black has no move, not in check)
    "5k3/4R4/9/9/9/6B2/9/4K4/4A4/7N1 b - - 8 36",  # stalemate
    "3a1kb2/9/9/9/2b6/9/9/4p4/3p5/4K4 w - - 28 66",  # stalemate of Red
    "4k4/4P4/9/9/9/9/9/9/9/3K5 b - - 0 1",  # Black king in check from a soldier
    "4k4/9/9/9/9/9/9/9/r8/1r1K5 w - - 0 1",  # checkmate of Red: two rooks and the facing kings
]

def playout_plans() -> list[PlayoutPlan]:
    plans: list[PlayoutPlan] = []
    for i in range(24):  # openings and middlegames from the start position
        plans.append(PlayoutPlan(f"start-{i:02d}", START_FEN, 4 + (i * 7) % 45, 0.3, 0.1))
    for i in range(20):  # capture-hungry, check-seeking games from the start to the end
        plans.append(PlayoutPlan(f"endgame-{i:02d}", START_FEN, 140, 0.9, 0.5))
    for k, (fen, _) in enumerate(PERFT[1:], start=1):
        for i in range(5):
            plans.append(PlayoutPlan(f"perft{k}-{i}", fen, 10 + 12 * i, 0.5 + 0.1 * i, 0.3))
    for k, fen in enumerate(EDGE_FENS):
        plans.append(PlayoutPlan(f"edge-{k:02d}", fen, 6, 0.3, 0.2))
    return plans


def tandem_files(fen: str) -> bool:
    """Whether some file holds two or more of the same piece of one side: the positions where WXF
    needs front/rear markers or numbered soldier columns."""
    files = [square[0] + piece for square, piece in board(fen).items()]
    return len(files) != len(set(files))


def playout(plan: PlayoutPlan, checking_moves: CheckingMoves) -> Iterator[Verdicts]:
    """One Xiangqi playout (pyffish_playouts.playout): stops after 50 plies without capture, long
    before the 120-ply draw (bare-king endings would otherwise shuffle on for a long time)."""
    return pyffish_playouts.playout(VARIANT, plan, checking_moves)


def _pyffish_checking_moves(fen: str, moves: list[str]) -> list[str]:
    import pyffish as sf

    return [m for m in moves if sf.gives_check(VARIANT, fen, [m])]


def _stored_playout(plan: PlayoutPlan) -> dict:
    """A playout as the stored file holds it: pyffish's verdicts and WXF string for every legal move."""
    import pyffish as sf

    verdicts = list(playout(plan, _pyffish_checking_moves))
    positions = [
        {
            "fen": v.fen,
            "check": v.check,
            "wxf": {m: sf.get_san(VARIANT, v.fen, m, False, sf.NOTATION_XIANGQI_WXF) for m in v.legal},
            "result": v.result,
        }
        for v in verdicts
    ]
    moves = [v.move for v in verdicts[1:]]
    return {"name": plan.name, "start_fen": plan.start_fen, "moves": moves, "positions": positions}


def build_stored_playouts(workers: int = 2) -> list[dict]:
    """All playouts in the stored file's form, in plan order."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_stored_playout, playout_plans()))


def load_oracle() -> list[dict]:
    """The stored playouts (see the module docstring)."""
    with gzip.open(ORACLE_PATH, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the stored file instead of writing it")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    playouts = build_stored_playouts(args.workers)
    if args.check:
        if playouts != load_oracle():
            print(f"{ORACLE_PATH} is not what pyffish plays and says now (pyffish version changed?)")
            return 1
        print(f"{ORACLE_PATH} matches pyffish")
        return 0
    ORACLE_PATH.parent.mkdir(exist_ok=True)
    with gzip.GzipFile(ORACLE_PATH, "wb", mtime=0) as raw:
        raw.write(json.dumps(playouts, separators=(",", ":")).encode("utf-8"))
    count = sum(len(p["positions"]) for p in playouts)
    print(f"wrote {ORACLE_PATH}: {len(playouts)} playouts, {count} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
