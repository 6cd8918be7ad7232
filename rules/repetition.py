"""The repetition referee: perpetual check and perpetual chase (docs/repetition.md).

When a position (placement and side to move) occurs for the third time since the last capture, the
moves from the first of those occurrences to now, two full cycles, are the *window*.  Each side's moves
in the window are classified as perpetual check, perpetual chase of one enemy piece (followed as it
moves) or allowed, and the side doing more of it loses (check outranks chase outranks allowed; equal
classes draw).

The referee reasons about `PieceType.role`, the Xiangqi piece a piece plays the part of, so Padwar qi's
thoat is judged as a horse; whether chasing is judged at all (Xiangqi: yes, Janggi: only checks) is the
variant's `perpetual_chase` switch.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules import named
from rules.position import Move, Position
from rules.said import said
from rules.tables import Tables

ALLOWED, CHASE, CHECK = 0, 1, 2

# Kings and soldiers may attack for ever.
FREE_ATTACKERS = frozenset({"king", "soldier"})
# (attacker, victim) roles whose attack is a chase even when the victim is protected: the victim is
# worth more than the attacker, so the protection does not make the capture an even trade.
CHASE_EVEN_IF_PROTECTED = frozenset({
    ("horse", "rook"), ("cannon", "rook"),
    ("elephant", "rook"), ("elephant", "cannon"), ("elephant", "horse"),
    ("advisor", "rook"), ("advisor", "cannon"), ("advisor", "horse"),
})

Pair = tuple[int, int]  # (attacker, victim) as squares or as piece identities


@dataclass(frozen=True)
class Verdict:
    """The outcome a repetition rule gives: who loses (None: a draw) and why."""
    loser: int | None  # the side that loses, None for a draw
    reason: str


class Referee:
    """Classifies windows of moves for one variant; remembers the chases found per position, since a
    window goes round the same positions twice."""

    def __init__(self, tables: Tables) -> None:
        self.t = tables
        v = tables.variant
        self.judge_chases = v.perpetual_chase
        self.role = {code: tables.piece_type(code).role for code in tables.codes}
        # Points where a soldier of each side has crossed the river (and so may be chased).
        river = v.river_after_rank
        self.crossed = [
            frozenset(sq for sq in range(tables.n) if river is None or sq // v.width > river),
            frozenset(sq for sq in range(tables.n) if river is None or sq // v.width <= river),
        ]
        self._chases: dict[tuple, frozenset[Pair]] = {}

    # --- what a chase is --------------------------------------------------------------------------

    def chases(self, pos: Position, side: int) -> frozenset[Pair]:
        """Every (attacker, victim) square pair where `side` could now chase: a legal capture of a
        chaseable piece that is not truly protected (or is worth protecting anyway), and not an even
        exchange offer.  Whether it is *new* is the caller's question."""
        key = (side, pos.key())
        found = self._chases.get(key)
        if found is None:
            found = self._chases[key] = frozenset(self._find_chases(pos, side))
        return found

    def _find_chases(self, pos: Position, side: int) -> list[Pair]:
        out = []
        with _turn(pos, side):
            # A check the chasing side is giving now is set aside when judging protection (spec): the
            # victim's side may recapture as long as only these pieces would still attack its king.
            king = pos.kings[1 - side]
            checkers = _attackers(pos, king, side) if king >= 0 and pos.in_check(1 - side) else frozenset()
            for a, x in pos.pseudo_moves():
                if not pos.board[x]:
                    continue
                recaptures = self._pair(pos, side, a, x, checkers)
                if recaptures is None:
                    continue
                roles = (self.role[pos.board[a]], self.role[pos.board[x]])
                if recaptures and roles not in CHASE_EVEN_IF_PROTECTED:
                    continue
                out.append((a, x))
        return out

    def _pair(self, pos: Position, side: int, a: int, x: int,
              checkers: frozenset[int] = frozenset()) -> list[Move] | None:
        """Conditions 1 to 3 of a chase pair for `side`'s piece on `a` and the enemy on `x` (`side` to
        move): None when they fail, else the recaptures that would protect X after A takes it.

        1. Kings and soldiers may attack for ever; the king cannot be chased (that is check), nor a
           soldier on its own side of the river.
        2. The capture must be legal for `side`: its king not left attacked, the kings not facing.
           Nothing else about pins matters: a pinned piece chases wherever its capture is legal,
           including the capture of its pinner.
        3. Same kinds that could take each other are offering an exchange, not chasing."""
        board = pos.board
        attacker, victim = self.role[board[a]], self.role[board[x]]
        if attacker in FREE_ATTACKERS or victim == "king":
            return None
        if victim == "soldier" and x not in self.crossed[1 - side]:
            return None
        if attacker == victim and self._can_capture(pos, x, a):
            return None
        pos.push((a, x))
        try:
            if pos.in_check(side):
                return None
            return _recaptures(pos, x, checkers - {a})
        finally:
            pos.pop()

    def _can_capture(self, pos: Position, fr: int, to: int) -> bool:
        """Could the piece on `fr` legally capture on `to` if it were its side's move?"""
        with _turn(pos, pos.board[fr] & 1):
            return pos.is_legal((fr, to))

    # --- judging a window -------------------------------------------------------------------------

    def judge(self, pos: Position, plies: int) -> Verdict:
        """Adjudicate the last `plies` moves played on `pos` (they contain no capture)."""
        classes, chased = self._classify(pos, plies)
        loser = verdict_loser(classes)
        if loser is None:
            return Verdict(None, "repetition: draw")
        if classes[loser] == CHECK:
            return Verdict(loser, "perpetual check")
        victim = min(chased[loser])  # one piece chased throughout; the lowest point if several
        return Verdict(loser, said("perpetual chase of {piece}", piece=named.piece(pos, victim)))

    def _classify(self, pos: Position, plies: int) -> tuple[list[int], list[set[int]]]:
        """Each side's class over the window, and the points where the pieces it chased on every one of
        its moves stand now."""
        moves: list[Move] = [pos.pop() for _ in range(plies)][::-1]
        identity = {sq: sq for sq in pos.pieces[0] | pos.pieces[1]}  # piece id = its first point
        checking = [True, True]
        # Per side: the ids of the pieces it newly chased on each of its moves so far (None: no move
        # yet); an empty set means that side can no longer be chasing perpetually.
        chased: list[set[int] | None] = [None, None] if self.judge_chases else [set(), set()]
        for i, move in enumerate(moves):
            if not any(checking) and chased == [set(), set()]:
                for rest in moves[i:]:  # both sides are "allowed" whatever follows
                    pos.push(rest)
                break
            side = pos.side
            new = self._new_chases(pos, side, move, identity) if chased[side] != set() else set()
            identity[move[1]] = identity.pop(move[0])
            pos.push(move)
            if checking[side] and not pos.in_check():
                checking[side] = False
            chased[side] = new if chased[side] is None else chased[side] & new
        classes = [CHECK if checking[s] else CHASE if chased[s] else ALLOWED for s in (0, 1)]
        where = {ident: sq for sq, ident in identity.items()}
        return classes, [{where[i] for i in ids or ()} for ids in chased]

    def _new_chases(self, pos: Position, side: int, move: Move, identity: dict[int, int]) -> set[int]:
        """The ids of the pieces `move` newly chases (`new_pairs`)."""
        return {identity[x] for _, x in self.new_pairs(pos, side, move, identity)}

    def new_pairs(self, pos: Position, side: int, move: Move, identity: dict[int, int]) -> set[Pair]:
        """The chase pairs, as points after `move`, that `move` makes new: chaseable after it by an
        attacker that could not chase that piece before it (made by the moved piece, discovered, or
        unprotected by it).  `identity`: each piece's id by its point before the move."""
        pos.push(move)
        after = self.chases(pos, side)
        pos.pop()
        if not after:
            return set()
        before = {(identity[a], identity[x]) for a, x in self.chases(pos, side)}
        fr, to = move
        moved = lambda sq: identity[fr] if sq == to else identity[sq]  # noqa: E731
        return {(a, x) for a, x in after if (moved(a), moved(x)) not in before
                and not (a != to and self._cut_through_attacker(pos, side, a, x))}

    def recaptures(self, pos: Position, side: int, a: int, x: int) -> list[Move] | None:
        """After `side`'s move (the opponent to move): None unless `side`'s piece on `a` and the
        enemy on `x` meet conditions 1 to 3, else the recaptures that would protect X (a check now
        given by `side` set aside, as `chases` judges it)."""
        with _turn(pos, side):
            king = pos.kings[1 - side]
            checkers = _attackers(pos, king, side) if king >= 0 and pos.in_check(1 - side) else frozenset()
            return self._pair(pos, side, a, x, checkers)

    def _cut_through_attacker(self, pos: Position, side: int, a: int, x: int) -> bool:
        """The spec's exception: before the move (which did not move A), A and X already met
        conditions 1 to 3 and X was protected, but only by recaptures whose way ran through A's own
        point (a line through it, a horse's leg, an elephant's eye).  Such a protector attacks A
        through that line; cutting it defends A and does not chase X."""
        with _turn(pos, side):
            if (a, x) not in pos.pseudo_moves():
                return False
            recaptures = self._pair(pos, side, a, x)
            if not recaptures:
                return False
            pos.push((a, x))
            try:
                return all(_runs_through(pos, m, a) for m in recaptures)
            finally:
                pos.pop()


