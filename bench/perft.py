"""Perft speed of the rules core: nodes per second per depth, checked against published counts.

    python bench/perft.py [--depth 4] [--variant xiangqi|janggi|padwarqi|giqi]   (all by default)

Counts come from --data FILE, else from the first `shared/testdata/perft.json` found beside the
checkout or the current folder or any folder above them; where there is none, from the Xiangqi counts
the tests keep (tests/support/xiangqi_positions.py), so the bench runs from anywhere.  Every figure is
checked, so a fast but wrong generator fails here too.  Janggi's published counts include the pass;
up to depth 3 they go on past a pass that ends the game (bikjang, two passes in a row), from depth 4
they stop there as Fairy-Stockfish's perft does, so those are counted with `game_ends=True`.  Janggi
also gets the four arrangements of Cho's horses and elephants at depth 3.  Padwar qi and Gi-Qi-Game have no
published counts: their figures are the project's own, pinned in tests/data/perft_padwarqi.json and
perft_giqi.json after checking them against a second, simple generator written from the spec.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import rules  # noqa: E402

CHECKOUT = pathlib.Path(__file__).resolve().parents[1]
OWN_DATA = [CHECKOUT / "tests" / "data" / f"perft_{game}.json" for game in ("padwarqi", "giqi")]
GAME_ENDS_FROM_DEPTH = {"janggi": 4}
ARRANGEMENT_DEPTH_3 = {"janggi": {"inner": 33032, "left": 33200, "right": 33200, "outer": 33368}}


def measure(label: str, expected: int, count) -> bool:
    start = time.perf_counter()
    nodes = count()
    seconds = time.perf_counter() - start
    ok = "ok" if nodes == expected else f"WRONG (expected {expected})"
    rate = nodes / seconds if seconds else float("inf")
    print(f"  {label}: {nodes:>10} nodes {seconds:8.2f} s {rate:>12,.0f} nodes/s  {ok}")
    return nodes == expected


def published_counts(given: pathlib.Path | None) -> dict:
    """The published counts: the file given, the shared test data found upwards, or the tests' own."""
    if given is not None:
        return json.loads(given.read_text())
    for folder in (CHECKOUT, *CHECKOUT.parents, pathlib.Path.cwd(), *pathlib.Path.cwd().parents):
        candidate = folder / "shared" / "testdata" / "perft.json"
        if candidate.is_file():
            print(f"published counts: {candidate}")
            return json.loads(candidate.read_text())
    sys.path.insert(0, str(CHECKOUT / "tests"))
    from support.xiangqi_positions import PERFT
    print("published counts: no shared/testdata/perft.json found (give --data FILE); "
          "Xiangqi's from tests/support/xiangqi_positions.py, Janggi's left out")
    return {"xiangqi": [{"fen": fen, "nodes": nodes} for fen, nodes in PERFT], "janggi": []}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--variant", choices=("xiangqi", "janggi", "padwarqi", "giqi"))
    parser.add_argument("--data", type=pathlib.Path, help="published counts (JSON, as shared/testdata's)")
    args = parser.parse_args()
    data = published_counts(args.data)
    for own in OWN_DATA:
        data |= json.loads(own.read_text())
    failures = 0
    for variant in [args.variant] if args.variant else ["xiangqi", "janggi", "padwarqi", "giqi"]:
        print(f"== {variant}")
        for case in data[variant]:
            params = case.get("params", {})
            print(case["fen"], " ".join(f"-{p}" for p in params))
            for depth, expected in enumerate(case["nodes"][: args.depth], start=1):
                ends = depth >= GAME_ENDS_FROM_DEPTH.get(variant, depth + 1)
                label = f"depth {depth}" + (" (stopping at game ends)" if ends else "")
                failures += not measure(label, expected, lambda: rules.perft(
                    variant, case["fen"], depth, params, game_ends=ends))
        for key, expected in ARRANGEMENT_DEPTH_3.get(variant, {}).items():
            print(f"start, Cho's arrangement {key}")
            failures += not measure("depth 3", expected, lambda: rules.perft(variant, None, 3, {"cho": key}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
