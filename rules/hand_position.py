"""The position of a game with Gi-Qi-Game's shogi-like rules: pieces in hand, promotion choices, the
guard teleport, king zones, castling and the rule that no position may be played twice.

`Position` generates what the piece tables say; this class adds the moves the tables cannot hold (they
depend on the own king's point, on hands or on history) and filters the king's moves by its zone.  The
switches that turn each rule on live in `Variant` (drops, promotion_zone, teleport, king_zones, castling,
repeat_is_illegal), so Xiangqi and Janggi never pay for them.

Moves: `(from, to)` as everywhere; a promotion is `(from, to, code)` with the promoted piece's code; a
drop is `(DROP + code, to)` where DROP is one past the sentinel square, so a drop's "from" can never be
mistaken for a point of the board; castling is the king's move of two or three files.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules.position import Move, Position
from rules.tables import Tables


@dataclass(frozen=True)
class HandRules:
    """What the rules above need, derived once per compiled variant."""

    drop: int                               # a drop's "from" is drop + piece code
    base: tuple[int, ...]                   # [code] -> the type index a captured piece gives the hand
    promotions: tuple[tuple[int, ...], ...]  # [code] -> codes it may promote to
    stuck_on_last_rank: frozenset[int]      # codes with no move at all from their last rank
    zone_of: tuple[int, ...]                # [square] -> 3x3 zone number
    zone_squares: tuple[tuple[int, ...], ...]
    guards: tuple[frozenset[int], frozenset[int]]
    steps: tuple[tuple[frozenset[int], ...], ...]  # [code][square] -> squares its leaps reach
    king_start: tuple[int, int]
    corners: tuple[tuple[int, int], tuple[int, int]]  # [side] -> (a-file lance, i-file lance) squares
    lance: tuple[int, int]                  # the lance's code per side


def _rel_rank(t: Tables, sq: int, side: int) -> int:
    rank = sq // t.variant.width
    return rank if side == 0 else t.variant.height - 1 - rank


_RULES: dict[int, HandRules] = {}  # by id of the Tables, which compile_variant keeps for ever


def hand_rules(t: Tables) -> HandRules:
    """The derived rules of `t`, built once."""
    rules = _RULES.get(id(t))
    if rules is None:
        rules = _RULES[id(t)] = _derive(t)
    return rules


def _derive(t: Tables) -> HandRules:
    v = t.variant
    letters = {p.letter: i for i, p in enumerate(v.pieces)}
    size = 2 * (len(v.pieces) + 1)
    base = [0] * size
    promotions: list[tuple[int, ...]] = [()] * size
    stuck = set()
    steps: list[tuple[frozenset[int], ...]] = [()] * size
    for code in t.codes:
        ptype, side = t.piece_type(code), code & 1
        base[code] = letters[ptype.letter.lstrip("+")]
        promotions[code] = tuple(t.code(letters[p], side) for p in ptype.promotions)
        steps[code] = tuple(frozenset(to for table in (t.leaps, t.leaps_capture)
                                      for to, _, _ in table[code][sq]) for sq in range(t.n))
        last = [sq for sq in range(t.n) if _rel_rank(t, sq, side) == v.height - 1]
        tables = (t.leaps, t.leaps_quiet, t.leaps_capture, t.multi_leaps, t.screen_leaps, t.rays,
                  t.cannon_rays, t.hop_rays)
        if not any(table[code][sq] for table in tables for sq in last):
            stuck.add(code)
    size_zone = v.king_zones or 1
    per_row = -(-v.width // size_zone)
    zone_of = tuple((sq // v.width) // size_zone * per_row + (sq % v.width) // size_zone
                    for sq in range(t.n))
    zones = max(zone_of) + 1
    zone_squares = tuple(tuple(sq for sq in range(t.n) if zone_of[sq] == z) for z in range(zones))
    guards = tuple(frozenset(t.code(i, side) for i, p in enumerate(v.pieces) if p.guard) for side in (0, 1))
    top = (v.height - 1) * v.width
    lance = letters.get("L", 0)
    return HandRules(
        drop=t.n + 1, base=tuple(base), promotions=tuple(promotions), stuck_on_last_rank=frozenset(stuck),
        zone_of=zone_of, zone_squares=zone_squares, guards=guards, steps=tuple(steps),
        king_start=(v.width // 2, top + v.width // 2),
        corners=((0, v.width - 1), (top, top + v.width - 1)),
        lance=(t.code(lance, 0), t.code(lance, 1)))


# Castling rights, as FEN letters: White's i-file and a-file lance, then Black's.
CASTLING = "KQkq"


class HandPosition(Position):
    __slots__ = ("x", "hands", "castling", "seen")

    def __init__(self, tables: Tables, board: list[int], side: int, halfmove: int = 0, fullmove: int = 1,
                 hands: list[list[int]] | None = None, castling: str = "") -> None:
        super().__init__(tables, board, side, halfmove, fullmove)
        self.x = hand_rules(tables)
        types = len(tables.variant.pieces)
        self.hands = hands or [[0] * types, [0] * types]
        self.castling = castling
        self.seen: dict[tuple, int] = {self.key(): 1}

    def key(self) -> tuple:
        """Placement, hands and side to move: what "the same position" means (spec)."""
        return (self.side, bytes(self.board), tuple(self.hands[0]), tuple(self.hands[1]))

    def owns(self, move: Move) -> bool:
        fr = move[0]
        if fr >= self.x.drop:
            code = fr - self.x.drop
            return code & 1 == self.side and self.hands[self.side][self.x.base[code]] > 0
        return bool(self.board[fr]) and self.board[fr] & 1 == self.side

    # --- generation -------------------------------------------------------------------------------

    def pseudo_moves(self, side: int | None = None) -> list[Move]:
        if side is None:
            side = self.side
        x, board, v = self.x, self.board, self.t.variant
        out: list[Move] = []
        king = self.kings[side]
        seen = set()
        for move in super().pseudo_moves(side):
            fr, to = move
            piece = board[fr]
            if fr == king and v.king_zones and not self._zone_guarded(to, side):
                continue
            seen.add(move)
            self._with_promotions(out, fr, to, piece, side)
        if v.teleport and king >= 0:
            targets = [sq for sq in self._around(king) if not board[sq]]
            for fr in self.pieces[side]:
                piece = board[fr]
                if piece not in x.guards[side]:
                    continue
                for to in targets:
                    if (fr, to) not in seen and king not in x.steps[piece][to]:
                        self._with_promotions(out, fr, to, piece, side)
        if v.castling and self.castling:
            out += self._castlings(side)
        if v.drops:
            out += self._drops(side)
        return out

    def _with_promotions(self, out: list[Move], fr: int, to: int, piece: int, side: int) -> None:
        x, v = self.x, self.t.variant
        promotions = x.promotions[piece]
        if promotions and (self._in_zone(fr, side) or self._in_zone(to, side)):
            for code in promotions:
                out.append((fr, to, code))
            if piece in x.stuck_on_last_rank and _rel_rank(self.t, to, side) == v.height - 1:
                return  # compulsory: it would have no move there
        out.append((fr, to))

    def _in_zone(self, sq: int, side: int) -> bool:
        v = self.t.variant
        return _rel_rank(self.t, sq, side) >= v.height - v.promotion_zone

    def _zone_guarded(self, sq: int, side: int) -> bool:
        """Whether the 3x3 zone of `sq` holds a bodyguard or warrior of `side` (the king-zone rule)."""
        guards, board = self.x.guards[side], self.board
        return any(board[s] in guards for s in self.x.zone_squares[self.x.zone_of[sq]])

    def _around(self, sq: int) -> list[int]:
        w, h = self.t.variant.width, self.t.variant.height
        f, r = sq % w, sq // w
        return [(r + dr) * w + f + df for df in (-1, 0, 1) for dr in (-1, 0, 1)
                if (df or dr) and 0 <= f + df < w and 0 <= r + dr < h]

    def _drops(self, side: int) -> list[Move]:
        x, t, board = self.x, self.t, self.board
        out: list[Move] = []
        empty = [sq for sq in range(t.n) if not board[sq]]
        last = t.variant.height - 1
        for index, count in enumerate(self.hands[side]):
            if not count:
                continue
            code = t.code(index, side)
            stuck = code in x.stuck_on_last_rank
            out += [(x.drop + code, sq) for sq in empty if not (stuck and _rel_rank(t, sq, side) == last)]
        return out

    def _castling_candidates(self, side: int) -> list[tuple[int, int]]:
        """(king from, king to) for every castling the rights and the empty points allow, before the
        tests of attacked points; the lance lands next to the king, on the side it came from."""
        x, board = self.x, self.board
        k = self.kings[side]
        if k != x.king_start[side]:
            return []
        out = []
        for letter, corner, step in zip(CASTLING[2 * side:2 * side + 2], x.corners[side][::-1], (1, -1)):
            if letter not in self.castling or board[corner] != x.lance[side]:
                continue
            between = range(k + step, corner, step)
            if any(board[sq] for sq in between):
                continue
            for distance in (2, 3):
                to = k + step * distance
                if (corner - to) * step > 0:  # the king stops short of the lance's corner
                    out.append((k, to))
        return out

    def _castlings(self, side: int) -> list[Move]:
        """Castling: the king not in check, not passing or landing on an attacked point or one facing
        the other king (attacked() counts facing as an attack)."""
        if not any(c in self.castling for c in CASTLING[2 * side:2 * side + 2]):
            return []
        board, by = self.board, 1 - side
        out: list[Move] = []
        for k, to in self._castling_candidates(side):
            if self.attacked(k, by):
                return []
            step = 1 if to > k else -1
            king = board[k]
            board[k] = 0
            safe = True
            for sq in range(k + step, to + step, step):
                board[sq] = king
                attacked = self.attacked(sq, by)
                board[sq] = 0
                if attacked:
                    safe = False
                    break
            board[k] = king
            if safe:
                out.append((k, to))
        return out

    def _legal_filter(self, moves: list[Move], repetition: bool = True) -> list[Move]:
        """Every move is played out: the own king must not be attacked (or facing), and with
        `repeat_is_illegal` (unless `repetition` is False) the position reached must be new."""
        out = []
        side, by = self.side, 1 - self.side
        repeat = repetition and self.t.variant.repeat_is_illegal
        for move in moves:
            self.push(move)
            k = self.kings[side]
            ok = not (k >= 0 and self.attacked(k, by)) and not (repeat and self.seen[self.key()] > 1)
            self.pop()
            if ok:
                out.append(move)
        return out

    def repeating_only(self) -> bool:
        """No legal move, but some move that is legal except for recreating an earlier position: the
        player loses because every move would repeat one."""
        return not self.legal_moves() and bool(self._legal_filter(self.pseudo_moves(), repetition=False))

    # --- making moves -----------------------------------------------------------------------------

    def push(self, move: Move) -> int:
        t, x, board, side = self.t, self.x, self.board, self.side
        fr, to = move[0], move[1]
        before = (self.castling, self.halfmove)
        lance_move = None
        if fr >= x.drop:
            piece = fr - x.drop
            self.hands[side][x.base[piece]] -= 1
            captured = 0
            placed = piece
        else:
            piece = board[fr]
            captured = board[to]
            placed = move[2] if len(move) > 2 else piece
            board[fr] = 0
            self.pieces[side].discard(fr)
            if captured:
                self.pieces[1 - side].discard(to)
                if t.variant.drops:
                    self.hands[side][x.base[captured]] += 1
            if piece in t.royal:
                self.kings[side] = to
                w = t.variant.width
                if fr // w == to // w and abs(to - fr) > 1:   # castling: two or three files along the rank
                    step = 1 if to > fr else -1
                    lance_move = (x.corners[side][step > 0], to - step)
                    board[lance_move[1]] = board[lance_move[0]]
                    board[lance_move[0]] = 0
                    self.pieces[side].discard(lance_move[0])
                    self.pieces[side].add(lance_move[1])
        board[to] = placed
        self.pieces[side].add(to)
        self.halfmove = 0 if captured else self.halfmove + 1
        if self.castling:
            self.castling = self._rights_after(fr, to, piece, side)
        if side == 1:
            self.fullmove += 1
        self.side = 1 - side
        self._undo.append((move, piece, captured, before, lance_move))
        key = self.key()
        self.seen[key] = self.seen.get(key, 0) + 1
        return captured

    def _rights_after(self, fr: int, to: int, piece: int, side: int) -> str:
        x = self.x
        rights = self.castling
        if piece in self.t.royal:
            rights = rights.replace(CASTLING[2 * side], "").replace(CASTLING[2 * side + 1], "")
        for s in (0, 1):
            for letter, corner in zip(CASTLING[2 * s:2 * s + 2], x.corners[s][::-1]):
                if corner in (fr, to):
                    rights = rights.replace(letter, "")
        return rights

    def pop(self) -> Move:
        t, x, board = self.t, self.x, self.board
        key = self.key()
        self.seen[key] -= 1
        if not self.seen[key]:
            del self.seen[key]
        move, piece, captured, (castling, halfmove), lance_move = self._undo.pop()
        side = 1 - self.side
        self.side = side
        fr, to = move[0], move[1]
        self.pieces[side].discard(to)
        if fr >= x.drop:
            self.hands[side][x.base[piece]] += 1
            board[to] = 0
        else:
            board[fr] = piece
            board[to] = captured
            self.pieces[side].add(fr)
            if captured:
                self.pieces[1 - side].add(to)
                if t.variant.drops:
                    self.hands[side][x.base[captured]] -= 1
            if piece in t.royal:
                self.kings[side] = fr
            if lance_move:
                board[lance_move[0]] = board[lance_move[1]]
                board[lance_move[1]] = 0
                self.pieces[side].discard(lance_move[1])
                self.pieces[side].add(lance_move[0])
        self.castling, self.halfmove = castling, halfmove
        if side == 1:
            self.fullmove -= 1
        return move
