"""Padwar qi against a second opinion: the deliberately simple generator of tests/padwarqi_oracle.py,
written from the spec's words (walks by brute force, legality by trying every reply), on positions
from seeded random playouts of both rule sets, and the pinned perft figures (no published ones exist).
"""
from __future__ import annotations

import json
import pathlib
import random
import re

import pytest
from support import padwarqi_oracle as oracle

import rules
from rules import Game

DEST = re.compile(r"[a-i]\d+([a-i]\d+)$")
PERFT = json.loads((pathlib.Path(__file__).parent / "data" / "perft_padwarqi.json").read_text())["padwarqi"]

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def playout_positions(params: dict, seed: int, games: int, plies: int, every: int) -> list[str]:
    """FENs along random games that prefer captures half the time, so that boards thin out and
    screens, checks, mates and stalemates come up, not only crowded openings; every position in
    check is taken."""
    rng = random.Random(seed)
    fens = []
    for _ in range(games):
        game = Game.new("padwarqi", params)
        for ply in range(plies):
            if game.result != "*":
                break
            if ply % every == 0 or game.in_check():
                fens.append(game.fen())
            moves = game.legal_moves()
            board, _ = oracle.parse_fen(game.fen())
            captures = [m for m in moves if oracle.point(DEST.match(m).group(1)) in board]
            game.play(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        fens.append(game.fen())
    return fens


@pytest.mark.parametrize("params", [{}, {"korean": True}], ids=["standard", "korean"])
def test_legal_moves_agree_with_the_simple_generator(params):
    korean = bool(params)
    fens = playout_positions(params, seed=20261125, games=14, plies=110, every=7 if korean else 5)
    assert len(fens) >= 160
    checks = ended = 0
    for fen in fens:
        game = Game.new("padwarqi", params, fen)
        ours = set(game.legal_moves()) if game.result == "*" else set()
        theirs = oracle.legal_moves(fen, korean)
        assert ours == theirs, (fen, sorted(ours - theirs), sorted(theirs - ours))
        board, side = oracle.parse_fen(fen)
        in_check = oracle.chief_in_danger(board, side == "w", korean)
        assert game.in_check() == in_check, fen
        checks += in_check
        if not theirs:  # checkmate or stalemate: the side to move has lost
            ended += 1
            assert game.result == ("0-1" if side == "w" else "1-0"), fen
    assert checks >= 10  # the sample reaches the rules that matter, not only quiet openings


@pytest.mark.parametrize("case", PERFT, ids=["standard", "korean"])
def test_perft_from_the_start_is_pinned(case):
    """Depths 1-3 here (depth 4: bench/perft.py); depths 1-2 also by the simple generator."""
    for depth, nodes in enumerate(case["nodes"][:3], start=1):
        assert rules.perft("padwarqi", case["fen"], depth, case["params"]) == nodes
    korean = bool(case["params"])
    assert [oracle.perft(case["fen"], depth, korean) for depth in (1, 2)] == case["nodes"][:2]
