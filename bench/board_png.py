"""What a board picture costs: the PNG's size and the time to draw it, per game, against drawing the
SVG of the same board in the same run.

    python bench/board_png.py [--boards 100] [--seed 1]

For each game, `--boards` positions from random playouts (10 to 150 plies from the start, each drawn
from a side chosen at random): the median and largest PNG in bytes, the median time to draw one with
the per-view cache off (pbm.pictures.drawing.draw: the board without pieces and the pieces' sprites stay
cached per game, as in a running server), the first picture's time (those caches cold), the median
time and size of rules.board_svg for the same boards, and the ratio of the two median times.
Prints JSON.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import random
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

from support.playouts import random_games  # noqa: E402

import rules  # noqa: E402
from pbm.pictures import drawing as pictures  # noqa: E402


def timed(work) -> tuple[float, object]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def measure(name: str, boards: int, rnd: random.Random) -> dict:
    png_times, svg_times, sizes, svg_sizes = [], [], [], []
    for game in random_games(name, boards, rnd):
        turned = rnd.random() < 0.5
        view = pictures.view_of(game, turned=turned)
        seconds, picture = timed(lambda: pictures.draw(view))
        png_times.append(seconds)
        sizes.append(len(picture.data))
        seconds, svg = timed(lambda: game.board_svg(turned))
        svg_times.append(seconds)
        svg_sizes.append(len(svg.encode()))
    png, svg = statistics.median(png_times), statistics.median(svg_times)
    return {"boards": boards, "width": picture.width, "height": picture.height,
            "png_bytes_median": int(statistics.median(sizes)), "png_bytes_max": max(sizes),
            "png_ms_median": round(png * 1000, 2), "png_ms_first": round(png_times[0] * 1000, 2),
            "svg_ms_median": round(svg * 1000, 3), "png_over_svg_time": round(png / svg, 1),
            "svg_bytes_median": int(statistics.median(svg_sizes))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    report = {name: measure(name, args.boards, rnd) for name in rules.variant_names()}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
