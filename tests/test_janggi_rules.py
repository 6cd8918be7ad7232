"""Janggi in the rules core: perft, the pieces, the pass, bikjang, the endings of both rule sets, the
setup choice, the board and the command line.  (Fairy-Stockfish agrees position by position:
test_janggi_pyffish_diff.py; the slow perft figures are in bench/perft.py.)"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rules
from rules.variants.janggi import ARRANGEMENTS, parse_arrangement

REPO = Path(__file__).resolve().parent.parent
START = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
SECOND = "1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23"

# the published perft counts (the pass counts as a move).  Up to depth 3 the published counts go on past
# a pass that ends the game, like a move generator's; at depth 4 they stop there, as Fairy-Stockfish's
# perft does (pyffish, asked move by move, gives 151202 too): rules.perft(..., game_ends=True).
PERFT = [(START, [32, 1024, 33032]), (SECOND, [25, 378, 8860])]
SECOND_DEPTH_4_STOPPING_AT_GAME_ENDS = 151202


@pytest.mark.parametrize(("fen", "depth", "nodes"), [
    pytest.param(fen, depth, nodes, id=f"pos{index}-depth{depth}")
    for index, (fen, counts) in enumerate(PERFT) for depth, nodes in enumerate(counts, start=1)])
def test_perft(fen: str, depth: int, nodes: int) -> None:
    assert rules.perft("janggi", fen, depth) == nodes


def test_perft_stopping_where_a_pass_ends_the_game() -> None:
    assert rules.perft("janggi", SECOND, 4, game_ends=True) == SECOND_DEPTH_4_STOPPING_AT_GAME_ENDS
    # Two passes from the start end the game: the 32 moves after them are not counted.
    assert rules.perft("janggi", START, 3, game_ends=True) == 33032 - 32


@pytest.mark.parametrize(("cho", "nodes"), [("inner", 33032), ("left", 33200), ("right", 33200),
                                            ("outer", 33368)])
def test_perft_of_each_cho_arrangement(cho: str, nodes: int) -> None:
    assert rules.perft("janggi", None, 3, {"cho": cho}) == nodes


# --- the setup choice --------------------------------------------------------------------------

@pytest.mark.parametrize(("cho", "han", "start"), [
    ("inner", "inner", START),
    ("left", "inner", "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1"),
    ("right", "inner", "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ANBR w - - 0 1"),
    ("outer", "outer", "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"),
    # Han names its sides from its own seat: its left is the i-file.
    ("inner", "left", "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"),
    ("inner", "right", "rbna1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"),
])
def test_arrangements_set_up_the_horses_and_elephants(cho: str, han: str, start: str) -> None:
    game = rules.Game.new("janggi", {"cho": cho, "han": han})
    assert game.start_fen == game.fen() == start
    assert game.params == {"cho": cho, "han": han}


def test_the_standard_arrangement_is_the_default() -> None:
    assert rules.Game.new("janggi").start_fen == START
    assert rules.Game.new("janggi").params == {}
    assert [a.key for a in ARRANGEMENTS] == ["inner", "left", "right", "outer"]
    assert (ARRANGEMENTS[0].hangul, ARRANGEMENTS[0].letters, ARRANGEMENTS[0].swap) == \
        ("마상상마", "HEEH", "kept")


@pytest.mark.parametrize(("text", "key"), [
    ("1", "inner"), ("inner", "inner"), ("Standard", "inner"), ("마상상마", "inner"),
    ("ma-sang-sang-ma", "inner"), ("MA SANG SANG MA", "inner"), ("heeh", "inner"), ("an-sang", "inner"),
    ("2", "left"), ("EHEH", "left"), ("left swapped", "left"), ("상마상마", "left"),
    ("3", "right"), ("HEHE", "right"), ("right-swapped", "right"), ("마상마상", "right"),
    ("4", "outer"), ("EHHE", "outer"), ("both swapped", "outer"), ("sang-ma-ma-sang", "outer"),
    ("바깥상", "outer"),
])
def test_what_a_player_may_type_for_an_arrangement(text: str, key: str) -> None:
    assert parse_arrangement(text).key == key


def test_an_unknown_arrangement_lists_the_choices() -> None:
    with pytest.raises(rules.NotationError) as refusal:
        parse_arrangement("HHEE")
    message = str(refusal.value)
    assert "'HHEE'" in message
    for a in ARRANGEMENTS:
        assert a.key in message and a.hangul in message and a.romanized in message and a.letters in message


def test_setup_before_each_sides_first_move() -> None:
    game = rules.Game.new("janggi")
    assert game.setup("w", "EHEH").key == "left"
    game.play("c1d3")  # the horse, which now stands on c1
    assert game.setup("han", "outer").key == "outer"  # Han chooses after Cho's first move
    assert game.params == {"cho": "left", "han": "outer"}
    assert game.start_fen == "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1"
    assert game.moves == ["c1d3"]
    assert game.fen() == "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C1N3C1/4K4/RB1A1ABNR b - - 1 1"
    stored = rules.Game.from_record("janggi", game.params, game.start_fen, game.moves)
    assert stored.fen() == game.fen()
    with pytest.raises(rules.IllegalMove, match="Cho has made its first move"):
        game.setup("w", "inner")
    game.play("c10d8")
    with pytest.raises(rules.IllegalMove, match="Han has made its first move"):
        game.setup("b", "inner")


def test_setup_only_from_the_standard_start() -> None:
    with pytest.raises(rules.IllegalMove, match="not the standard start"):
        rules.Game.new("janggi", fen="4k4/9/9/9/9/9/9/9/3K5/9 w - - 0 1").setup("w", "left")
    with pytest.raises(rules.IllegalMove, match="no setup choice"):
        rules.Game.new("xiangqi").setup("w", "left")
    with pytest.raises(rules.IllegalMove, match="not a side"):
        rules.Game.new("janggi").setup("red", "left")


def test_parameters_are_checked() -> None:
    with pytest.raises(rules.RulesError, match="janggi has no parameter colour"):
        rules.Game.new("janggi", {"colour": "blue"})
    with pytest.raises(rules.NotationError):
        rules.Game.new("janggi", {"cho": "sideways"})
    assert rules.Game.new("janggi", {"points": "no"}).params == {}
    assert rules.Game.new("janggi", {"points": True}).params == {"points": True}
    assert "janggi" in rules.variant_names()
    assert rules.Game.new("xiangqi").params == {}


# --- the pieces ----------------------------------------------------------------------------------

def moves_from(fen: str, square: str) -> list[str]:
    return [m[len(square):] for m in rules.Game.new("janggi", fen=fen).legal_moves()
            if m.startswith(square) and not m[len(square)].isdigit()]


def refusal(fen: str, move: str) -> str:
    with pytest.raises(rules.IllegalMove) as refused:
        rules.Game.new("janggi", fen=fen).play(move)
    return str(refused.value)


def test_king_and_advisors_follow_the_palace_lines() -> None:
    fen = "3k5/9/9/9/9/9/9/9/4K4/3A5 w - - 0 1"
    assert sorted(moves_from(fen, "e2")) == ["d2", "d3", "e1", "e3", "f1", "f2", "f3"]  # d1: advisor
    assert sorted(moves_from(fen, "d1")) == ["d2", "e1"]  # its diagonal leads to the occupied e2
    fen = "5k3/9/9/9/9/9/9/3K5/9/4A4 w - - 0 1"
    assert sorted(moves_from(fen, "d3")) == ["d2", "e2", "e3"]  # the palace, along its lines
    assert sorted(moves_from(fen, "e1")) == ["d1", "e2", "f1"]  # e1 has no diagonal line


def test_elephant_is_stopped_by_either_point_it_passes() -> None:
    fen = "3k5/9/9/5P3/9/4B4/4P4/9/4K4/9 w - - 0 1"
    assert sorted(moves_from(fen, "e5")) == ["b3", "b7", "c8", "h3", "h7"]
    assert "blocked at f7" in refusal(fen, "e5g8")  # the second point
    assert "blocked at e4" in refusal(fen, "e5c2")  # the first point


def test_cannon_jumps_one_piece_that_is_not_a_cannon() -> None:
    fen = "3k5/9/c8/9/9/p8/9/9/4K4/C8 w - - 0 1"
    assert sorted(moves_from(fen, "a1")) == ["a6", "a7"]  # no move without a screen, never onto a8
    assert "never captures a cannon" in refusal(fen, "a1a8")
    assert "exactly one piece, and there are 0" in refusal(fen, "a1a3")
    fen = "3k5/9/9/9/9/9/1C7/9/4K4/1C7 w - - 0 1"
    assert moves_from(fen, "b1") == []
    assert "cannot jump over a cannon" in refusal(fen, "b1b6")


def test_cannon_chariot_and_soldier_on_the_palace_diagonals() -> None:
    fen = "3k1r3/4a4/3C5/9/9/9/9/9/9/4K4 w - - 0 1"
    assert "f10" in moves_from(fen, "d8")  # over the advisor on e9
    assert "f10" not in moves_from("3k1r3/4c4/3C5/9/9/9/9/9/9/4K4 w - - 0 1", "d8")  # not over a cannon
    assert sorted(moves_from("5k3/9/9/9/9/9/9/9/4K4/3R5 w - - 0 1", "d1")) == \
        ["a1", "b1", "c1", "d10", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9",
         "e1", "f1", "g1", "h1", "i1"]  # its king on e2 closes the diagonal
    assert sorted(moves_from("5k3/9/9/9/9/9/9/9/3K5/3R5 w - - 0 1", "d1")) == \
        ["a1", "b1", "c1", "e1", "e2", "f1", "f3", "g1", "h1", "i1"]
    soldiers = "3k5/9/3P1P3/9/9/9/9/9/9/5K3 w - - 0 1"
    assert sorted(moves_from(soldiers, "d8")) == ["c8", "d9", "e8", "e9"]
    assert sorted(moves_from("4k4/9/9/3P5/9/9/9/9/9/5K3 w - - 0 1", "d7")) == ["c7", "d8", "e7"]


# --- pass, bikjang and the endings ----------------------------------------------------------------

def test_pass_is_a_move_except_in_check() -> None:
    game = rules.Game.new("janggi")
    assert "pass" in game.legal_moves() and len(game.legal_moves()) == 32
    assert game.play("PASS") == "pass"
    assert game.play("e9e9") == "pass"  # Fairy-Stockfish's spelling: the king to its own point
    assert game.moves == game.notation == ["pass", "pass"]
    checked = rules.Game.new("janggi", fen="4k4/9/9/4c4/9/9/4N4/9/4K4/9 w - - 0 1")
    assert checked.in_check() and "pass" not in checked.legal_moves()
    with pytest.raises(rules.IllegalMove, match="you may not pass while your king is in check"):
        checked.play("pass")
    with pytest.raises(rules.IllegalMove, match="to pass, write pass"):
        rules.Game.new("janggi").play("a1a1")


def test_two_passes_in_a_row_end_the_game() -> None:
    game = rules.Game.new("janggi")
    game.play("pass")
    assert game.result == "*"
    game.play("pass")
    assert (game.result, game.reason, game.legal_moves()) == ("1/2-1/2", "two passes in a row", [])
    game.undo()
    assert game.result == "*" and "pass" in game.legal_moves()
    scored = rules.Game.from_record("janggi", {"points": True}, None, ["pass", "pass"])
    assert (scored.result, scored.reason) == \
        ("0-1", "two passes in a row: decided on points, Cho 72 - Han 73.5")


def test_bikjang_must_be_answered_and_a_pass_ends_the_game() -> None:
    game = rules.Game.new("janggi")
    game.play("e4d4")
    game.play("e7d7")  # the e-file is open: the kings face each other
    legal = game.legal_moves()
    assert "pass" in legal and "e2d2" in legal and "a1a2" not in legal and "e2e3" not in legal
    with pytest.raises(rules.IllegalMove, match="bikjang"):
        game.play("a1a2")
    game.play("pass")
    assert (game.result, game.reason) == ("1/2-1/2", "bikjang")
    scored = rules.Game.from_record("janggi", {"points": True}, None, game.moves)
    assert (scored.result, scored.reason) == ("0-1", "bikjang: decided on points, Cho 72 - Han 73.5")
    # The elephant steps between the kings.
    broken = rules.Game.from_record("janggi", None, None, ["e4d4", "e7d7", "c1e4"])
    assert broken.result == "*"


def test_in_bikjang_the_pass_is_allowed_even_in_check() -> None:
    game = rules.Game.new("janggi", fen="4k4/9/9/9/9/9/9/9/r3K4/9 w - - 0 1")
    assert game.in_check()
    assert game.legal_moves() == ["e2d1", "e2d3", "e2f1", "e2f3", "pass"]
    game.play("pass")
    assert (game.result, game.reason) == ("1/2-1/2", "bikjang")


def test_checkmate() -> None:
    game = rules.Game.new("janggi", fen="4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    game.play("b1b10")
    assert (game.result, game.reason, game.legal_moves()) == ("1-0", "checkmate", [])


def test_100_plies_without_capture() -> None:
    fen = "3k5/9/9/9/9/9/9/9/4A4/4KR3 w - - 99 80"
    game = rules.Game.new("janggi", fen=fen)
    game.play("f1f2")
    assert (game.result, game.reason) == ("1/2-1/2", "100 plies without capture")
    scored = rules.Game.new("janggi", {"points": True}, fen=fen)
    scored.play("f1f2")
    assert (scored.result, scored.reason) == \
        ("1-0", "100 plies without capture: decided on points, Cho 16 - Han 1.5")


def test_fen_as_fairy_stockfish_writes_it() -> None:
    game = rules.Game.new("janggi", fen="rhea1aehr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RHEA1AEHR")
    assert game.fen() == START  # E and H read as B and N, Cho (uppercase) to move as w
    game.play("pass")
    assert game.fen() == START.replace(" w - - 0 1", " b - - 1 1")  # a pass counts as a quiet ply


# --- the board and the command line ---------------------------------------------------------------

START_BOARD = r"""
     A   B   C   D   E   F   G   H   I

