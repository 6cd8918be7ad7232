"""Cost of the repetition referee: time per move in a 300-ply Xiangqi game full of long cycles.

    python bench/repetition.py [--rounds 5]

The game is six segments of 50 plies.  In each, six pieces per side go out and come back in the
same order (a 24-ply cycle), then go round again; just before the cycle closes for the second time,
soldier moves (every other segment a capture) break it for good.  So half of all positions occur for
the second time, where the referee must judge a whole cycle to say whether to warn the player, and
no position occurs a third time.  Printed: the time per move of `Game.play` plus `Game.warnings` on
a live game, and of what the server does for every command: `Game.from_record` of the stored game,
then its warnings.

A second, short game is the referee's worst case: a rook follows a cannon along a rank (a perpetual
chase), so every window must be judged to the end, warnings are due from the second occurrence on,
and the third ends the game.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import rules  # noqa: E402

OUT = {"w": "b1c3 h1g3 a1a2 i1i2 b3b4 h3h4".split(), "b": "b10c8 h10g8 a10a9 i10i9 b8b7 h8h7".split()}
BACK = {"w": "c3b1 g3h1 a2a1 i2i1 b4b3 h4h3".split(), "b": "c8b10 g8h10 a9a10 i9i10 b7b8 h7h8".split()}
# Per segment: a Red soldier move (a capture in every other segment), then a Black one.
BREAKS = [("a4a5", "a7a6"), ("a5a6", "c7c6"), ("c4c5", "i7i6"), ("c5c6", "g7g6"), ("g4g5", "e7e6"),
          ("g5g6", "e6e5")]


def interleave(red: list[str], black: list[str]) -> list[str]:
    return [m for pair in zip(red, black) for m in pair]


def game_moves() -> list[str]:
    cycle = interleave(OUT["w"], OUT["b"]) + interleave(BACK["w"], BACK["b"])
    moves: list[str] = []
    for red, black in BREAKS:
        # The last two returns are played in the other order around Red's soldier move, so that no
        # position of the break recurs in the next segment's cycle.
        moves += cycle + cycle[:-2] + [red, cycle[-1], cycle[-2], black]
    return moves


CHASE_FEN = "2bk2b2/9/3a5/p1p1c4/9/9/P1P6/9/4R4/2BK1AB2 b - - 0 1"


def chase_moves() -> list[str]:
    """The cannon runs e7-i7 and back, the rook follows on e2-i2, until the third occurrence."""
    files = "efghi"
    there = [m for i in range(4) for m in (f"{files[i]}7{files[i + 1]}7", f"{files[i]}2{files[i + 1]}2")]
    back = [m for i in range(4, 0, -1) for m in (f"{files[i]}7{files[i - 1]}7", f"{files[i]}2{files[i - 1]}2")]
    return (there + back) * 2


def per_move_ms(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return (f"mean {statistics.fmean(ms):.3f} ms, median {statistics.median(ms):.3f} ms, "
            f"p99 {ms[int(len(ms) * 0.99) - 1]:.3f} ms, max {ms[-1]:.3f} ms")


def measure(fen: str | None, moves: list[str], rounds: int) -> tuple[list[float], list[float], int, str]:
    """Per-move seconds (live play, server replay), positions seen before, and how it ended."""
    live, replay, repeated = [], [], 0
    for _ in range(rounds):
        game = rules.Game.new("xiangqi", fen=fen)
        for move in moves:
            start = time.perf_counter()
            game.play(move)
            game.warnings
            live.append(time.perf_counter() - start)
            repeated += bool(game.position.earlier_occurrences())
            if game.result != "*":
                break
        for ply in range(1, game.ply + 1):
            start = time.perf_counter()
            stored = rules.Game.from_record("xiangqi", None, fen, game.moves[:ply], game.notation[:ply])
            stored.warnings
            replay.append(time.perf_counter() - start)
    return live, replay, repeated // rounds, f"{game.ply} plies, {game.result} {game.reason or ''}".strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for title, fen, moves in (("long cycles, no third occurrence", None, game_moves()),
                              ("perpetual chase (worst case)", CHASE_FEN, chase_moves())):
        live, replay, repeated, ended = measure(fen, moves, args.rounds)
        print(f"{title}: {ended}; {repeated} positions judged (seen before); {args.rounds} rounds")
        print(f"  play + warnings per move:        {per_move_ms(live)}")
        print(f"  from_record + warnings per move: {per_move_ms(replay)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
