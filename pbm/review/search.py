"""A finished game searched position by position, every verdict turned to the first player's side.

This is the one place pbm starts an engine on a game, and it refuses a game that is not over: the
fair-play rule (docs/review.md) is kept here, not at each caller.  The engine's process lives for one
game and is killed at the end, or when it fails.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

import rules
from pbm.review.engine import Engine, EngineError, Settings, uci_variant

LINE = 8                                # plies of the engine's line kept per position


class Point(NamedTuple):
    """The engine's verdict on the position before ply `index` + 1 (after the last move: the end)."""
    cp: int | None                      # centipawns from the first player's side (Red, Cho)
    mate: int | None                    # moves to mate, > 0 for the first player, <= 0 against
    best: str | None                    # the engine's move there (coordinates); None: no move left
    line: tuple[str, ...]               # its line, up to LINE plies, the best move first


class Game(NamedTuple):
    """A finished game as the worker gets it (from the database, or over HTTP)."""
    variant: str
    params: dict
    start_fen: str
    moves: list[str]                    # coordinates, `pass` for a pass
    finished: bool                      # the game is over: the only kind ever searched


class NotOver(ValueError):
    """A review was asked of a game still in play."""


def supported(variant: str, params: Mapping[str, object]) -> bool:
    """Whether the engine can be given the rules of a game of `variant` with `params`."""
    return uci_variant(variant, _engine_params(params)) is not None


def search(settings: Settings, game: Game, done: Callable[[int], None] = lambda ply: None) -> list[Point]:
    """A Point for each position of `game`, the start to the end; `done(i)` after each (the worker
    renews its lease there).  NotOver for a game in play; EngineError when the engine fails."""
    if not game.finished:
        raise NotOver("a game in play is never searched")
    variant = uci_variant(game.variant, _engine_params(game.params))
    if variant is None:
        raise EngineError(f"the engine cannot be given the rules of {game.variant}")
    moves = engine_moves(game)
    first = game.start_fen.split()[1]
    points = []
    with Engine(settings, variant) as engine:
        for i in range(len(moves) + 1):
            found = engine.evaluate(game.start_fen, moves[:i])
            sign = 1 if (i % 2 == 0) == (first == "w") else -1      # the side to move's view, turned
            points.append(Point(
                None if found.cp is None else sign * found.cp,
                None if found.mate is None else sign * found.mate,
                _ours(found.best), tuple(_ours(m) for m in found.line[:LINE])))
            done(i)
    return [_mated(p, i, first) for i, p in enumerate(points)]


def _mated(point: Point, index: int, first: str) -> Point:
    """`mate 0` (the side to move has been mated, or has no move) as a mate against the side to move,
    from the first player's side: -0 cannot say whose it is, so it is written -1 or +1 plies away."""
    if point.mate != 0:
        return point
    first_to_move = (index % 2 == 0) == (first == "w")
    return point._replace(mate=-1 if first_to_move else 1, cp=None)


def engine_moves(game: Game) -> list[str]:
    """The game's moves as the engine writes them: a pass is the king's move to its own point."""
    moves = []
    for i, move in enumerate(game.moves):
        if move == rules.PASS:
            before = rules.Game.from_record(game.variant, game.params or None, game.start_fen, game.moves[:i])
            move = _king_point(before.fen()) * 2
        moves.append(move)
    return moves


def _king_point(fen: str) -> str:
    board, turn = fen.split()[:2]
    king = "K" if turn == "w" else "k"
    for rank_index, rank in enumerate(board.split("/")):
        file = 0
        for token in _tokens(rank):
            if token.isdigit():
                file += int(token)
                continue
            if token == king:
                return f"{'abcdefghi'[file]}{len(board.split('/')) - rank_index}"
            file += 1
    raise EngineError(f"no king to pass with in {fen}")


def _tokens(rank: str) -> list[str]:
    """A FEN rank's tokens: numbers of empty points (maybe two digits) and pieces."""
    tokens: list[str] = []
    for c in rank:
        if c.isdigit() and tokens and tokens[-1].isdigit():
            tokens[-1] += c
        else:
            tokens.append(c)
    return tokens


def _ours(move: str | None) -> str | None:
    """An engine's move as pbm writes it: the king's move to its own point is a pass."""
    if move is None:
        return None
    return rules.PASS if move[: len(move) // 2] == move[len(move) // 2:] else move


def _engine_params(params: Mapping[str, object]) -> dict:
    """The parameters that change the rules, without Janggi's setup choices (already in the FEN)."""
    return {k: v for k, v in params.items() if k not in ("cho", "han")}
