"""Gi-Qi-Game against a second opinion: the deliberately simple generator of tests/giqi_oracle.py,
written from the spec's words, on positions from seeded random playouts of every rule option (with
pieces in hand, promoted pieces, castling rights), and the pinned perft figures (no published ones).

The rules core remembers the game's positions (a move may not recreate one); the simple generator
knows none, so every position is compared as a fresh FEN, which has no history.
"""
from __future__ import annotations

import json
import pathlib
import random

import pytest
from support import giqi_oracle as oracle

import rules
from rules import Game

PERFT = json.loads((pathlib.Path(__file__).parent / "data" / "perft_giqi.json").read_text())["giqi"]
OPTIONS = [{}, {"nodrops": True}, {"koreancannons": True}, {"nodrops": True, "warriorpromotion": True},
           {"swapriver": True}]

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def playout_positions(params: dict, seed: int, games: int, plies: int) -> list[str]:
    """FENs along random games that prefer captures and promotions, so hands fill, pieces promote
    and the board thins out."""
    rng = random.Random(seed)
    fens = []
    for _ in range(games):
        game = Game.new("giqi", params)
        for _ in range(plies):
            if game.result != "*":
                break
            fen = game.fen()
            fens.append(fen)
            board, *_ = oracle.parse_fen(fen)
            moves = game.legal_moves()
            keen = [m for m in moves if m.endswith("+") or ("*" not in m and oracle.point(m[2:4]) in board)]
            game.play(rng.choice(keen if keen and rng.random() < 0.6 else moves))
    return fens


@pytest.mark.parametrize("params", OPTIONS, ids=lambda p: "-".join(p) or "standard")
def test_legal_moves_agree_with_the_simple_generator(params):
    fens = playout_positions(params, seed=20261125, games=4, plies=90)
    assert len(fens) >= 120  # five rule sets: 600 positions and more
    seen = {"drops": 0, "promoted": 0, "check": 0}
    for fen in fens:
        ours = set(Game.new("giqi", params, fen).legal_moves())
        theirs = oracle.legal_moves(fen, params)
        assert ours == theirs, (fen, sorted(ours - theirs), sorted(theirs - ours))
        assert Game.new("giqi", params, fen).in_check() == oracle.in_check(fen, params), fen
        seen["drops"] += any("*" in m for m in ours)
        seen["promoted"] += "+" in fen.split()[0]
        seen["check"] += oracle.in_check(fen, params)
    assert seen["promoted"] and seen["check"]
    assert bool(seen["drops"]) == (not params.get("nodrops"))


@pytest.mark.parametrize("case", PERFT, ids=["drops", "nodrops"])
def test_perft_from_the_start_is_pinned(case):
    """Depths 1-3 here and by the simple generator; depth 4 (bench/perft.py): see the data's note."""
    for depth, nodes in enumerate(case["nodes"][:3], start=1):
        assert rules.perft("giqi", case["fen"], depth, case["params"]) == nodes
    assert [oracle.perft(case["fen"], depth, case["params"]) for depth in (1, 2, 3)] == case["nodes"][:3]


def test_perft_with_pieces_in_hand_agrees_with_the_simple_generator():
    """A middle game with both hands full: drops are most of the moves."""
    fen = "lh1gk2hl/1r2n2b1/f1fy1yfpf/9/4e4/9/FP1YFYFPF/1B2N2R1/L1EGKG1HL[HEPp] w KQkq - 0 9"
    for depth in (1, 2):
        assert rules.perft("giqi", fen, depth) == oracle.perft(fen, depth)
