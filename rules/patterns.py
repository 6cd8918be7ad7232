"""The movement vocabulary that variant tables are written in.

A variant never contains code: it lists, per piece type, a few of these patterns.  The compiler
(`rules.tables`) turns them into per-square lookup tables that the one move generator
(`rules.position`) reads.  Offsets are `(file, rank)` steps seen from the moving side, so `(0, 1)` is
"forward" for both players.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations, product

Offset = tuple[int, int]

ORTHOGONAL: tuple[Offset, ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL: tuple[Offset, ...] = ((1, 1), (1, -1), (-1, -1), (-1, 1))

# How a slider uses the first piece in its way.
SLIDE = "slide"          # moves to empty points, captures the first piece (rook)
CANNON = "cannon"        # moves like a rook, captures only by jumping exactly one screen (Xiangqi cannon)
HOP_ONLY = "hop-only"    # moves and captures only beyond exactly one screen that is not a cannon (Janggi)
HOP = "hop"              # moves and captures only beyond exactly one screen, any piece (Gi-Qi -koreancannons)


@dataclass(frozen=True)
class Leap:
    """Reach the last point of each path; every earlier point of the path must be empty.

    A plain step is a path of length one; the Xiangqi horse is `((0, 1), (1, 2))`: the first point is
    the leg that blocks it.  `stay_in` names a region every point of the path must lie in (palace, own
    half); `when` names a region the piece must stand in for the pattern to apply (a soldier's sideways
    step once it has crossed the river).  `moves`/`captures` say whether the pattern may end on an
    empty point / an enemy piece.  `lines="drawn-diagonals"`: every diagonal step of the path must
    follow a drawn diagonal line (Janggi palace lines).

    `mode` says how the points before the last are used, in the words of `Slide`: `SLIDE` (the
    default) needs them all empty; `CANNON` moves along an empty path but captures only where exactly
    one of them is occupied (the Padwar qi Martian cannon, a cannon that walks); `HOP_ONLY` moves and
    captures only over exactly one occupied point, which may not be a cannon, and never takes a cannon
    (the `-korean` Martian cannon).
    """

    paths: tuple[tuple[Offset, ...], ...]
    stay_in: str | None = None
    when: str | None = None
    moves: bool = True
    captures: bool = True
    lines: str | None = None
    mode: str = SLIDE


@dataclass(frozen=True)
class Slide:
    """Travel any distance in each direction; `mode` says how the first piece in the way is treated.

    `lines="drawn-diagonals"` restricts diagonal directions to the diagonal lines drawn on the board
    (Janggi palace lines): the ray stops where the drawn line ends.
    """

    directions: tuple[Offset, ...]
    mode: str = SLIDE
    stay_in: str | None = None
    when: str | None = None
    lines: str | None = None


def steps(offsets: tuple[Offset, ...], **kw) -> Leap:
    """One-point moves in each of `offsets`."""
    return Leap(paths=tuple((o,) for o in offsets), **kw)


UNITS = {"W": ORTHOGONAL, "F": DIAGONAL}


def walks(n: int, kinds: str, **kw) -> Leap:
    """Jetan-style walks of exactly `n` unit steps, each of any kind in `kinds` (W orthogonal, F
    diagonal), that never revisit a point (the start counts as visited).

    Every intermediate point must be empty, which `Leap` already enforces; different walks reaching the
    same destination become alternative paths, and the destination is legal if any of them is open.
    """
    return Leap(paths=_walk_paths([kinds] * n), **kw)


def walks_of(mix: str, **kw) -> Leap:
    """Walks made of exactly the steps in `mix`, in any order: "WF" is one W and one F either way round
    (the thoat), "FFW" two F and one W (the `-korean` padwar).  Otherwise as `walks`."""
    orders = sorted(set(permutations(mix)))
    paths: list[tuple[Offset, ...]] = []
    for order in orders:
        paths += [p for p in _walk_paths(list(order)) if p not in paths]
    return Leap(paths=tuple(paths), **kw)


def _walk_paths(kinds_per_step: list[str]) -> tuple[tuple[Offset, ...], ...]:
    """Every non-revisiting path whose i-th unit step is of a kind in `kinds_per_step[i]`."""
    choices = [tuple(o for k in kinds for o in UNITS[k]) for kinds in kinds_per_step]
    paths = []
    for seq in product(*choices):
        point, seen, path = (0, 0), {(0, 0)}, []
        for dx, dy in seq:
            point = (point[0] + dx, point[1] + dy)
            if point in seen:
                break
            seen.add(point)
            path.append(point)
        else:
            paths.append(tuple(path))
    return tuple(paths)


def mirrored(paths: tuple[tuple[Offset, ...], ...]) -> tuple[tuple[Offset, ...], ...]:
    """The paths together with their left-right mirror images (duplicates removed, order kept)."""
    out: list[tuple[Offset, ...]] = []
    for path in paths:
        for p in (path, tuple((-x, y) for x, y in path)):
            if p not in out:
                out.append(p)
    return tuple(out)


def rotations(paths: tuple[tuple[Offset, ...], ...]) -> tuple[tuple[Offset, ...], ...]:
    """The paths turned to all four orthogonal directions (duplicates removed, order kept)."""
    out: list[tuple[Offset, ...]] = []
    for path in paths:
        p = path
        for _ in range(4):
            if p not in out:
                out.append(p)
            p = tuple((y, -x) for x, y in p)
    return tuple(out)
