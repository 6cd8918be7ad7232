"""Padwar qi, clause by clause (docs/games.md "Padwar qi"), from positions whose answer is
argued from the rule text in each test.  FEN letters are those of the Xiangqi piece each piece
replaces: chief K, warrior A, padwar B, thoat N, dwar R, Martian cannon C, pathan P (uppercase Red).

Unless a test says otherwise the Red chief stands on d1 and the Black chief on f10: different files,
so the facing rule stays out of the way.
"""
from __future__ import annotations

import pytest
from support.placement import placement

from rules import Game, IllegalMove

KOREAN = {"korean": True}


def fen(pieces: dict[str, str], side: str = "w") -> str:
    """A FEN from {"e5": "R", ...}; a chief that `pieces` leaves out stands on d1 (Red) / f10 (Black).
    Where no piece could ever reach a chief (only chiefs, warriors, padwars) a Black pathan stands on
    a7, far from every test, or the game would be drawn at once (the dead-position rule)."""
    letters = set(pieces.values())
    pieces = ({} if "K" in letters else {"d1": "K"}) | ({} if "k" in letters else {"f10": "k"}) | pieces
    if not letters & set("RNCPrncp"):
        pieces = {"a7": "p"} | pieces
    return placement(pieces, 10) + f" {side} - - 0 1"


def dests(pieces: dict[str, str], square: str, params=None, side: str = "w") -> set[str]:
    game = Game.new("padwarqi", params, fen(pieces, side))
    return {m[len(square):] for m in game.legal_moves() if m.startswith(square)
            and not m[len(square)].isdigit()}


def refusal(pieces: dict[str, str], move: str, params=None, side: str = "w") -> str:
    game = Game.new("padwarqi", params, fen(pieces, side))
    with pytest.raises(IllegalMove) as err:
        game.play(move)
    return str(err.value)


# --- dwar: a walk of exactly 3 orthogonal steps ------------------------------------------------------

def test_dwar_on_an_open_board_reaches_sixteen_points():
    """3 W steps that never revisit a point end 3 away in a line, on the 8 knight squares, or (by a
    U-shaped walk) on the 4 orthogonally adjacent points; never 1 or 2 away in a line, never diagonal."""
    assert dests({"e5": "R"}, "e5") == {"e8", "e2", "b5", "h5", "d7", "f7", "d3", "f3", "c6", "g6",
                                        "c4", "g4", "e6", "e4", "d5", "f5"}


def test_dwar_walk_blocked_at_its_first_point():
    """The only 3-W walk from b1 to b4 is b2-b3-b4; a piece on b2 blocks it, and the refusal says so."""
    pieces = {"b1": "R", "b2": "P"}
    assert "b4" not in dests(pieces, "b1")
    assert "the dwar on b1 is blocked at b2" in refusal(pieces, "b1b4")


def test_dwar_walk_blocked_at_its_second_point():
    pieces = {"b1": "R", "b3": "p"}
    assert "b4" not in dests(pieces, "b1")
    assert "the dwar on b1 is blocked at b3" in refusal(pieces, "b1b4")


def test_dwar_needs_only_one_open_walk_among_several():
    """b1 to c3 has three walks: b2-b3, b2-c2, c1-c2.  With b2 taken, c1-c2 is still open; with c2
    taken as well every walk is blocked."""
    assert "c3" in dests({"b1": "R", "b2": "P"}, "b1")
    pieces = {"b1": "R", "b2": "P", "c2": "p"}
    assert "c3" not in dests(pieces, "b1")
    text = refusal(pieces, "b1c3")
    assert "the dwar on b1 is blocked: its walks to c3" in text
    assert "b1-b2-b3-c3" in text and "b1-c1-c2-c3" in text and "(b2, c2)" in text


def test_dwar_reaches_an_adjacent_point_only_by_a_u_turn():
    """b1 to c1: the walk must turn back (b2-c2-c1, since the other U runs off the board); with b2
    taken there is no other way round."""
    assert "c1" in dests({"b1": "R"}, "b1")
    assert "c1" not in dests({"b1": "R", "b2": "P"}, "b1")


