"""A second, deliberately simple Padwar qi move generator, written from the words of docs/games.md
("Padwar qi") and the original rules text, sharing no code with the rules core: walks are enumerated by brute force
(depth-first over unit steps on a dict board), and legality is decided by trying every reply (a move is
illegal if afterwards some enemy walk ends on the mover's chief, or the chiefs face on an open file).

Slow and plain on purpose: it exists to disagree with `rules` when `rules` is wrong.
"""
from __future__ import annotations

W_STEPS = [(0, 1), (1, 0), (0, -1), (-1, 0)]
F_STEPS = [(1, 1), (1, -1), (-1, -1), (-1, 1)]
# The drawn palace diagonals: d1-e2-f3, f1-e2-d3 and the same in Black's palace (0-based files/ranks).
DIAGONAL_LINES = [[(3, 0), (4, 1), (5, 2)], [(5, 0), (4, 1), (3, 2)],
                  [(3, 7), (4, 8), (5, 9)], [(5, 7), (4, 8), (3, 9)]]
DRAWN = {(a, b) for line in DIAGONAL_LINES for a, b in zip(line, line[1:])}
DRAWN |= {(b, a) for a, b in DRAWN}


def parse_fen(fen: str) -> tuple[dict[tuple[int, int], str], str]:
    """Board {(file, rank): letter} (uppercase Red) and the side to move, "w" or "b"."""
    placement, side = (fen.split() + ["w"])[:2]
    board = {}
    for i, row in enumerate(placement.split("/")):
        rank, file = 9 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                board[(file, rank)] = ch
                file += 1
    return board, side


def red(letter: str) -> bool:
    return letter.isupper()


def in_palace(point, is_red):
    f, r = point
    return 3 <= f <= 5 and (r <= 2 if is_red else r >= 7)


def on_own_half(point, is_red):
    return point[1] <= 4 if is_red else point[1] >= 5


def on_board(point):
    return 0 <= point[0] <= 8 and 0 <= point[1] <= 9


def walks(board, start, step_kinds, allowed_step=None):
    """Every walk from `start` whose i-th step is one of step_kinds[i] ("W", "F" or "WF"): no point
    twice, every point on the board; yields (intermediate points, destination).  The emptiness of the
    intermediate points is for the caller to judge (a cannon wants one of them occupied)."""
    def go(point, seen, path, i):
        if i == len(step_kinds):
            yield path[:-1], path[-1]
            return
        units = (W_STEPS if "W" in step_kinds[i] else []) + (F_STEPS if "F" in step_kinds[i] else [])
        for dx, dy in units:
            nxt = (point[0] + dx, point[1] + dy)
            if not on_board(nxt) or nxt in seen:
                continue
            if allowed_step and not allowed_step(point, nxt):
                continue
            yield from go(nxt, seen | {nxt}, path + [nxt], i + 1)
    yield from go(start, {start}, [], 0)


def any_order(mix):
    """The step-kind sequences that use exactly the steps of `mix` ("WF": one W and one F)."""
    import itertools
    return sorted(set(itertools.permutations(mix)))


def palace_line_rule(a, b):
    """-korean warriors, dwars, cannons: a diagonal step only along a drawn palace diagonal."""
    if a[0] != b[0] and a[1] != b[1]:
        return (a, b) in DRAWN
    return True