10  hR--hH--hE--hG---+--hG--hE--hH--hR 10   Han
     |   |   |   | \ | / |   |   |   |
 9   +---+---+---+--hK---+---+---+---+  9
     |   |   |   | / | \ |   |   |   |
 8   +--hC---+---+---+---+---+--hC---+  8
     |   |   |   |   |   |   |   |   |
 7  hS---+--hS---+--hS---+--hS---+--hS  7
     |   |   |   |   |   |   |   |   |
 6   +---+---+---+---+---+---+---+---+  6
     |   |   |   |   |   |   |   |   |
 5   +---+---+---+---+---+---+---+---+  5
     |   |   |   |   |   |   |   |   |
 4  cS---+--cS---+--cS---+--cS---+--cS  4
     |   |   |   |   |   |   |   |   |
 3   +--cC---+---+---+---+---+--cC---+  3
     |   |   |   | \ | / |   |   |   |
 2   +---+---+---+--cK---+---+---+---+  2
     |   |   |   | / | \ |   |   |   |
 1  cR--cH--cE--cG---+--cG--cE--cH--cR  1   Cho

     A   B   C   D   E   F   G   H   I

c = Cho (moves first), h = Han.  K king, G guard (advisor), E elephant,
H horse, R chariot, C cannon, S soldier.
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rules", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=60, check=False)


