"""Why a move is refused: the reason in terms of the position (whose piece, what blocks it, the
king left in check, the kings facing), then what the piece could do instead."""
from __future__ import annotations

from rules import named, notation
from rules.explain_hand import piece_on, why_not_hand
from rules.position import Move, Position
from rules.said import said


def why_not(pos: Position, legal: list[Move], move: Move) -> str:
    """Explain a refused move in terms of the position, then say what the piece could do."""
    v = pos.t.variant
    if v.promotion_zone and (reason := why_not_hand(pos, legal, move)):
        return reason
    fr, to = move[0], move[1]
    code = pos.board[fr]
    if fr == to:
        if not v.passing or fr != pos.kings[pos.side]:
            return (said("a piece must move to another point; to pass, write pass") if v.passing
                    else said("a piece must move to another point"))
        return said("you may not pass while your king is in check")
    if not code:
        return said("there is no piece on {square}", square=named.point(pos, fr))
    if code & 1 != pos.side:
        return said("{piece} is {owner}'s and it is {mover}'s move", piece=piece_on(pos, fr),
                    owner=said(v.side_names[code & 1]), mover=said(v.side_names[pos.side]))
    target = pos.board[to]
    # In board order (a1, a2, ..., a10, b1, ...), not text order, so h10 comes after h9.
    dests = sorted({m[1] for m in legal if m[0] == fr and m[1] != fr},
                   key=lambda sq: (sq % v.width, sq // v.width))
    options = (said("{piece} can go to {points}", piece=piece_on(pos, fr),
                    points=named.destinations(pos, fr, dests))
               if dests else said("{piece} has no legal move", piece=piece_on(pos, fr)))
    if target and target & 1 == pos.side:
        reason = said("{square} holds your own {piece}", square=named.point(pos, to),
                      piece=named.piece_name(pos, target))
    elif move in pos.pseudo_moves():
        reason = ((said("it would leave the kings facing each other on an open file")
                   if len(v.facing) == 2 else
                   said("it would leave the kings facing each other with nothing between them"))
                  if not v.kings_may_face and pos.faces_after(move)
                  else said("the kings face each other (bikjang): break the facing or pass")
                  if v.facing_must_break and pos.kings_face() and pos.faces_after(move)
                  else said("it would leave your king in check"))
    else:
        reason = _blocked(pos, move) or ""
    return said("{reason}; {options}", reason=reason, options=options) if reason else options

def _leap_entries(pos: Position, code: int, fr: int):
    """Every leap of the piece `code` on `fr` as (to, moves, captures, alternative blocking pairs)."""
    t = pos.t
    for table, moves, captures in ((t.leaps, True, True), (t.leaps_quiet, True, False),
                                   (t.leaps_capture, False, True)):
        for dest, b1, b2 in table[code][fr]:
            yield dest, moves, captures, ((b1, b2),)
    yield from t.multi_leaps[code][fr]

def _walk(pos: Position, fr: int, blocks: tuple[int, int], to: int) -> str:
    """A path as a player reads it, e.g. b1-b2-c2-c3."""
    points = (fr, *(b for b in blocks if b != pos.t.sentinel), to)
    return "-".join(notation.square_name(pos.t.variant, sq) for sq in points)

def _first_piece(pos: Position, blocks: tuple[int, int]) -> str:
    return named.point(pos, next(b for b in blocks if pos.board[b]))

def _blocked(pos: Position, move: Move) -> str | None:
    """If the piece's pattern reaches `to` but something is in the way, say what."""
    fr, to = move
    t, v = pos.t, pos.t.variant
    code = pos.board[fr]
    target = pos.board[to]
    walks = [alt for dest, moves, captures, alts in _leap_entries(pos, code, fr)
             if dest == to and (captures if target else moves) for alt in alts]
    if walks and all(any(pos.board[b] for b in alt) for alt in walks):
        blocked = [_walk(pos, fr, alt, to) for alt in walks]
        if len(blocked) == 1:
            return said("{piece} is blocked at {square}", piece=piece_on(pos, fr),
                        square=_first_piece(pos, walks[0]))
        points = named.points(pos, sorted({next(b for b in alt if pos.board[b]) for alt in walks}))
        return said("{piece} is blocked: its walks to {square} ({walks}) all pass an occupied point "
                    "({points})", piece=piece_on(pos, fr), square=named.point(pos, to),
                    walks=", ".join(blocked), points=points)
    for dest, moves, captures, strict, alts in t.screen_leaps[code][fr]:  # walking cannons
        if dest != to or not (captures if target else moves):
            continue
        if strict and target in t.cannon_codes:
            return said("{piece} never captures a cannon", piece=piece_on(pos, fr))
        counts = [sum(1 for b in alt if pos.board[b]) for alt in alts]
        if 1 not in counts:
            walked = ", ".join(f"{_walk(pos, fr, alt, to)} passes {n}" for alt, n in zip(alts, counts))
            values = {"piece": piece_on(pos, fr), "square": named.point(pos, to), "walked": walked}
            return (said("{piece} moves and captures only by walking over exactly one piece, and no "
                         "walk to {square} does ({walked})", **values) if moves else
                    said("{piece} captures only by walking over exactly one piece, and no walk to "
                         "{square} does ({walked})", **values))
        return said("{piece} cannot jump over a cannon", piece=piece_on(pos, fr))
    for ray in t.rays[code][fr]:
        if to in ray:
            between = [sq for sq in ray[:ray.index(to)] if pos.board[sq]]
            if between:
                return said("{piece} is blocked at {square}", piece=piece_on(pos, fr),
                            square=named.point(pos, between[0]))
    for ray, strict in t.hop_rays[code][fr]:  # Janggi cannon (strict), Gi-Qi -koreancannons
        if to in ray:
            between = [sq for sq in ray[:ray.index(to)] if pos.board[sq]]
            if strict and pos.board[to] in t.cannon_codes:
                return said("{piece} never captures a cannon", piece=piece_on(pos, fr))
            if len(between) != 1:
                return said("{piece} moves and captures only by jumping exactly one piece, and there "
                            "are {n} between it and {square}", piece=piece_on(pos, fr), n=len(between),
                            square=named.point(pos, to))
            if strict and pos.board[between[0]] in t.cannon_codes:
                return said("{piece} cannot jump over a cannon", piece=piece_on(pos, fr))
    for ray in t.cannon_rays[code][fr]:
        if to in ray:
            between = sum(1 for sq in ray[:ray.index(to)] if pos.board[sq])
            if pos.board[to]:
                return said("{piece} captures only by jumping exactly one piece, and there are {n} "
                            "between it and {square}", piece=piece_on(pos, fr), n=between,
                            square=named.point(pos, to))
            return said("{piece} can jump only to capture", piece=piece_on(pos, fr))
    return None
