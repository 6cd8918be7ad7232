"""Compile a `Variant` into the per-square lookup tables the move generator reads.

Why tables: in pure Python the cost of move generation is the number of interpreted operations, so
every question that depends only on the board geometry (where can a horse on b1 go, which point is its
leg, which points could attack e1) is answered once, here, and the generator only looks at occupancy.

Squares are numbered `rank * width + file` (rank 0 = the first player's back rank).  One extra square,
`sentinel`, is always empty: leap entries have exactly two "must be empty" slots, padded with it, so the
hot loop tests `board[b1] or board[b2]` without branching on path length.  Paths with more than two
intermediate points are not needed by any of the four games.

Piece codes: `2 * (type_index + 1) + side`; 0 is an empty point, so `code & 1` is the side.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Protocol

from rules.patterns import CANNON, HOP, HOP_ONLY, SLIDE, Leap, Slide
from rules.variant import Variant

LeapEntry = tuple[int, int, int]  # (to, must-be-empty, must-be-empty)


@dataclass
class Tables:
    """The precomputed move tables of one variant."""
    variant: Variant
    n: int
    sentinel: int
    codes: tuple[int, ...]                    # every piece code in use
    royal: frozenset[int]                      # codes of royal pieces
    cannon_codes: frozenset[int]               # pieces a hop-only cannon may neither jump nor take
    # Indexed [code][square]:
    leaps: list[list[tuple[LeapEntry, ...]]]           # move or capture
    leaps_quiet: list[list[tuple[LeapEntry, ...]]]     # move only
    leaps_capture: list[list[tuple[LeapEntry, ...]]]   # capture only
    multi_leaps: list[list[tuple[tuple[int, bool, bool, tuple[tuple[int, int], ...]], ...]]]
    # Walks over exactly one screen: (to, moves, captures, strict, alternative (p1, p2) pairs); strict
    # means the screen may not be a cannon and a cannon is never taken (Leap modes CANNON, HOP_ONLY).
    screen_leaps: list[list[tuple[tuple[int, bool, bool, bool, tuple[tuple[int, int], ...]], ...]]]
    rays: list[list[tuple[tuple[int, ...], ...]]]      # SLIDE
    cannon_rays: list[list[tuple[tuple[int, ...], ...]]]
    hop_rays: list[list[tuple[tuple[tuple[int, ...], bool], ...]]]  # (ray, strict): HOP_ONLY is strict
    # Attack lookups, indexed [attacking side][target square]:
    rev_leaps: list[list[tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]]]
    rev_screens: list[list[tuple[tuple[int, int, bool, tuple[tuple[int, int], ...]], ...]]]
    rev_rays: list[list[tuple[tuple[tuple[int, ...], tuple[frozenset, ...], tuple[frozenset, ...],
                                     tuple[frozenset, ...]], ...]]]
    # Points whose change can expose a king on the target square, [attacking side][king square]:
    guard_from: list[list[frozenset[int]]]
    guard_to: list[list[frozenset[int]]]
    # Rules beyond "pseudo-legal and the king not attacked" (pass, bikjang): legal_moves asks for them.
    king_rules: bool = False

    def code(self, type_index: int, side: int) -> int:
        return 2 * (type_index + 1) + side

    def piece_type(self, code: int):
        return self.variant.pieces[(code >> 1) - 1]


def _square(v: Variant, f: int, r: int) -> int | None:
    return r * v.width + f if 0 <= f < v.width and 0 <= r < v.height else None


def _in(v: Variant, region: str | None, f: int, r: int, side: int) -> bool:
    return region is None or v.regions[region].contains(f, r, side, v.height)


def _orient(offset: tuple[int, int], side: int) -> tuple[int, int]:
    """Offsets are written from the mover's seat: the second player's board is turned half round."""
    return offset if side == 0 else (-offset[0], -offset[1])


def _drawn_edges(v: Variant) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    edges = set()
    for chain in v.diagonals:
        for a, b in zip(chain, chain[1:]):
            edges.add((a, b))
            edges.add((b, a))
    return edges


def _leap_targets(v: Variant, pat: Leap, side: int, f: int, r: int) -> dict[int, list[tuple[int, ...]]]:
    """Destination -> the alternative lists of points that must be empty to get there."""
    out: dict[int, list[tuple[int, ...]]] = {}
    if not _in(v, pat.when, f, r, side):
        return out
    edges = _drawn_edges(v) if pat.lines == "drawn-diagonals" else None
    for path in pat.paths:
        points = []
        last = (f, r)
        for off in path:
            dx, dy = _orient(off, side)
            pf, pr = f + dx, r + dy
            sq = _square(v, pf, pr)
            if sq is None or not _in(v, pat.stay_in, pf, pr, side):
                break
            if edges is not None and pf != last[0] and pr != last[1] and (last, (pf, pr)) not in edges:
                break
            points.append(sq)
            last = (pf, pr)
        else:
            blocks = tuple(points[:-1])
            if len(blocks) > 2:
                raise ValueError(f"{path}: leap tables hold at most two points before the destination")
            alts = out.setdefault(points[-1], [])
            if blocks not in alts:
                alts.append(blocks)
    return out


def _merge(into: list[tuple[int, ...]], alts: list[tuple[int, ...]]) -> None:
    """Add blocking lists not yet among a destination's alternatives (two patterns may reach it)."""
    into += [a for a in alts if a not in into]


