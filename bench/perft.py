"""Perft speed of the rules core: nodes per second per depth, checked against published counts.

    python bench/perft.py [--depth 4] [--variant xiangqi|janggi|padwarqi|giqi]   (all by default)

Counts come from ../shared/testdata/perft.json when it is there (or --data FILE); every figure is
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

DEFAULT_DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "testdata" / "perft.json"
OWN_DATA = [pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / f"perft_{game}.json"
            for game in ("padwarqi", "giqi")]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--variant", choices=("xiangqi", "janggi", "padwarqi", "giqi"))
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
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