def piece_moves(board, start, korean):
    """The destinations of the piece on `start` by its own movement rule (not yet checking the chief)."""
    letter = board[start]
    is_red = red(letter)
    kind = letter.upper()
    own = lambda p: p in board and red(board[p]) == is_red  # noqa: E731
    enemy = lambda p: p in board and red(board[p]) != is_red  # noqa: E731
    out = set()

    def plain(kind_lists, region=None, allowed=None):
        for kinds in kind_lists:
            for between, dest in walks(board, start, kinds, allowed):
                if any(p in board for p in between) or own(dest):
                    continue
                if region and not all(region(p, is_red) for p in between + [dest]):
                    continue
                out.add(dest)

    palace_rule = palace_line_rule if korean else None
    orth = "WF" if korean else "W"
    if kind == "K":    # chief: 2 steps, each W or F, whole walk inside its palace
        plain([["WF", "WF"]], in_palace)
    elif kind == "A":  # warrior: 2 W inside the palace (-korean: palace diagonals too)
        plain([[orth, orth]], in_palace, palace_rule)
    elif kind == "B":  # padwar: 2 F on its own half (-korean: 2 F + 1 W in any order, anywhere)
        if korean:
            plain(any_order("FFW"))
        else:
            plain([["F", "F"]], on_own_half)
    elif kind == "N":  # thoat: 1 W + 1 F in either order
        plain(any_order("WF"))
    elif kind == "R":  # dwar: 3 W (-korean: palace diagonals too)
        plain([[orth] * 3], None, palace_rule)
    elif kind == "C":  # Martian cannon
        for between, dest in walks(board, start, [orth] * 3, palace_rule):
            occupied = [p for p in between if p in board]
            if own(dest):
                continue
            if korean:  # must jump exactly one piece, not a cannon; never captures a cannon
                if len(occupied) != 1 or board[occupied[0]].upper() == "C":
                    continue
                if enemy(dest) and board[dest].upper() == "C":
                    continue
                out.add(dest)
            elif enemy(dest):
                if len(occupied) == 1:
                    out.add(dest)
            elif not occupied:
                out.add(dest)
    elif kind == "P":  # pathan: forward or diagonally forward; sideways once across (-korean always)
        fwd = 1 if is_red else -1
        steps = [(0, fwd), (1, fwd), (-1, fwd)]
        if korean or not on_own_half(start, is_red):
            steps += [(1, 0), (-1, 0)]
        for dx, dy in steps:
            dest = (start[0] + dx, start[1] + dy)
            if on_board(dest) and not own(dest):
                out.add(dest)
    return out


def chief_in_danger(board, is_red, korean):
    chiefs = {red(v): p for p, v in board.items() if v.upper() == "K"}
    mine = chiefs.get(is_red)
    if mine is None:
        return False
    other = chiefs.get(not is_red)
    if other is not None and other[0] == mine[0]:
        low, high = sorted((mine[1], other[1]))
        if not any((mine[0], r) in board for r in range(low + 1, high)):
            return True  # the chiefs face on an open file
    return any(mine in piece_moves(board, p, korean) for p, v in list(board.items()) if red(v) != is_red)


def moves_and_boards(board, is_red, korean):
    """(move text, board after it) for every legal move of the side `is_red`."""
    out = []
    for start, letter in list(board.items()):
        if red(letter) != is_red:
            continue
        for dest in piece_moves(board, start, korean):
            after = dict(board)
            after[dest] = after.pop(start)
            if not chief_in_danger(after, is_red, korean):
                out.append((name(start) + name(dest), after))
    return out


def legal_moves(fen: str, korean: bool) -> set[str]:
    """The legal moves of the side to move, as coordinate strings like b1c3."""
    board, side = parse_fen(fen)
    return {move for move, _ in moves_and_boards(board, side in ("w", "r"), korean)}


def perft(fen: str, depth: int, korean: bool) -> int:
    """The number of legal move sequences of length `depth` (at least 1)."""
    board, side = parse_fen(fen)

    def count(board, is_red, depth):
        found = moves_and_boards(board, is_red, korean)
        if depth == 1:
            return len(found)
        return sum(count(after, not is_red, depth - 1) for _, after in found)
    return count(board, side in ("w", "r"), depth)


def name(point) -> str:
    return "abcdefghi"[point[0]] + str(point[1] + 1)


def point(text: str) -> tuple[int, int]:
    return "abcdefghi".index(text[0]), int(text[1:]) - 1