def test_dwar_captures_at_the_end_of_its_walk_but_never_jumps_a_piece():
    """Nothing leaps: an enemy on the destination is taken, an enemy in the way blocks."""
    assert "e8" in dests({"e5": "R", "e8": "p"}, "e5")
    assert "e8" not in dests({"e5": "R", "e7": "p", "e8": "p"}, "e5")
    assert "e8" not in dests({"e5": "R", "e8": "P"}, "e5")  # its own piece


# --- thoat: one W and one F step in either order, lame ----------------------------------------------

def test_thoat_on_an_open_board_reaches_knight_squares_and_adjacent_points():
    assert dests({"e5": "N"}, "e5") == {"d7", "f7", "d3", "f3", "c6", "g6", "c4", "g4",
                                        "e6", "e4", "d5", "f5"}


def test_thoat_knight_square_needs_one_of_its_two_walks_open():
    """e5 to f7: W to e6 then F, or F to f6 then W.  One blocker leaves the other walk; two block."""
    assert "f7" in dests({"e5": "N", "e6": "P"}, "e5")
    assert "f7" in dests({"e5": "N", "f6": "P"}, "e5")
    assert "f7" not in dests({"e5": "N", "e6": "P", "f6": "P"}, "e5")


def test_thoat_adjacent_point_has_four_bent_walks():
    """e5 to e6 is F to d6 or f6 then W sideways, or W to d5 or f5 then F up: four walks, all of
    which must be blocked to stop it."""
    assert "e6" in dests({"e5": "N", "d6": "P", "f6": "p", "d5": "P"}, "e5")
    assert "e6" not in dests({"e5": "N", "d6": "P", "f6": "p", "d5": "P", "f5": "p"}, "e5")


# --- chief and warrior: walks of two steps inside the palace ----------------------------------------

def test_chief_reaches_every_other_palace_point_in_two_steps():
    """From the corner d1, two W-or-F steps inside the palace reach all eight other palace points
    (the adjacent ones by a bent walk such as d1-e1-d2).  The Black pathan on f7 keeps the f file
    closed between the chiefs."""
    assert dests({"f7": "p"}, "d1") == {"d2", "d3", "e1", "e2", "e3", "f1", "f2", "f3"}


def test_chief_walks_stay_in_the_palace():
    """From f2 no walk may step onto the g file, even if it would come back."""
    assert dests({"f2": "K", "e10": "k", "e7": "p", "d7": "p"}, "f2") == {
        "d1", "d2", "d3", "e1", "e2", "e3", "f1", "f3"}


def test_chief_whose_palace_neighbours_are_taken_cannot_move():
    """Every walk from d1 begins on d2, e1 or e2, its only neighbours inside the palace."""
    assert dests({"d2": "A", "e1": "A", "e2": "P"}, "d1") == set()


def test_warrior_walks_two_orthogonal_steps_inside_the_palace():
    """From d1: d3 (via d2), e2 (via d2 or e1), f1 (via e1); from the centre e2 only the corners
    (via an edge point), since the other 2-W targets lie outside."""
    # The chief on e1 blocks the only walk to f1 and one of the two to e2.
    assert dests({"e1": "K", "f10": "k", "d1": "A"}, "d1") == {"d3", "e2"}
    assert dests({"d1": "K", "e2": "A"}, "e2") == {"d3", "f1", "f3"}  # d1 holds its own chief


def test_chiefs_may_not_face_on_an_open_file():
    """A chief may not step onto the file of the other chief with nothing between them."""
    pieces = {"d1": "K", "e10": "k"}
    assert dests(pieces, "d1") == {"d2", "d3", "f1", "f2", "f3"}
    game = Game.new("padwarqi", None, fen(pieces))
    with pytest.raises(IllegalMove, match="facing each other"):
        game.play("d1e2")