def test_board_shows_palace_lines_no_river_and_a_legend() -> None:
    done = run("board", "janggi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip("\n") == START_BOARD.strip("\n")


def test_command_line() -> None:
    legal = run("legal", "janggi")
    assert legal.returncode == 0 and legal.stdout.split()[-1] == "pass" and len(legal.stdout.split()) == 32
    perft = run("perft", "janggi", "3", "--param", "cho=outer")
    assert perft.returncode == 0 and perft.stdout.strip() == "33368"
    play = run("play", "janggi", "--param", "points", "pass", "pass")
    assert play.returncode == 0, play.stderr
    assert '"result": "0-1"' in play.stdout and "Cho 72 - Han 73.5" in play.stdout
    refused = run("play", "janggi", "--param", "han=diagonal", "pass")
    assert refused.returncode == 2 and "choose one of" in refused.stderr and "Traceback" not in refused.stderr


def test_setup_choice_needs_the_standard_start():
    with pytest.raises(rules.RulesError, match="setup choice"):
        rules.Game.new("janggi", {"cho": "outer"}, "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1")
    game = rules.Game.new("janggi", {"cho": "outer"})
    assert game.arrangement("w").key == "outer" and game.arrangement("b").key == "inner"
    assert game.may_setup("w") and game.may_setup("Han")
    game.play("a1a2")
    assert not game.may_setup("w") and game.may_setup("b")
    assert rules.Game.new("xiangqi").arrangement("w") is None
