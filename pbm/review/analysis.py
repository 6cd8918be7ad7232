"""What the engine's evaluations say about the moves: win %, each move's accuracy, the marks (?!, ?,
??), each side's accuracy and the turning points, with Lichess's published formulas
(https://lichess.org/page/accuracy; lila's WinPercent.scala and AccuracyPercent.scala).  Pure
arithmetic: the numbers in docs/review.md are these.
"""
from __future__ import annotations

import math
import statistics
from typing import NamedTuple

from pbm.review.search import Point

# win% = 50 + 50 * (2 / (1 + exp(-k * cp)) - 1).  Lichess fitted k on chess games; nobody has fitted
# it on Xiangqi or Janggi with Fairy-Stockfish's classical evaluation, so pbm uses chess's until it
# has enough games of its own to fit (docs/decisions.md).
K = {"xiangqi": 0.00368208, "janggi": 0.00368208}
CEILING = 1000                          # centipawns: a larger score (and a mate) counts as this
MARKS = ((30.0, "??"), (20.0, "?"), (10.0, "?!"))   # win % lost, at least: blunder, mistake, inaccuracy
TURNING_POINTS = 3


class Move(NamedTuple):
    """One move judged: ply 1 is the first move of the game."""
    ply: int
    side: int                           # 0: the first player (Red, Cho); 1: the second
    before: float                       # the mover's win % before the move ...
    after: float                        # ... and after it
    accuracy: float                     # 0-100
    mark: str                           # "", "?!", "?" or "??"
    engine: bool                        # it was the engine's own move (what it lost is noise)

    @property
    def lost(self) -> float:
        return max(0.0, self.before - self.after)


class Summary(NamedTuple):
    accuracy: tuple[float, float]       # each side's, 0-100 (Lichess's game accuracy)
    counts: tuple[dict[str, int], dict[str, int]]   # each side's marks: {"?!": n, "?": n, "??": n}


def win_percent(point: Point, variant: str) -> float:
    """The first player's winning chances in the position, 0-100."""
    if point.mate is not None:
        cp = CEILING if point.mate > 0 else -CEILING
    else:
        cp = max(-CEILING, min(CEILING, point.cp or 0))
    return 50 + 50 * (2 / (1 + math.exp(-K.get(variant, K["xiangqi"]) * cp)) - 1)


def move_accuracy(before: float, after: float) -> float:
    """Lichess's accuracy of a move that took the mover from `before` to `after` win %."""
    raw = 103.1668 * math.exp(-0.04354 * max(0.0, before - after)) - 3.1669
    return max(0.0, min(100.0, raw))


def mark(lost: float) -> str:
    return next((m for least, m in MARKS if lost >= least), "")


def curve(points: list[Point], variant: str) -> list[float]:
    """The first player's win % at every position: the start, then after each move."""
    return [win_percent(p, variant) for p in points]


def judge(points: list[Point], variant: str, played: list[str]) -> list[Move]:
    """Every move of the game (`played`) judged, from the evaluations before and after it (the first
    player makes the first move: pbm's player1 plays the side to move in the start position).  The
    engine's own move is never marked, as Lichess does: what it lost is the search's noise."""
    wins = curve(points, variant)
    moves = []
    for ply in range(1, len(points)):
        side = (ply - 1) % 2
        before, after = wins[ply - 1], wins[ply]
        if side == 1:
            before, after = 100 - before, 100 - after
        lost = max(0.0, before - after)
        best = points[ply - 1].best == played[ply - 1]
        moves.append(Move(ply, side, before, after, move_accuracy(before, after), "" if best else mark(lost),
                          best))
    return moves


def summary(moves: list[Move], wins: list[float]) -> Summary:
    """Each side's accuracy and marks.  Lichess's game accuracy: the mean of a mean weighted by how
    much the position swung around each move (windows of a tenth of the game, 2 to 8 positions,
    the standard deviation of win % clamped to 0.5-12) and the harmonic mean of the moves'."""
    size = max(2, min(8, len(wins) // 10))
    windows = [wins[:size]] * max(0, min(size, len(wins)) - 2) + \
        [wins[i:i + size] for i in range(0, max(1, len(wins) - size + 1))]
    weights = [max(0.5, min(12.0, statistics.pstdev(w))) for w in windows]
    accuracy = []
    counts = []
    for side in (0, 1):
        mine = [(m, weights[m.ply - 1] if m.ply - 1 < len(weights) else 0.5) for m in moves
                if m.side == side]
        if not mine:
            accuracy.append(100.0)
        else:
            weighted = sum(m.accuracy * w for m, w in mine) / sum(w for _m, w in mine)
            harmonic = statistics.harmonic_mean([max(m.accuracy, 0.01) for m, _w in mine])
            accuracy.append((weighted + harmonic) / 2)
        counts.append({m: sum(1 for move, _w in mine if move.mark == m) for _l, m in MARKS})
    return Summary((accuracy[0], accuracy[1]), (counts[0], counts[1]))


def turning_points(moves: list[Move], count: int = TURNING_POINTS) -> list[Move]:
    """The `count` moves that lost the most win %, in the order they were played (only moves that
    lost something, and not the engine's own)."""
    worst = sorted((m for m in moves if m.lost > 0 and not m.engine), key=lambda m: (-m.lost, m.ply))[:count]
    return sorted(worst, key=lambda m: m.ply)


def pawns(point: Point) -> str:
    """The evaluation as PGN's %eval writes it, from the first player's side: `0.35`, `#3`, `#-2`."""
    if point.mate is not None:
        return f"#{point.mate}"
    return f"{(point.cp or 0) / 100:.2f}"