def test_the_piece_between_facing_chiefs_may_not_leave_the_file():
    """With the chiefs on e2 and e10 and only a dwar on e5 between, the dwar keeps to the e file."""
    pieces = {"e2": "K", "e10": "k", "e5": "R"}
    assert dests(pieces, "e5") == {"e8", "e4", "e6"}


# --- padwar -------------------------------------------------------------------------------------------

def test_padwar_walks_two_diagonal_steps_on_its_own_half():
    """2 F from e3: (±2, ±2), (0, ±2), (±2, 0), all on Red's half (ranks 1 to 5)."""
    assert dests({"e3": "B"}, "e3") == {"c5", "g5", "c1", "g1", "e5", "e1", "c3", "g3"}


def test_padwar_never_crosses_the_river_even_in_the_middle_of_its_walk():
    """From e5 everything on rank 7 is out; g5 has two walks, via f6 (across the river) and via f4.
    With f4 taken the only walk left crosses the river, so g5 is out."""
    assert dests({"e5": "B"}, "e5") == {"c5", "g5", "c3", "g3", "e3"}
    assert "g5" not in dests({"e5": "B", "f4": "P"}, "e5")


def test_korean_padwar_walks_two_diagonal_and_one_orthogonal_step_anywhere():
    """Two F steps (not straight back) sum to (±2, ±2), (±2, 0) or (0, ±2); one W step more gives the
    8 knight squares, the 8 points (±3, ±2)/(±2, ±3), (±3, 0), (0, ±3) and the 4 adjacent points:
    24 points, across the river too."""
    expect = {"b7", "h7", "b3", "h3", "c8", "g8", "c2", "g2",        # (±3, ±2), (±2, ±3)
              "d7", "f7", "d3", "f3", "c6", "g6", "c4", "g4",        # knight squares
              "b5", "h5", "e8", "e2", "d5", "f5", "e6", "e4"}        # (±3, 0), (0, ±3), adjacent
    assert dests({"e5": "B"}, "e5", KOREAN) == expect


# --- Martian cannon ------------------------------------------------------------------------------------

def test_cannon_moves_as_a_dwar():
    """(The pathan on a7: a lone cannon beside the two chiefs would be a dead position, drawn at once.)"""
    assert dests({"e5": "C", "a7": "p"}, "e5") == dests({"e5": "R"}, "e5")


@pytest.mark.parametrize("screen", ["e3", "e4"])
def test_cannon_captures_over_one_screen_on_either_intermediate_point(screen):
    """e2 to e5 is the walk e3-e4; exactly one of its two points holds a piece (either side's)."""
    assert "e5" in dests({"e2": "C", screen: "P", "e5": "r"}, "e2")
    assert "e5" in dests({"e2": "C", screen: "p", "e5": "r"}, "e2")


def test_cannon_does_not_capture_with_no_screen_or_two():
    assert "e5" not in dests({"e2": "C", "e5": "r"}, "e2")
    assert "e5" not in dests({"e2": "C", "e3": "P", "e4": "p", "e5": "r"}, "e2")
    text = refusal({"e2": "C", "e5": "r"}, "e2e5")
    assert "captures only by walking over exactly one piece" in text and "e2-e3-e4-e5 passes 0" in text


def test_cannon_captures_on_a_bent_walk():
    """e2 to f4 has the walks e3-e4, e3-f3 and f2-f3; a screen on f3 alone gives two walks with
    exactly one piece."""
    assert "f4" in dests({"e2": "C", "f3": "P", "f4": "r"}, "e2")
    assert "f4" not in dests({"e2": "C", "f4": "r"}, "e2")


def test_korean_cannon_must_jump_one_piece_to_move():
    """Alone in the middle of the board it has no move; with one screen on e6 it reaches e8, with a
    second on e7 it does not."""
    assert dests({"e5": "C"}, "e5", KOREAN) == set()
    assert "e8" in dests({"e5": "C", "e6": "P"}, "e5", KOREAN)
    assert "e8" not in dests({"e5": "C", "e6": "P", "e7": "P"}, "e5", KOREAN)


