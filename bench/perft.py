"""Perft speed of the rules core: nodes per second per depth, checked against published counts.

    python bench/perft.py [--depth 4] [--variant xiangqi]

Counts come from ../shared/testdata/perft.json when it is there (or --data FILE); every figure is
checked, so a fast but wrong generator fails here too.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--variant", default="xiangqi")
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    cases = json.loads(args.data.read_text())[args.variant]
    failures = 0
    for case in cases:
        print(case["fen"])
        for depth, expected in enumerate(case["nodes"][: args.depth], start=1):
            start = time.perf_counter()
            nodes = rules.perft(args.variant, case["fen"], depth)
            seconds = time.perf_counter() - start
            ok = "ok" if nodes == expected else f"WRONG (expected {expected})"
            rate = nodes / seconds if seconds else float("inf")
            print(f"  depth {depth}: {nodes:>10} nodes {seconds:8.2f} s {rate:>12,.0f} nodes/s  {ok}")
            failures += nodes != expected
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