def _rays(v: Variant, pat: Slide, side: int, f: int, r: int) -> list[tuple[int, ...]]:
    if not _in(v, pat.when, f, r, side):
        return []
    edges = _drawn_edges(v) if pat.lines == "drawn-diagonals" else None
    rays = []
    for off in pat.directions:
        dx, dy = _orient(off, side)
        ray, pf, pr = [], f, r
        while True:
            nf, nr = pf + dx, pr + dy
            sq = _square(v, nf, nr)
            if sq is None or not _in(v, pat.stay_in, nf, nr, side):
                break
            if edges is not None and dx and dy and ((pf, pr), (nf, nr)) not in edges:
                break
            ray.append(sq)
            pf, pr = nf, nr
        if ray:
            rays.append(tuple(ray))
    return rays


def _compile(v: Variant) -> Tables:
    n = v.width * v.height
    sentinel = n
    size = 2 * (len(v.pieces) + 1)
    empty = lambda: [[() for _ in range(n)] for _ in range(size)]  # noqa: E731
    leaps, quiet, capture, multi, screen = empty(), empty(), empty(), empty(), empty()
    rays, cannon_rays, hop_rays = empty(), empty(), empty()
    by_mode = {SLIDE: rays, CANNON: cannon_rays}
    codes, royal, cannons = [], set(), set()
    # Attack sources: (attacker side, target) -> ...
    rev_leap_groups: dict[tuple[int, int], dict[tuple[int, int], list[tuple[int, int]]]] = defaultdict(dict)
    rev_screen_groups: dict[tuple[int, int], dict[tuple[int, int, bool], list[tuple[int, int]]]] = \
        defaultdict(dict)
    rev_paths: dict[tuple[int, int], list[tuple[tuple[int, ...], int, str]]] = defaultdict(list)

    for t, ptype in enumerate(v.pieces):
        for side in (0, 1):
            code = 2 * (t + 1) + side
            codes.append(code)
            if ptype.royal:
                royal.add(code)
            if ptype.role == "cannon":
                cannons.add(code)
            patterns = list(ptype.patterns)
            for sq in range(n):
                f, r = sq % v.width, sq // v.width
                # (moves, captures) -> destination -> alternative blocking lists; and the same for
                # walks over a screen, keyed by (moves, captures, strict).
                acc: dict[tuple[bool, bool], dict[int, list[tuple[int, ...]]]] = {}
                over: dict[tuple[bool, bool, bool], dict[int, list[tuple[int, ...]]]] = {}
                for pat in patterns:
                    if isinstance(pat, Leap):
                        targets = _leap_targets(v, pat, side, f, r)
                        if pat.mode == SLIDE:
                            plain, screened = (pat.moves, pat.captures), None
                        elif pat.mode == CANNON:   # moves along an empty walk, captures over a screen
                            plain = (True, False) if pat.moves else None
                            screened = (False, True, False) if pat.captures else None
                        else:                      # HOP_ONLY: moves and captures over a screen
                            plain, screened = None, (pat.moves, pat.captures, True)
                        for to, alts in targets.items():
                            if plain:
                                _merge(acc.setdefault(plain, {}).setdefault(to, []), alts)
                                if plain[1]:
                                    for blocks in alts:
                                        padded = (tuple(blocks) + (sentinel, sentinel))[:2]
                                        group = rev_leap_groups[(side, to)].setdefault(padded, [])
                                        if (sq, code) not in group:
                                            group.append((sq, code))
                            if screened:
                                _merge(over.setdefault(screened, {}).setdefault(to, []), alts)
                                if screened[1]:
                                    for blocks in alts:
                                        key = (*(tuple(blocks) + (sentinel, sentinel))[:2], screened[2])
                                        group = rev_screen_groups[(side, to)].setdefault(key, [])
                                        if (sq, code) not in group:
                                            group.append((sq, code))
                    else:
                        found = _rays(v, pat, side, f, r)
                        if pat.mode in (HOP, HOP_ONLY):
                            hop_rays[code][sq] += tuple((ray, pat.mode == HOP_ONLY) for ray in found)
                        else:
                            by_mode[pat.mode][code][sq] += tuple(found)
                        for ray in found:
                            for i, target in enumerate(ray):
                                back = tuple(reversed(ray[:i])) + (sq,)
                                rev_paths[(side, target)].append((back, code, pat.mode))
                for (moves, captures, strict), dests in over.items():
                    screen[code][sq] += tuple(
                        (to, moves, captures, strict,
                         tuple((tuple(a) + (sentinel, sentinel))[:2] for a in alts))
                        for to, alts in dests.items())
                if ptype.royal and not v.kings_may_face:
                    # Facing kings: for attack purposes the king "sees" along its file (Gi-Qi-Game:
                    # every line) like a rook.
                    for ray in _rays(v, Slide(v.facing), side, f, r):
                        for i, target in enumerate(ray):
                            back = tuple(reversed(ray[:i])) + (sq,)
                            rev_paths[(side, target)].append((back, code, "face"))
                tables = {(True, True): leaps, (True, False): quiet, (False, True): capture}
                for (moves, captures), dests in acc.items():
                    single = []
                    for to, alts in dests.items():
                        if len(alts) == 1 and len(alts[0]) <= 2:
                            single.append((to, *(alts[0] + (sentinel, sentinel))[:2]))
                        else:
                            multi[code][sq] += ((to, moves, captures, tuple(
                                (tuple(a) + (sentinel, sentinel))[:2] for a in alts)),)
                    tables[(moves, captures)][code][sq] += tuple(single)

    rev_leaps = [[() for _ in range(n)] for _ in range(2)]
    for (side, target), groups in rev_leap_groups.items():
        rev_leaps[side][target] = tuple((b1, b2, tuple(pairs)) for (b1, b2), pairs in groups.items())
    rev_screens = [[() for _ in range(n)] for _ in range(2)]
    for (side, target), sgroups in rev_screen_groups.items():
        rev_screens[side][target] = tuple((b1, b2, strict, tuple(pairs))
                                          for (b1, b2, strict), pairs in sgroups.items())

    rev_rays = [[() for _ in range(n)] for _ in range(2)]
    for (side, target), paths in rev_paths.items():
        lines: dict[int, tuple[int, ...]] = {}
        for back, _, _ in paths:
            cur = lines.get(back[0], ())
            longer, shorter = (back, cur) if len(back) > len(cur) else (cur, back)
            assert longer[:len(shorter)] == shorter, "slides must run along straight lines"
            lines[back[0]] = longer
        out = []
        for first, line in lines.items():
            direct = [set() for _ in line]
            hop = [set() for _ in line]
            hop_strict = [set() for _ in line]
            for back, code, mode in paths:
                if back[0] != first:
                    continue
                i = len(back) - 1
                by_kind = {SLIDE: direct, "face": direct, CANNON: hop, HOP: hop, HOP_ONLY: hop_strict}
                by_kind[mode][i].add(code)
            out.append((line, tuple(map(frozenset, direct)), tuple(map(frozenset, hop)),
                        tuple(map(frozenset, hop_strict))))
        rev_rays[side][target] = tuple(out)

    guard_from = [[frozenset() for _ in range(n)] for _ in range(2)]
    guard_to = [[frozenset() for _ in range(n)] for _ in range(2)]
    for side in (0, 1):
        for target in range(n):
            on_lines = {sq for line, *_ in rev_rays[side][target] for sq in line}
            legs = {b for b1, b2, _ in rev_leaps[side][target] for b in (b1, b2) if b != sentinel}
            # A walk over a screen opens when a piece leaves one of its two points or lands on one.
            screens = {b for b1, b2, _, _ in rev_screens[side][target] for b in (b1, b2) if b != sentinel}
            guard_from[side][target] = frozenset(on_lines | legs | screens | {target})
            guard_to[side][target] = frozenset(on_lines | screens)

    return Tables(v, n, sentinel, tuple(codes), frozenset(royal), frozenset(cannons),
                  leaps, quiet, capture, multi, screen, rays, cannon_rays, hop_rays,
                  rev_leaps, rev_screens, rev_rays, guard_from, guard_to,
                  king_rules=v.passing or v.facing_must_break)


class TablesStore(Protocol):
    """Where an application keeps compiled tables between processes (the core does no I/O itself:
    pbm keeps them on disk, so that a short-lived `pbm deliver` does not compile them every time)."""

    def load(self, v: Variant) -> Tables | None: ...

    def save(self, v: Variant, tables: Tables) -> None: ...


store: TablesStore | None = None
_TABLES: dict[Variant, Tables] = {}


def compile_variant(v: Variant) -> Tables:
    """Tables for `v`, built once per distinct variant value (or taken from `store`)."""
    tables = _TABLES.get(v)
    if tables is None:
        tables = store.load(v) if store is not None else None
        if tables is None:
            tables = _compile(v)
            if store is not None:
                store.save(v, tables)
        tables.variant = v          # a stored copy carries a copy of the variant: use the registry's
        _TABLES[v] = tables
    return tables
