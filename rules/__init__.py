"""The rules core: pure Python, no I/O.  See rules/README.md for how the games map onto it.

Public API: `Game` (play, undo, results, notation, board, setup), `PASS` (the move text of a pass),
`perft`, `variant_names`, the errors, and `rules.notation_styles` (moves written and read in the
notation a player chose: docs/notation.md).
"""
from __future__ import annotations

from collections.abc import Mapping

from rules.errors import (
    FenError,
    IllegalMove,
    NotationError,
    RulesError,
    UnknownVariant,
)
from rules.fen import parse_fen
from rules.game import Game
from rules.notation import PASS
from rules.position import perft as _perft
from rules.tables import compile_variant
from rules.variants import get_variant, variant_names


def perft(name: str, fen: str | None, depth: int, params: Mapping[str, str | bool] | None = None,
          game_ends: bool = False) -> int:
    """Number of legal move paths of length `depth` from `fen` (the start position when None); with
    `game_ends` the paths stop where a pass ends the game (see rules.position.perft)."""
    variant = get_variant(name, params)
    position = parse_fen(compile_variant(variant), fen or variant.start_fen)
    return _perft(position, depth, game_ends)


__all__ = ["Game", "PASS", "perft", "variant_names", "RulesError", "UnknownVariant", "FenError",
           "IllegalMove", "NotationError"]