def verdict_loser(classes: list[int]) -> int | None:
    """The verdict table: the side whose class ranks higher (check > chase > allowed) loses."""
    if classes[0] == classes[1]:
        return None
    return 0 if classes[0] > classes[1] else 1


def _attackers(pos: Position, target: int, by: int) -> frozenset[int]:
    """The points of `by`'s pieces that could capture on `target` (pseudo-legally)."""
    return frozenset(fr for fr, to in pos.pseudo_moves(by) if to == target)


def _recaptures(pos: Position, target: int, checkers: frozenset[int]) -> list[Move]:
    """The side to move's legal captures on `target`, where a check already given by `checkers` (and
    only by them) does not make a recapture illegal.  A pinned protector is no protection."""
    if not pos.attacked(target, pos.side):
        return []
    candidates = [m for m in pos.pseudo_moves() if m[1] == target]
    if not checkers:
        return pos._legal_filter(candidates)
    out = []
    side, king = pos.side, pos.kings[pos.side]
    for move in candidates:
        if move[0] == king:  # a king may never recapture onto an attacked point
            out += pos._legal_filter([move])
            continue
        pos.push(move)
        k = pos.kings[side]
        only_the_check = not pos.kings_face() and _attackers(pos, k, 1 - side) <= checkers
        if not pos.attacked(k, 1 - side) or only_the_check:
            out.append(move)
        pos.pop()
    return out


def _runs_through(pos: Position, move: Move, point: int) -> bool:
    """Does the capture `move` need `point` empty (its line, leg or eye), i.e. would a piece standing
    there stop it?"""
    board = pos.board
    board[point] = board[move[1]]  # any piece will do: it only has to stand in the way
    try:
        return move not in pos.pseudo_moves()
    finally:
        board[point] = 0


class _turn:
    """Temporarily give the move to `side` (a null move), to ask what that side could do now."""

    def __init__(self, pos: Position, side: int) -> None:
        self.pos, self.side = pos, side

    def __enter__(self) -> None:
        self.saved = self.pos.side
        self.pos.side = self.side

    def __exit__(self, *exc: object) -> None:
        self.pos.side = self.saved
