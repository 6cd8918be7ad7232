"""Korean notation for Janggi (rules/notation_korean.py) against Fairy-Stockfish's Janggi notation.

Seeded random playouts played by pyffish (tests/pyffish_playouts.py) from several horse/elephant
arrangements give the positions; on each, every legal move is named by the rules core (08마87) and
read back, and a sample of them is also named by pyffish (`get_san(..., NOTATION_JANGGI)`: H08-87,
E45x73 for a capture, C88-85+ for a check) and pyffish's text read back.  The two must have the
same points and the same piece; pyffish writes the pass as the king's move to its own point
(K95-95), Korean records and the rules core as 한수쉼.
"""
from __future__ import annotations

import functools
import random
import re

import pyffish as sf
import pytest
from support.pyffish_playouts import PlayoutPlan, playout, rules_checking_moves

import rules
from rules import notation_styles
from rules.errors import IllegalMove, NotationError
from rules.notation import format_move, square_name
from rules.notation_korean import HANGUL, read, write

VARIANT = "janggitraditional"
# Fairy-Stockfish's piece letters and the rules core's roles, written out here.
LETTERS = {"K": "king", "A": "advisor", "E": "elephant", "H": "horse", "R": "rook", "C": "cannon",
           "P": "soldier"}
SAMPLE = 6  # moves compared with pyffish per position
PAIRS = [("inner", "inner"), ("left", "outer"), ("right", "left"), ("outer", "right")]

pytestmark = pytest.mark.slow   # checked against an independent reference over many positions


def plans() -> list[PlayoutPlan]:
    out = []
    for cho, han in PAIRS:
        start = rules.Game.new("janggi", {"cho": cho, "han": han}).start_fen
        out.append(PlayoutPlan(f"kibo-open-{cho}-{han}", start, 40, 0.3, 0.1, 0.05))
        out.append(PlayoutPlan(f"kibo-pass-{cho}-{han}", start, 30, 0.5, 0.1, 0.35))
        out.append(PlayoutPlan(f"kibo-end-{cho}-{han}", start, 100, 0.9, 0.5))
    return out


@functools.cache
def positions() -> list[str]:
    checks = functools.partial(rules_checking_moves, "janggi")
    return [v.fen for plan in plans() for v in playout(VARIANT, plan, checks, look_back=2)]


def test_enough_positions() -> None:
    assert len(positions()) >= 500


def test_every_move_named_distinctly_and_read_back() -> None:
    problems = []
    for fen in positions():
        game = rules.Game.new("janggi", fen=fen)
        pos = game.position
        legal = pos.legal_moves()
        names = [write(pos, move) for move in legal]
        if len(set(names)) != len(names):
            problems.append(f"{fen}: two moves share a name: {sorted(names)}")
        problems += [f"{fen}: {name} reads as {read(pos, name)}" for move, name in zip(legal, names)
                     if read(pos, name) != move]
    assert not problems, "\n".join(problems[:20])


def test_moves_as_pyffish_names_them() -> None:
    """pyffish takes over a millisecond a name (it looks for mate), so each position gives a seeded
    sample of its moves, the pass always among them."""
    problems = []
    compared = passes = 0
    for fen in positions():
        game = rules.Game.new("janggi", fen=fen)
        pos, v = game.position, game.variant
        legal = pos.legal_moves()
        sample = random.Random(fen).sample(legal, min(SAMPLE, len(legal)))
        sample += [m for m in legal if m[0] == m[1] and m not in sample]
        for move in sample:
            fr, to = move
            theirs = sf.get_san(VARIANT, fen, square_name(v, fr) + square_name(v, to), False,
                                sf.NOTATION_JANGGI)
            compared += 1
            if fr == to:
                passes += 1
                expected = "한수쉼"
            else:
                letter, start, end = re.fullmatch(r"([A-Z])(\d\d)[-x](\d\d)[+#]?", theirs).groups()
                expected = start + HANGUL[LETTERS[letter]][pos.side] + end
            ours = write(pos, move)
            if ours != expected:
                problems.append(f"{fen} {format_move(v, move)}: pyffish {theirs}, written {ours}")
            if read(pos, theirs) != move:
                problems.append(f"{fen}: {theirs} reads as {read(pos, theirs)}, not {format_move(v, move)}")
    assert not problems, "\n".join(problems[:20])
    assert compared >= 3_000 and passes >= 400, (compared, passes)


@pytest.mark.parametrize("text", ["08마87", "08 마 87", "08-마-87", "08馬87", "H08-87", "h0887"])
def test_forms_read(text: str) -> None:
    assert rules.Game.new("janggi").play(text) == "h1g3"


@pytest.mark.parametrize("text", ["79졸78", "79卒78", "79병78", "79兵78"])
def test_soldier_names_read(text: str) -> None:
    """Cho's soldiers are 卒 (졸), Han's 兵 (병); either name is read for either side's soldier."""
    assert rules.Game.new("janggi").play(text) == "i4h4"


@pytest.mark.parametrize("text", ["95장85", "95궁85", "95將85", "95楚85", "95漢85"])
def test_general_names_read(text: str) -> None:
    assert rules.Game.new("janggi").play(text) == "e2e3"


@pytest.mark.parametrize("text", ["한수쉼", "한수 쉼", "pass", "PASS", "95장95", "K95-95"])
def test_pass_read(text: str) -> None:
    game = rules.Game.new("janggi")
    assert game.play(text) == "pass"
    assert game.name_moves("korean") == ["한수쉼"]


def test_han_moves_and_names() -> None:
    game = rules.Game.new("janggi")
    for move in ("08마87", "41병42", "01차91"):
        game.play(move)
    assert game.moves == ["h1g3", "a7b7", "a1a2"]
    # b1 holds Cho's horse, not a chariot: the last move is refused, never guessed.
    game = rules.Game.new("janggi")
    with pytest.raises(IllegalMove, match="the piece on 02 is Cho's horse \\(마\\), not a chariot"):
        game.play("02차92")
    game.play("79졸78")
    game.play("41병42")
    assert game.name_moves("korean") == ["79졸78", "41병42"]
    assert game.name_moves("coordinates") == ["i4h4", "a7b7"]


def test_illegal_kibo_explained_as_coordinates_are() -> None:
    with pytest.raises(IllegalMove, match="08마86 is not a legal move: .*horse on h1 can go to g3, i3"):
        rules.Game.new("janggi").play("08마86")


def test_premoves_and_refusals() -> None:
    game = rules.Game.new("janggi")
    game.check_notation("41병42")       # Han's, not now: readable
    game.check_notation("한수쉼")
    with pytest.raises(NotationError, match="in Korean notation such as 08마87 .* or pass \\(한수쉼\\)"):
        game.check_notation("08말87")
    with pytest.raises(NotationError, match="no chinese notation; its notations are coordinates, korean"):
        game.name_moves("chinese")
    assert notation_styles.notations_of(game.variant) == ("coordinates", "korean")
