"""The Xiangqi move generator against published perft figures (depth 4 and beyond: bench/)."""
from __future__ import annotations

import pytest
from support.xiangqi_positions import PERFT

import rules

MAX_TEST_DEPTH = 3

CASES = [
    pytest.param(fen, depth, nodes, id=f"pos{index}-depth{depth}")
    for index, (fen, counts) in enumerate(PERFT)
    for depth, nodes in enumerate(counts[:MAX_TEST_DEPTH], start=1)
]


@pytest.mark.parametrize(("fen", "depth", "nodes"), CASES)
def test_xiangqi_perft(fen: str, depth: int, nodes: int) -> None:
    assert rules.perft("xiangqi", fen, depth) == nodes


def test_perft_of_the_start_position_needs_no_fen() -> None:
    assert rules.perft("xiangqi", None, 2) == PERFT[0][1][1]


def test_depth_one_is_the_number_of_legal_moves() -> None:
    for fen, counts in PERFT:
        assert len(rules.Game.new("xiangqi", fen=fen).legal_moves()) == counts[0]


def test_perft_agrees_with_playing_every_move() -> None:
    """perft(2) is the sum over the legal moves of the replies counted by a Game that played it,
    so perft's make/unmake and Game.play cannot drift apart."""
    fen = PERFT[1][0]
    game = rules.Game.new("xiangqi", fen=fen)
    total = 0
    for move in game.legal_moves():
        game.play(move)
        total += len(game.legal_moves())
        game.undo()
    assert total == rules.perft("xiangqi", fen, 2) == PERFT[1][1][1]
    assert game.fen() == fen
