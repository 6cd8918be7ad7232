"""The one move generator: a mutable position read through a variant's compiled tables.

Moves are `(from, to)` square pairs here; text forms live in `rules.notation`.  Legality is
"pseudo-legal move that leaves no royal piece attacked": most moves cannot expose the king at all, so
only moves touching the points in `Tables.guard_from`/`guard_to` around the king are played out and
tested (the speed of perft depends on it).
"""
from __future__ import annotations

from rules.tables import Tables

Move = tuple[int, int]


class Position:
    __slots__ = ("t", "board", "side", "halfmove", "fullmove", "kings", "pieces", "_undo")

    def __init__(self, tables: Tables, board: list[int], side: int, halfmove: int = 0,
                 fullmove: int = 1) -> None:
        self.t = tables
        self.board = board  # length n + 1: the last cell is the always-empty sentinel
        self.side = side
        self.halfmove = halfmove
        self.fullmove = fullmove
        self.pieces: list[set[int]] = [set(), set()]
        self.kings = [-1, -1]
        for sq in range(tables.n):
            p = board[sq]
            if p:
                self.pieces[p & 1].add(sq)
                if p in tables.royal:
                    self.kings[p & 1] = sq
        self._undo: list[tuple[int, int, int, int]] = []

    def copy(self) -> Position:
        return Position(self.t, self.board[:], self.side, self.halfmove, self.fullmove)

    # --- generation -------------------------------------------------------------------------------

    def pseudo_moves(self, side: int | None = None) -> list[Move]:
        """Moves that obey the pieces' patterns, ignoring whether the mover's king is left attacked."""
        if side is None:
            side = self.side
        t = self.t
        board = self.board
        cannons = t.cannon_codes
        out: list[Move] = []
        add = out.append
        for sq in self.pieces[side]:
            p = board[sq]
            for to, b1, b2 in t.leaps[p][sq]:
                q = board[to]
                if (q and (q & 1) == side) or board[b1] or board[b2]:
                    continue
                add((sq, to))
            entries = t.leaps_quiet[p][sq]
            for to, b1, b2 in entries:
                if not (board[to] or board[b1] or board[b2]):
                    add((sq, to))
            entries = t.leaps_capture[p][sq]
            for to, b1, b2 in entries:
                q = board[to]
                if q and (q & 1) != side and not (board[b1] or board[b2]):
                    add((sq, to))
            for to, moves, captures, alts in t.multi_leaps[p][sq]:
                q = board[to]
                if (q and (not captures or (q & 1) == side)) or (not q and not moves):
                    continue
                for b1, b2 in alts:
                    if not (board[b1] or board[b2]):
                        add((sq, to))
                        break
            for to, moves, captures, strict, alts in t.screen_leaps[p][sq]:
                q = board[to]
                if q:
                    if not captures or (q & 1) == side or (strict and q in cannons):
                        continue
                elif not moves:
                    continue
                for b1, b2 in alts:
                    a, b = board[b1], board[b2]
                    if (a and not b) or (b and not a):
                        if strict and (a or b) in cannons:
                            continue
                        add((sq, to))
                        break
            for ray in t.rays[p][sq]:
                for to in ray:
                    q = board[to]
                    if q:
                        if (q & 1) != side:
                            add((sq, to))
                        break
                    add((sq, to))
            for ray in t.cannon_rays[p][sq]:
                it = iter(ray)
                for to in it:
                    if board[to]:
                        break
                    add((sq, to))
                for to in it:
                    q = board[to]
                    if q:
                        if (q & 1) != side:
                            add((sq, to))
                        break
            for ray, strict in t.hop_rays[p][sq]:
                it = iter(ray)
                for to in it:
                    screen = board[to]
                    if screen:
                        break
                else:
                    continue
                if strict and screen in cannons:
                    continue
                for to in it:
                    q = board[to]
                    if q:
                        if (q & 1) != side and not (strict and q in cannons):
                            add((sq, to))
                        break
                    add((sq, to))
        return out

    def attacked(self, target: int, by: int) -> bool:
        """Can side `by` capture on `target` (kings facing on an open file count, where illegal)?"""
        t = self.t
        board = self.board
        for b1, b2, pairs in t.rev_leaps[by][target]:
            if board[b1] or board[b2]:
                continue
            for fr, code in pairs:
                if board[fr] == code:
                    return True
        cannons = t.cannon_codes
        for b1, b2, strict, pairs in t.rev_screens[by][target]:
            a, b = board[b1], board[b2]
            if (a and b) or not (a or b):
                continue
            if strict and ((a or b) in cannons or board[target] in cannons):
                continue
            for fr, code in pairs:
                if board[fr] == code:
                    return True
        for line, direct, hop, strict in t.rev_rays[by][target]:
            n = len(line)
            i = 0
            while i < n:
                screen = board[line[i]]
                if screen:
                    break
                i += 1
            else:
                continue
            if screen in direct[i]:
                return True
            i += 1
            while i < n:
                q = board[line[i]]
                if q:
                    if q in hop[i] or (q in strict[i] and screen not in cannons
                                       and board[target] not in cannons):
                        return True
                    break
                i += 1
        return False

    def in_check(self, side: int | None = None) -> bool:
        if side is None:
            side = self.side
        k = self.kings[side]
        return k >= 0 and self.attacked(k, 1 - side)

    def _legal_filter(self, moves: list[Move]) -> list[Move]:
        side = self.side
        by = 1 - side
        k = self.kings[side]
        if k < 0:
            return moves
        board = self.board
        attacked = self.attacked
        check = attacked(k, by)
        guard_from = self.t.guard_from[by][k]
        guard_to = self.t.guard_to[by][k]
        out = []
        for move in moves:
            fr, to = move
            if check or fr in guard_from or to in guard_to:
                captured = board[to]
                board[to] = board[fr]
                board[fr] = 0
                bad = attacked(to if fr == k else k, by)
                board[fr] = board[to]
                board[to] = captured
                if bad:
                    continue
            out.append(move)
        return out

    def legal_moves(self) -> list[Move]:
        moves = self._legal_filter(self.pseudo_moves())
        return self._king_rules(moves) if self.t.king_rules else moves

    # --- passing and facing kings (Janggi), as Fairy-Stockfish plays them --------------------------

    def _king_rules(self, moves: list[Move]) -> list[Move]:
        """The pass is the king's move to its own point.  While the kings face each other every other
        move must break the facing, and the pass is allowed even in check.  Whether a pass ended the
        game is the game's question (`pass_ending`); perft counts on past it, as published."""
        v = self.t.variant
        k = self.kings[self.side]
        if v.facing_must_break and self.kings_face():
            moves = [m for m in moves if not self.faces_after(m)]
            if v.passing:
                moves.append((k, k))
        elif v.passing and not self.in_check():
            moves.append((k, k))
        return moves

    def pass_ending(self) -> str | None:
        """Whether the last move was a pass that ended the game: made while the kings faced each
        other ("bikjang"), or right after the opponent's pass ("two passes in a row")."""
        undo = self._undo
        if not undo or undo[-1][0] != undo[-1][1]:
            return None
        if self.t.variant.facing_must_break and self.kings_face():
            return "bikjang"
        if len(undo) > 1 and undo[-2][0] == undo[-2][1]:
            return "two passes in a row"
        return None

    def pass_would_end(self) -> str | None:
        """What a pass now would end the game by (see `pass_ending`), or None."""
        if self.t.variant.facing_must_break and self.kings_face():
            return "bikjang"
        undo = self._undo
        if undo and undo[-1][0] == undo[-1][1]:
            return "two passes in a row"
        return None

    def kings_face(self) -> bool:
        """The two kings stand on one file with nothing between them."""
        a, b = self.kings
        return a >= 0 and b >= 0 and self._open_file(a, b)

    def faces_after(self, move: Move) -> bool:
        """Whether the kings would face each other after `move` (played out and taken back)."""
        fr, to = move
        board = self.board
        k, other = self.kings[self.side], self.kings[1 - self.side]
        if to == other:
            return False
        captured = board[to]
        board[to] = board[fr]
        board[fr] = 0
        face = self._open_file(to if fr == k else k, other)
        board[fr] = board[to]
        board[to] = captured
        return face

    def _open_file(self, a: int, b: int) -> bool:
        """`a` and `b` on one line along the variant's facing directions (Xiangqi: the file; Gi-Qi-Game:
        any rank, file or diagonal) with nothing between them."""
        w = self.t.variant.width
        df, dr = b % w - a % w, b // w - a // w
        step_f, step_r = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
        if (df and dr and abs(df) != abs(dr)) or (step_f, step_r) not in self.t.variant.facing:
            return False
        step = step_r * w + step_f
        board = self.board
        return not any(board[sq] for sq in range(a + step, b, step))

    def points(self) -> tuple[float, float]:
        """Each side's material on the variant's points scale, its bonus included."""
        v = self.t.variant
        totals = list(v.points_bonus)
        for side in (0, 1):
            for sq in self.pieces[side]:
                totals[side] += v.points.get(self.t.piece_type(self.board[sq]).letter, 0)
        return totals[0], totals[1]

    def is_legal(self, move: Move) -> bool:
        return move in self.pseudo_moves() and bool(self._legal_filter([move]))

    def owns(self, move: Move) -> bool:
        """Whether `move` starts from a piece of the side to move (a cheap check of stored moves)."""
        p = self.board[move[0]]
        return bool(p) and p & 1 == self.side

    # --- making moves -----------------------------------------------------------------------------

    def push(self, move: Move) -> int:
        """Play `move` (assumed legal); returns the captured piece code (0 for none).  A pass is the
        king's move to its own point."""
        fr, to = move
        board = self.board
        piece = board[fr]
        captured = board[to] if fr != to else 0
        side = self.side
        self._undo.append((fr, to, captured, self.halfmove))
        board[fr] = 0
        board[to] = piece
        mine = self.pieces[side]
        mine.discard(fr)
        mine.add(to)
        if captured:
            self.pieces[1 - side].discard(to)
            if captured in self.t.royal:
                self.kings[1 - side] = -1
            self.halfmove = 0
        else:
            self.halfmove += 1
        if piece in self.t.royal:
            self.kings[side] = to
        if side == 1:
            self.fullmove += 1
        self.side = 1 - side
        return captured

    def pop(self) -> Move:
        fr, to, captured, halfmove = self._undo.pop()
        board = self.board
        side = 1 - self.side
        self.side = side
        piece = board[to]
        board[to] = captured
        board[fr] = piece
        mine = self.pieces[side]
        mine.discard(to)
        mine.add(fr)
        if captured:
            self.pieces[1 - side].add(to)
            if captured in self.t.royal:
                self.kings[1 - side] = to
        if piece in self.t.royal:
            self.kings[side] = fr
        if side == 1:
            self.fullmove -= 1
        self.halfmove = halfmove
        return fr, to

    def key(self) -> tuple:
        """Placement and side to move: what "the same position" means for repetition."""
        return (self.side, bytes(self.board))

    def earlier_occurrences(self) -> list[int]:
        """How many plies ago this position (placement and side to move) stood before, most recent
        first, looking back no further than the last capture.  Walks the undo log on a scratch board."""
        board = bytearray(self.board)
        now = bytes(board)
        found = []
        undo = self._undo
        for back in range(1, min(self.halfmove, len(undo)) + 1):
            fr, to, captured, _ = undo[-back]
            if fr != to:
                board[fr] = board[to]
                board[to] = captured
            if not back & 1 and board == now:
                found.append(back)
        return found


def perft(pos: Position, depth: int, game_ends: bool = False) -> int:
    """Number of legal move paths of length `depth` (bulk-counted at the last ply).  With `game_ends`,
    a path stops at a pass that ends the game (Janggi bikjang, two passes in a row), as Fairy-Stockfish's
    perft does; without, the count goes on past it like a move generator's."""
    moves = pos.legal_moves()
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    push, pop = pos.push, pos.pop
    for move in moves:
        push(move)
        if not (game_ends and pos.pass_ending()):
            total += perft(pos, depth - 1, game_ends)
        pop()
    return total
