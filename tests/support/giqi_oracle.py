"""A second, deliberately simple Gi-Qi-Game move generator, written from the words of docs/games.md
("Gi-Qi-Game") and the original rules text, sharing no code with the rules core: pieces are (side, letter) on a dict
board, every piece's moves are spelt out below piece by piece, and legality is decided by trying every
reply (a move is illegal if afterwards some enemy move could take the king, or the kings face each
other along a rank, file or diagonal with nothing between).  It knows no history, so it has nothing to
say about the repetition rule.

Slow and plain on purpose: it exists to disagree with `rules` when `rules` is wrong.
"""
from __future__ import annotations

FILES = "abcdefghi"
KING_DIRS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
ORTH = [(0, 1), (1, 0), (0, -1), (-1, 0)]
DIAG = [(1, 1), (1, -1), (-1, -1), (-1, 1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
PROMOTES = {"G": "+G", "E": "+E", "H": "+H", "L": "+L", "R": "+R", "N": "+N", "B": "+B",
            "P": "+P", "F": "+F", "Y": "+Y"}
PAWNS = ("P", "F", "Y")


class Options:
    def __init__(self, params: dict | None = None):
        params = params or {}
        self.drops = not params.get("nodrops")
        self.korean = bool(params.get("koreancannons"))
        self.warrior = bool(params.get("warriorpromotion"))
        self.swap = bool(params.get("swapriver"))


def parse_fen(fen: str):
    """(board {(file, rank): (side, letter)}, hands {0: [...], 1: [...]}, side, castling)."""
    fields = fen.split()
    placement, _, hand = fields[0].partition("[")
    board = {}
    for i, row in enumerate(placement.split("/")):
        rank, file, plus = 8 - i, 0, ""
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif ch == "+":
                plus = "+"
            else:
                board[(file, rank)] = (0 if ch.isupper() else 1, plus + ch.upper())
                file, plus = file + 1, ""
    hands = {0: [c for c in hand.rstrip("]") if c.isupper()],
             1: [c.upper() for c in hand.rstrip("]") if c.islower()]}
    side = 0 if len(fields) < 2 or fields[1] == "w" else 1
    castling = fields[2] if len(fields) > 2 and fields[2] != "-" else ""
    return board, hands, side, castling


def name(p) -> str:
    return FILES[p[0]] + str(p[1] + 1)


def point(text: str) -> tuple[int, int]:
    return FILES.index(text[0]), int(text[1]) - 1


def on_board(p) -> bool:
    return 0 <= p[0] < 9 and 0 <= p[1] < 9


def crossed(p, side, opt) -> bool:
    """The opponent's half, or a strong river square (odd files a c e g i; swapped: even files)."""
    rel = p[1] if side == 0 else 8 - p[1]
    if rel > 4:
        return True
    if rel == 4:
        strong = p[0] % 2 == 0   # a, c, e, g, i are files 0, 2, 4, 6, 8
        return strong != opt.swap
    return False


def piece_moves(board, p, opt):
    """[(destination, kind)] for the piece on p, kind "any" (move or capture), "move" or "capture";
    destinations may hold own pieces (the caller drops those)."""
    side, letter = board[p]
    fwd = 1 if side == 0 else -1
    x, y = p
    out = []

    def step(dx, dy, kind="any"):
        q = (x + dx, y + dy * fwd)
        if on_board(q):
            out.append((q, kind))

    def slide(dx, dy):
        q = (x + dx, y + dy * fwd)
        while on_board(q):
            out.append((q, "any"))
            if q in board:
                break
            q = (q[0] + dx, q[1] + dy * fwd)

    def cannon(dx, dy):
        q = (x + dx, y + dy * fwd)
        screens = 0
        while on_board(q):
            if q in board:
                if screens == 1:
                    out.append((q, "capture"))
                    break
                screens += 1
            elif screens == 0 and not opt.korean:
                out.append((q, "move"))
            elif screens == 1 and opt.korean:
                out.append((q, "move"))
            q = (q[0] + dx, q[1] + dy * fwd)

    across = crossed(p, side, opt)
    if letter == "K":
        for d in KING_DIRS:
            step(*d)
    elif letter == "G":     # copper general; gold general once crossed
        for d in [(0, 1), (0, -1), (1, 1), (-1, 1)] + ([(1, 0), (-1, 0)] if across else []):
            step(*d)
    elif letter == "+G":    # silver general; drunk elephant once crossed
        for d in [(0, 1), (1, 1), (-1, 1), (1, -1), (-1, -1)] + ([(1, 0), (-1, 0)] if across else []):
            step(*d)
    elif letter == "E":
        slide(1, 1)
        slide(-1, 1)
    elif letter == "+E":
        for d in DIAG:
            cannon(*d)
    elif letter == "H":
        for d in [(1, 2), (-1, 2)] + ([(2, 1), (-2, 1)] if across else []):
            step(*d)
    elif letter == "+H":    # an orthogonal step to an empty square, then 1 or 2 diagonal steps outward
        for ox, oy in ORTH:
            first = (x + ox, y + oy)
            if not on_board(first) or first in board:
                continue
            for sx in ((1, -1) if ox == 0 else (ox,)):
                for sy in ((1, -1) if oy == 0 else (oy,)):
                    a = (first[0] + sx, first[1] + sy)
                    if not on_board(a):
                        continue
                    out.append((a, "any"))
                    b = (a[0] + sx, a[1] + sy)
                    if a not in board and on_board(b):
                        out.append((b, "any"))
    elif letter == "L":
        slide(0, 1)
        if across:
            slide(1, 0)
            slide(-1, 0)
    elif letter == "+L":
        for d in ORTH:
            cannon(*d)
    elif letter in ("R", "+R"):
        for d in ORTH:
            slide(*d)
        if letter == "+R":
            for d in DIAG:
                step(*d)
    elif letter in ("N", "+N"):
        for d in KNIGHT:
            step(*d)
        if letter == "+N":
            for d in KING_DIRS:
                step(*d)
    elif letter in ("B", "+B"):
        for d in DIAG:
            slide(*d)
        if letter == "+B":
            for d in ORTH:
                step(*d)
    elif letter == "P":     # chess pawn without double step; sideways moves once crossed
        step(0, 1, "move")
        step(1, 1, "capture")
        step(-1, 1, "capture")
        if across:
            step(1, 0, "move")
            step(-1, 0, "move")
    elif letter == "F":
        step(0, 1)
        if across:
            step(1, 0)
            step(-1, 0)
    elif letter == "Y":     # Berolina: moves diagonally forward, captures straight forward
        step(1, 1, "move")
        step(-1, 1, "move")
        step(0, 1, "capture")
        if across:
            step(1, 0, "capture")
            step(-1, 0, "capture")
    elif letter == "+P":
        for d in ORTH:
            slide(*d)
        for d in KNIGHT:
            step(*d)
    elif letter == "+F":
        for d in ORTH + DIAG:
            slide(*d)
    elif letter == "+Y":
        for d in DIAG:
            slide(*d)
        for d in KNIGHT:
            step(*d)
    return out


def destinations(board, p, opt):
    """Where the piece on p may go by its movement: empty squares for "any"/"move", enemy pieces for
    "any"/"capture"."""
    side = board[p][0]
    out = set()
    for q, kind in piece_moves(board, p, opt):
        if q in board:
            if board[q][0] != side and kind != "move":
                out.add(q)
        elif kind != "capture":
            out.add(q)
    return out


def kings(board):
    return {s: p for p, (s, letter) in board.items() if letter == "K"}


def facing(board) -> bool:
    k = kings(board)
    if len(k) < 2:
        return False
    (ax, ay), (bx, by) = k[0], k[1]
    dx, dy = bx - ax, by - ay
    if not (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
        return False
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    q = (ax + sx, ay + sy)
    while q != (bx, by):
        if q in board:
            return False
        q = (q[0] + sx, q[1] + sy)
    return True


def king_attacked(board, side, opt) -> bool:
    """Could the other side take `side`'s king, or do the kings face each other?"""
    mine = kings(board).get(side)
    if mine is None:
        return False
    if facing(board):
        return True
    return any(mine in destinations(board, p, opt) for p, (s, _) in list(board.items()) if s != side)


def zone_has_guard(board, square, side) -> bool:
    zx, zy = square[0] // 3, square[1] // 3
    return any(s == side and letter in ("G", "+G") and q[0] // 3 == zx and q[1] // 3 == zy
               for q, (s, letter) in board.items())


def in_zone(p, side) -> bool:
    rel = p[1] if side == 0 else 8 - p[1]
    return rel >= 6


def last_rank(p, side) -> bool:
    return p[1] == (8 if side == 0 else 0)


def candidate_moves(board, hands, side, castling, opt):
    """(text, board after, hand gained by the mover or None, castling after) before the king test."""
    out = []
    king = kings(board).get(side)

    def add(start, dest, letter, teleport=False):
        after = dict(board)
        captured = after.get(dest)
        del after[start]
        base = letter
        gained = captured[1].lstrip("+") if captured else None
        text = name(start) + name(dest)
        rights = castling
        if letter == "K":
            for right in ("KQ" if side == 0 else "kq"):
                rights = rights.replace(right, "")
        for right, corner in (("Q", (0, 0)), ("K", (8, 0)), ("q", (0, 8)), ("k", (8, 8))):
            if corner in (start, dest):
                rights = rights.replace(right, "")
        options = []
        if base in PROMOTES and (in_zone(start, side) or in_zone(dest, side)):
            options.append((text + "+", PROMOTES[base]))
            if opt.warrior and base in PAWNS:
                options.append((text + "+G", "+G"))
            stuck = base in ("E", "H") and last_rank(dest, side)
            if not stuck:
                options.append((text, base))
        else:
            options.append((text, base))
        for move_text, result in options:
            placed = dict(after)
            placed[dest] = (side, result)
            out.append((move_text, placed, gained, rights))

    for p, (s, letter) in list(board.items()):
        if s != side:
            continue
        for q in destinations(board, p, opt):
            if letter == "K" and not zone_has_guard(board, q, side):
                continue    # the king steps only into a 3x3 zone holding its bodyguard or warrior
            add(p, q, letter)
        if letter in ("G", "+G") and king is not None:
            for dx, dy in KING_DIRS:
                q = (king[0] + dx, king[1] + dy)
                if not on_board(q) or q in board or q in destinations(board, p, opt):
                    continue
                probe = dict(board)
                del probe[p]
                probe[q] = (side, letter)
                if king not in {d for d, _ in piece_moves(probe, q, opt)}:
                    add(p, q, letter)
    # castling
    back = 0 if side == 0 else 8
    if king == (4, back):
        for right, corner, step in (("K", 8, 1), ("Q", 0, -1)):
            right = right if side == 0 else right.lower()
            if right not in castling or board.get((corner, back)) != (side, "L"):
                continue
            if any((f, back) in board for f in range(4 + step, corner, step)):
                continue
            if king_attacked(board, side, opt):
                continue
            for distance in (2, 3):
                dest = 4 + step * distance
                if (corner - dest) * step <= 0:
                    continue
                ok = True
                for f in range(4 + step, dest + step, step):
                    probe = dict(board)
                    del probe[king]
                    probe[(f, back)] = (side, "K")
                    if king_attacked(probe, side, opt):
                        ok = False
                if ok:
                    after = dict(board)
                    del after[king]
                    del after[(corner, back)]
                    after[(dest, back)] = (side, "K")
                    after[(dest - step, back)] = (side, "L")
                    rights = "".join(r for r in castling if r not in ("KQ" if side == 0 else "kq"))
                    out.append((name(king) + name((dest, back)), after, None, rights))
    # drops
    if opt.drops:
        for letter in sorted(set(hands[side])):
            for f in range(9):
                for r in range(9):
                    q = (f, r)
                    if q in board or (letter in ("E", "H") and last_rank(q, side)):
                        continue
                    after = dict(board)
                    after[q] = (side, letter)
                    out.append((f"{letter}*{name(q)}", after, ("drop", letter), castling))
    return out


def legal(board, hands, side, castling, opt):
    """[(text, board, hands, castling)] of the legal moves."""
    out = []
    for text, after, gained, rights in candidate_moves(board, hands, side, castling, opt):
        if king_attacked(after, side, opt):
            continue
        new_hands = {0: list(hands[0]), 1: list(hands[1])}
        if isinstance(gained, tuple):
            new_hands[side].remove(gained[1])
        elif gained and opt.drops:
            new_hands[side].append(gained)
        out.append((text, after, new_hands, rights))
    return out


def legal_moves(fen: str, params: dict | None = None) -> set[str]:
    board, hands, side, castling = parse_fen(fen)
    return {text for text, *_ in legal(board, hands, side, castling, Options(params))}


def in_check(fen: str, params: dict | None = None) -> bool:
    board, _, side, _ = parse_fen(fen)
    return king_attacked(board, side, Options(params))


def perft(fen: str, depth: int, params: dict | None = None) -> int:
    opt = Options(params)
    board, hands, side, castling = parse_fen(fen)

    def count(board, hands, side, castling, depth):
        found = legal(board, hands, side, castling, opt)
        if depth == 1:
            return len(found)
        return sum(count(b, h, 1 - side, c, depth - 1) for _, b, h, c in found)
    return count(board, hands, side, castling, depth)
