"""Why a move is refused in a game with hands (Gi-Qi-Game): drops, promotion choices, the king's
zones, the repetition rule, and what a piece gains by crossing the river.  Used by rules.explain
when a variant has drops; kept apart so the generic explanations stay generic."""
from __future__ import annotations

from dataclasses import replace

from rules import notation
from rules.patterns import Leap
from rules.position import Move, Position
from rules.said import said
from rules.tables import _leap_targets, _rays


def piece_on(pos: Position, sq: int) -> str:
    code = pos.board[sq]
    # the piece's side goes with its name: a language may name one side's piece otherwise (卒, 병)
    return said("the {piece} on {square}", piece=said(pos.t.piece_type(code).name, side=code & 1),
                square=notation.square_name(pos.t.variant, sq))


def why_not_hand(pos: Position, legal: list[Move], move: Move) -> str | None:
    """Gi-Qi-Game's own reasons: drops, promotion choices, the king's zones, the repetition rule,
    and what a piece gains by crossing the river.  None where the common reasons apply."""
    v, pos, t = pos.t.variant, pos, pos.t
    name = notation.square_name
    fr, to = move[0], move[1]
    if fr > t.n:
        ptype = t.piece_type(fr - t.n - 1)
        if not pos.owns(move):
            return f"you have no {ptype.name} in hand"
        if pos.board[to]:
            return f"a piece is dropped only on an empty square, and {name(v, to)} is taken"
        if move not in pos.pseudo_moves():
            return (f"a {ptype.name} may not be dropped on the last rank, where it would have no "
                    f"move")
    elif pos.board[to] and pos.board[to] & 1 == pos.side:
        return None
    elif pos.owns(move) and move not in pos.pseudo_moves():
        ptype = t.piece_type(pos.board[fr])
        bare = [m for m in pos.pseudo_moves() if m[:2] == (fr, to)]
        if len(move) > 2 and (fr, to) in bare:
            return (f"the {ptype.name} may promote only on a move that starts or ends in the last "
                    f"{v.promotion_zone} ranks")
        if len(move) == 2 and bare:
            return (f"the {ptype.name} must promote there, as it would have no move on the last "
                    f"rank: write {notation.format_move(v, bare[0], pos)}")
        one_step = abs(fr % v.width - to % v.width) <= 1 and abs(fr // v.width - to // v.width) <= 1
        if ptype.royal and one_step:
            return ("the king may step only into a 3x3 zone that holds one of its bodyguards or "
                    "warriors")
        crossing = _after_crossing(pos, pos.board[fr], fr)
        if to in crossing:
            here = sorted({name(v, m[1]) for m in legal if m[0] == fr})
            return (f"{piece_on(pos, fr)} has not crossed the river, so it goes only to "
                    f"{', '.join(here) or 'no square now'}; {name(v, to)} needs it across")
    elif move in pos.pseudo_moves() and move not in legal and pos.owns(move):
        side = pos.side
        pos.push(move)
        check = pos.kings[side] >= 0 and pos.attacked(pos.kings[side], 1 - side)
        pos.pop()
        if not check:
            return "it would recreate an earlier position, which is not allowed"
    return None

def _after_crossing(pos: Position, code: int, fr: int) -> set[int]:
    """Where the piece on `fr` would reach (on an empty board) with the patterns it gains once it
    has crossed the river, if it has not."""
    v, t = pos.t.variant, pos.t
    ptype = t.piece_type(code)
    side, f, r = code & 1, fr % v.width, fr // v.width
    crossed = v.regions.get("crossed")
    if crossed is None or crossed.contains(f, r, side, v.height):
        return set()
    out: set[int] = set()
    for pat in ptype.patterns:
        if pat.when != "crossed":
            continue
        if isinstance(pat, Leap):
            out |= set(_leap_targets(v, replace(pat, when=None), side, f, r))
        else:
            out |= {sq for ray in _rays(v, replace(pat, when=None), side, f, r) for sq in ray}
    return out