def test_korean_cannon_may_not_jump_a_cannon_nor_capture_one():
    assert "e5" not in dests({"e2": "C", "e3": "c"}, "e2", KOREAN)
    assert "e5" not in dests({"e2": "C", "e3": "P", "e5": "c"}, "e2", KOREAN)
    assert "e5" in dests({"e2": "C", "e3": "P", "e5": "r"}, "e2", KOREAN)
    assert "cannot jump over a cannon" in refusal({"e2": "C", "e3": "c"}, "e2e5", KOREAN)
    assert "never captures a cannon" in refusal({"e2": "C", "e3": "P", "e5": "c"}, "e2e5", KOREAN)


def test_standard_cannon_may_jump_and_take_a_cannon():
    assert "e5" in dests({"e2": "C", "e3": "c", "e5": "c"}, "e2")


# --- -korean palace diagonals ---------------------------------------------------------------------------

def test_korean_dwar_mixes_palace_diagonal_steps_into_its_walk():
    """c3-d3-e2-f1: one W step onto the palace, then the drawn diagonal d3-e2-f1.  f1 lies (3, -2)
    away, which three W steps never reach, so the standard dwar cannot go there."""
    assert "f1" in dests({"c3": "R"}, "c3", KOREAN)
    assert "f1" not in dests({"c3": "R"}, "c3")


def test_korean_diagonal_steps_follow_only_the_drawn_lines():
    """A dwar on e5 is two W steps from the palace, and e4-d3 or e4-f3 are not drawn lines, so its
    walks are the standard ones.  A warrior on d2 (on no diagonal) reaches d1, d3, e2, f1, f3 only
    because e2 or d1/d3 lie on drawn diagonals; the standard warrior reaches e3 and f2."""
    assert dests({"e5": "R"}, "e5", KOREAN) == dests({"e5": "R"}, "e5")
    assert dests({"e1": "K", "d2": "A"}, "d2") == {"e3", "f2"}
    assert dests({"e1": "K", "d2": "A"}, "d2", KOREAN) == {"d1", "d3", "e2", "e3", "f1", "f2", "f3"}


def test_korean_cannon_walks_the_palace_diagonal_over_a_screen():
    """d1-e2-f3-f4: e2 holds the one screen, so the Korean cannon on d1 reaches f4."""
    assert "f4" in dests({"e1": "K", "d1": "C", "e2": "A"}, "d1", KOREAN)


# --- pathan ---------------------------------------------------------------------------------------------

def test_pathan_on_its_own_half_steps_forward_or_diagonally_forward():
    assert dests({"e4": "P"}, "e4") == {"e5", "d5", "f5"}
    assert dests({"e5": "P"}, "e5") == {"e6", "d6", "f6"}  # rank 5 is still Red's half


def test_pathan_across_the_river_also_steps_sideways_and_never_back():
    assert dests({"e6": "P"}, "e6") == {"e7", "d7", "f7", "d6", "f6"}


def test_pathan_on_the_last_rank_does_not_promote():
    assert dests({"a10": "P"}, "a10") == {"b10"}
    game = Game.new("padwarqi", None, fen({"a10": "P"}))
    game.play("a10b10")
    assert game.fen().startswith("1P3k3/")


def test_black_pathan_moves_down_the_board():
    assert dests({"e7": "p"}, "e7", side="b") == {"e6", "d6", "f6"}


def test_korean_pathan_may_always_step_sideways():
    assert dests({"e4": "P"}, "e4", KOREAN) == {"e5", "d5", "f5", "d4", "f4"}


# --- endings ---------------------------------------------------------------------------------------------

def test_stalemate_wins():
    """Black: chief e10 alone; Red: dwars e8 and f6, cannon g2, chief d1.  Black is not in check (a
    dwar never reaches a point 2 away in a line).  Its chief's destinations all fail: d10 and f10 are
    knight squares of the e8 dwar, e9, d8 and f8 are next to it (U-shaped walks), f9 is three above
    the f6 dwar, d9 and d8 would face the Red chief on the open d file, and taking on e8 walks into
    the f6 dwar's knight square.  No move, no check: stalemate, and stalemate wins for Red."""
    game = Game.new("padwarqi", None, "4k4/9/4R4/9/5R3/9/9/9/6C2/3K5 b - - 0 1")
    assert not game.in_check()
    assert (game.result, game.reason) == ("1-0", "stalemate")


