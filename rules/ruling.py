"""Why the referee ruled as it did: each ply of a repetition's cycle, what it did (check, chase of
which piece and whether that piece was protected, an exchange offered, an idle move), and the
numbered rule (rules.rulebook) that decides.  Pure data, computed from the position the game stands
in; a server words it (pbm.commands.mails.ruling_words).

`explain(game)` explains a game that ended by repetition; `explain(game, times=2)` the repetition a
warning is about (the verdict if the cycle were played once more).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.position import Move, Position
from rules.repetition import CHASE, CHECK, Referee, verdict_loser
from rules.rulebook import Rule, rule
from rules.variant import Variant

if TYPE_CHECKING:                       # rules.game is the core's face; it does not import this
    from rules.game import Game

# Why a piece is or is not protected: a real root, none, or a false root.
ROOT, NONE, PINNED, SCREEN, KING = "root", "none", "pinned", "screen", "king"


@dataclass(frozen=True)
class Protection:
    """Whether a chased piece is protected, and why (not)."""
    protected: bool
    why: str                    # ROOT, NONE, PINNED (the protector is pinned), SCREEN (a cannon whose
    by: int | None              # screen was the attacker), KING (the general onto an attacked point)


@dataclass(frozen=True)
class Chase:
    """One piece chasing another in a ply of a repeated cycle."""
    attacker: int               # points after the ply
    victim: int
    protection: Protection
    worth_more: bool            # chased although protected (rule "worth-more")


@dataclass(frozen=True)
class Ply:
    """One ply of a repeated cycle, with what it checks and chases."""
    number: int                 # the move's number in the game, from 1
    side: int
    move: Move
    check: bool
    chases: tuple[Chase, ...]   # the pieces it newly chased (for a perpetual chaser: the one chased)
    exchange: tuple[int, int] | None   # (attacker, victim) of an exchange it offered
    board: tuple[int, ...]  # the board after it (the strip picture's)

    @property
    def kind(self) -> str:
        """"check", "chase", "exchange" or "idle": what the ply is called (a check that also chases
        is a check; its chase is listed beside it)."""
        return "check" if self.check else "chase" if self.chases else \
            "exchange" if self.exchange else "idle"


@dataclass(frozen=True)
class Ruling:
    """The ruling on a repeated cycle: who loses (None: a draw), on which rule."""
    loser: int | None           # None: a draw
    classes: tuple[int, int]    # each side's class (rules.repetition ALLOWED, CHASE, CHECK)
    victim: int | None          # the point of the piece the loser chased, where it stands now
    plies: tuple[Ply, ...]      # one cycle, ending in the repeated position
    start: int                  # the moves played before the cycle
    decides: Rule               # the numbered rule that decides
    final: bool                 # the game ended (times=3), or a warning (times=2)


def explain(game: Game, times: int = 3) -> Ruling | None:
    """The ruling on `game`'s position standing for the `times`-th time since the last capture
    (None if it does not)."""
    pos: Position = game.position
    earlier = pos.earlier_occurrences()
    if len(earlier) < times - 1:
        return None
    window = earlier[times - 2]
    referee = Referee(game.tables)
    plies, classes, chased = _replay(referee, pos, window, len(game.moves) - window + 1)
    cycle = earlier[0]
    shown = plies[-cycle:] if window == 2 * cycle and all(
        a.move == b.move for a, b in zip(plies[:cycle], plies[cycle:])) else plies
    loser = verdict_loser(classes)
    victim = min(chased[loser]) if loser is not None and classes[loser] == CHASE else None
    if victim is not None:
        shown = [_only(p, victim, plies) if p.side == loser else p for p in shown]
    decides = _deciding(game.variant, classes, loser, shown)
    start = len(game.moves) - len(shown)
    return Ruling(loser, tuple(classes), victim, tuple(shown), start, decides, times == 3)


def _replay(referee: Referee, pos: Position, plies: int,
            first: int) -> tuple[list[Ply], list[int], list[set[int]]]:
    """Each ply of the last `plies` moves on `pos` (numbered from `first`), and each side's class
    and chased pieces (the points where they stand now), as `Referee.judge` finds them."""
    moves: list[Move] = [pos.pop() for _ in range(plies)][::-1]
    identity = {sq: sq for sq in pos.pieces[0] | pos.pieces[1]}
    checking = [True, True]
    chased: list[set[int] | None] = [None, None] if referee.judge_chases else [set(), set()]
    out = []
    for i, move in enumerate(moves):
        side = pos.side
        pairs = referee.new_pairs(pos, side, move, identity) if referee.judge_chases else set()
        new = {identity[move[0]] if x == move[1] else identity[x] for _, x in pairs}
        identity[move[1]] = identity.pop(move[0])
        pos.push(move)
        check = pos.in_check()
        checking[side] = checking[side] and check
        chased[side] = new if chased[side] is None else chased[side] & new
        chases = tuple(_chase(referee, pos, side, a, x) for a, x in sorted(pairs))
        out.append(Ply(first + i, side, move, check, chases, _exchange(referee, pos, side, move),
                       tuple(pos.board[:pos.t.n])))
    classes = [CHECK if checking[s] else CHASE if chased[s] else 0 for s in (0, 1)]
    where = {ident: sq for sq, ident in identity.items()}
    return out, classes, [{where[i] for i in ids or ()} for ids in chased]


def _only(ply: Ply, victim: int, plies: list[Ply]) -> Ply:
    """`ply` with only its chase of the perpetually chased piece (followed back from where it
    stands now through the moves after `ply`)."""
    point = victim
    for later in reversed(plies):
        if later.number <= ply.number:
            break
        if later.move[1] == point:
            point = later.move[0]
    kept = tuple(c for c in ply.chases if c.victim == point)
    return Ply(ply.number, ply.side, ply.move, ply.check, kept or ply.chases, ply.exchange, ply.board)


def _chase(referee: Referee, pos: Position, side: int, a: int, x: int) -> Chase:
    """The chase of `x` by `a` just made by `side` (the opponent to move): whether X is protected,
    by what, and if not, what false protection there was."""
    roots = referee.recaptures(pos, side, a, x) or []
    if roots:    # chased all the same: the pair is one of CHASE_EVEN_IF_PROTECTED
        return Chase(a, x, Protection(True, ROOT, roots[0][0]), True)
    return Chase(a, x, _false_root(pos, side, a, x), False)


def _false_root(pos: Position, side: int, a: int, x: int) -> Protection:
    """Why nothing protects X: a protector that seems to (it attacks X's point, or would once A took
    X) but cannot take back legally, or none at all."""
    before = _protectors(pos, 1 - side, x, a)
    saved, pos.side = pos.side, side        # A's capture, as if it were `side`'s move
    pos.push((a, x))
    try:
        seeming = sorted(fr for fr, to in pos.pseudo_moves() if to == x)
        for fr in seeming:
            return Protection(False, KING if fr == pos.kings[pos.side] else PINNED, fr)
    finally:
        pos.pop()
        pos.side = saved
    lost = sorted(before - set(seeming))
    if lost:
        return Protection(False, SCREEN, lost[0])
    return Protection(False, NONE, None)


def _protectors(pos: Position, side: int, x: int, a: int) -> set[int]:
    """The points of `side`'s pieces that attack X's point as the board stands (X counted as an
    enemy piece there, the attacker A where it is)."""
    board = pos.board
    kept = board[x]
    board[x] = board[a]
    pos.pieces[side].discard(x)
    try:
        return {fr for fr, to in pos.pseudo_moves(side) if to == x}
    finally:
        board[x] = kept
        pos.pieces[side].add(x)


def _exchange(referee: Referee, pos: Position, side: int, move: Move) -> tuple[int, int] | None:
    """An exchange the moved piece now offers (the opponent to move): it attacks an enemy of its
    own kind that could legally take it back (rule "exchange")."""
    to = move[1]
    role = referee.role[pos.board[to]]
    for fr, target in pos.pseudo_moves(side):
        if fr == to and pos.board[target] and referee.role[pos.board[target]] == role \
                and pos.is_legal((target, to)):
            return to, target
    return None


def _deciding(variant: Variant, classes: list[int], loser: int | None, plies: list[Ply]) -> Rule:
    """The numbered rule that decides: perpetual check, perpetual chase (or, where the chased
    piece was protected, the rule that chases it anyway), both alike, or nothing forbidden."""
    if loser is None:
        if not variant.perpetual_chase and classes[0] != CHECK:
            return rule("janggi-repetition")
        return rule("verdict") if classes[0] == classes[1] != 0 else rule("allowed")
    if classes[loser] == CHECK:
        return rule("perpetual-check")
    protected = any(c.protection.protected for p in plies if p.side == loser for c in p.chases)
    return rule("worth-more") if protected else rule("perpetual-chase")