def test_checkmate_wins():
    """Black chief e10 alone; Red dwars e7 and f7, chief d3.  The e7 dwar checks along e8-e9.  The
    chief's escapes: d8, d9, d10 face the Red chief on the open d file; e8 and f8 are next to a dwar;
    e9 and f9 are knight squares of f7 and e7; f10 is three above f7.  Only the chief could answer
    and it cannot reach e7: checkmate, which wins."""
    game = Game.new("padwarqi", None, "4k4/9/9/4RR3/9/9/9/3K5/9/9 b - - 0 1")
    assert game.in_check()
    assert (game.result, game.reason) == ("1-0", "checkmate")


# --- FEN, parameters --------------------------------------------------------------------------------------

def test_fen_uses_the_xiangqi_letters():
    game = Game.new("padwarqi")
    assert game.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    game.play("b1c3")
    assert game.fen().endswith("/1CN4C1/9/R1BAKABNR b - - 1 1")


def test_unknown_parameter_is_refused_with_the_right_one_named():
    from rules import RulesError
    with pytest.raises(RulesError, match="korean"):
        Game.new("padwarqi", {"chinese": True})


def test_ascii_board_names_every_piece():
    board = Game.new("padwarqi").board()
    for word in ("chief", "warrior", "padwar", "thoat", "dwar", "Martian cannon", "pathan"):
        assert word in board
    assert "rD--rT--rP--rW--rC--rW--rP--rT--rD" in board


# --- repetition: judged as Xiangqi, each piece as the piece it replaces ----------------------------------

def play_cycle(fen_text: str, cycle: list[str], params=None) -> Game:
    """Play `cycle` until the game ends (the third occurrence of the start position)."""
    game = Game.new("padwarqi", params, fen_text)
    for _ in range(3):
        for move in cycle:
            if game.result == "*":
                game.play(move)
    return game


def test_perpetual_check_loses():
    """Red's dwar checks the Black chief from i9 (h9, g9 empty, three W steps to f9) and from i10
    (to f10); the chief steps f9-f10-f9.  Every Red move checks, no Black move checks or chases:
    Red's perpetual check loses when the position stands for the third time."""
    game = play_cycle("8R/5k3/9/b8/9/9/9/9/4K4/9 w - - 0 1", ["i10i9", "f9f10", "i9i10", "f10f9"])
    assert (game.result, game.reason, game.ply) == ("0-1", "perpetual check by Red", 8)


def test_perpetual_chase_of_a_cannon_by_a_dwar_loses():
    """Red's dwar (a rook) goes c4-a3-c4 and each time newly attacks Black's Martian cannon (b1 is a
    knight square of a3, b2 one of c4); the cannon, which nothing protects and which cannot take back
    without a screen, steps b1-b2-b1.  A rook chasing an unprotected cannon is a chase; Black's
    cannon moves attack nothing.  Red loses by perpetual chase."""
    game = play_cycle("9/4k4/p8/9/9/9/2R6/9/3K5/1c7 w - - 0 1", ["c4a3", "b1b2", "a3c4", "b2b1"])
    assert (game.result, game.reason) == ("0-1", "perpetual chase of the Martian cannon on b1 by Red")


@pytest.mark.parametrize("params", [None, KOREAN], ids=["standard", "korean"])
def test_idle_repetition_is_a_draw(params):
    """Both sides shuffle a piece that attacks nothing: the third occurrence is a draw."""
    game = play_cycle("9/4k4/p8/9/9/9/9/9/3K5/1c7 w - - 0 1", ["d2d3", "e9e10", "d3d2", "e10e9"], params)
    assert game.result == "1/2-1/2"
