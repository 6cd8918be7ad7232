"""Gi-Qi-Game, clause by clause (docs/games.md "Gi-Qi-Game"), from positions whose answer is
argued from the rule text in each test.  Unless a test places them, the White king stands on a1 and the
Black king on h9 (on no common rank, file or diagonal), with no guard: they cannot move.

Ranks 1-4 are White's half, rank 5 the river (a5 c5 e5 g5 i5 strong, b5 d5 f5 h5 weak), ranks 6-9
Black's half; White's promotion zone is ranks 7-9.
"""
from __future__ import annotations

import pytest
from support.placement import placement

from rules import Game, IllegalMove

NODROPS = {"nodrops": True}


def fen(pieces: dict[str, str], side: str = "w", hands: str = "", castling: str = "-") -> str:
    letters = [v.lstrip("+") for v in pieces.values()]
    pieces = ({} if "K" in letters else {"a1": "K"}) | ({} if "k" in letters else {"h9": "k"}) | pieces
    return placement(pieces, 9) + f"[{hands}] {side} {castling} - 0 1"


def game(pieces, params=None, **kw) -> Game:
    return Game.new("giqi", params, fen(pieces, **kw))


def dests(pieces: dict[str, str], square: str, params=None, **kw) -> set[str]:
    """Destinations of the piece on `square` (promotion suffixes dropped)."""
    return {m[2:4] for m in game(pieces, params, **kw).legal_moves() if m.startswith(square)}


def moves_from(pieces, square, params=None, **kw) -> set[str]:
    return {m for m in game(pieces, params, **kw).legal_moves() if m.startswith(square)}


def refusal(pieces, move, params=None, **kw) -> str:
    with pytest.raises(IllegalMove) as err:
        game(pieces, params, **kw).play(move)
    return str(err.value)


# --- the river: crossed means the far half or a strong river square ------------------------------------

def test_horse_leaps_two_forward_knight_squares_until_it_crosses():
    """Own half (b4) and a weak river square (b5): only (±1, +2); on a strong river square (c5) and
    across (e6): all four forward knight leaps."""
    assert dests({"b4": "H"}, "b4") == {"a6", "c6"}
    assert dests({"b5": "H"}, "b5") == {"a7", "c7"}
    assert dests({"c5": "H"}, "c5") == {"b7", "d7", "a6", "e6"}
    assert dests({"e6": "H"}, "e6") == {"d8", "f8", "c7", "g7"}


def test_swapriver_makes_the_even_river_squares_strong():
    assert dests({"b5": "H"}, "b5", {"swapriver": True}) == {"a7", "c7", "d6"}
    assert dests({"c5": "H"}, "c5", {"swapriver": True}) == {"b7", "d7"}


def test_lance_is_a_forward_rook_that_also_slides_sideways_once_crossed():
    assert dests({"b4": "L"}, "b4") == {"b5", "b6", "b7", "b8", "b9"}
    assert dests({"b5": "L"}, "b5") == {"b6", "b7", "b8", "b9"}          # weak square
    assert dests({"c5": "L"}, "c5") >= {"a5", "b5", "d5", "i5", "c9"}      # strong square
    assert "a4" not in dests({"c4": "L"}, "c4")


def test_crossing_is_judged_from_each_side():
    """For Black the far half is ranks 1-4; a Black horse on g5 (strong) leaps like a crossed one."""
    assert dests({"g5": "h"}, "g5", side="b") == {"f3", "h3", "e4", "i4"}
    assert dests({"g6": "h"}, "g6", side="b") == {"f4", "h4"}


def test_bodyguard_is_a_copper_general_and_a_gold_general_once_crossed():
    """Besides its steps it may teleport beside the king on a1: to b1 and b2, not to a2, from where
    a copper general would attack a1 (straight back)."""
    assert dests({"e3": "G"}, "e3") == {"e4", "e2", "d4", "f4", "b1", "b2"}
    assert dests({"e6": "G"}, "e6") == {"e7", "e5", "d7", "f7", "d6", "f6", "b1", "b2"}


def test_warrior_is_a_silver_general_and_a_drunk_elephant_once_crossed():
    """Teleports beside the king on a1: a2 and b1, not b2 (a silver general attacks diagonally back)."""
    assert dests({"e3": "+G"}, "e3") == {"e4", "d4", "f4", "d2", "f2", "a2", "b1"}
    assert dests({"e6": "+G"}, "e6") == {"e7", "d7", "f7", "d5", "f5", "d6", "f6", "a2", "b1"}


def test_peasant_moves_forward_captures_diagonally_and_moves_sideways_once_crossed():
    assert dests({"e3": "P", "d4": "p", "e4": "p"}, "e3") == {"d4"}
    assert dests({"e6": "P", "d6": "p"}, "e6") == {"e7", "f6"}   # sideways: moves, never captures


def test_foot_soldier_moves_and_captures_forward_and_sideways_once_crossed():
    assert dests({"e3": "F"}, "e3") == {"e4"}
    assert dests({"e6": "F", "d6": "p"}, "e6") == {"e7", "d6", "f6"}


def test_yeoman_moves_diagonally_forward_and_captures_forward_and_sideways_once_crossed():
    assert dests({"e3": "Y", "e4": "p"}, "e3") == {"d4", "f4", "e4"}
    assert dests({"e3": "Y", "d4": "p"}, "e3") == {"f4"}
    assert dests({"e6": "Y", "d6": "p"}, "e6") == {"d7", "f7", "d6"}


def test_elephant_is_a_forward_bishop_and_the_river_changes_nothing():
    assert dests({"e3": "E"}, "e3") == {"d4", "c5", "b6", "a7", "f4", "g5", "h6", "i7"}


# --- promoted pieces -------------------------------------------------------------------------------------

def test_dragons_add_the_king_step():
    assert dests({"e3": "+R", "e4": "P", "e2": "P", "d3": "P", "f3": "P"}, "e3") == {"d4", "f4", "d2", "f2"}
    assert dests({"e3": "+B", "d4": "P", "f4": "P", "d2": "P", "f2": "P"}, "e3") == {"e4", "e2", "d3", "f3"}
    assert dests({"e5": "+N"}, "e5") == {"d7", "f7", "c6", "g6", "c4", "g4", "d3", "f3",
                                         "e6", "e4", "d5", "f5", "d6", "f6", "d4", "f4"}


def test_heavy_cavalry_steps_orthogonally_then_one_or_two_diagonally_outward():
    """From e5 forward: e6 must be empty, then d7/f7, then c8/g8 if d7/f7 are empty."""
    assert {"d7", "f7", "c8", "g8"} <= dests({"e5": "+H"}, "e5")
    assert not {"d7", "f7", "c8", "g8"} & dests({"e5": "+H", "e6": "p"}, "e5")
    assert "c8" not in dests({"e5": "+H", "d7": "p"}, "e5") and "d7" in dests({"e5": "+H", "d7": "p"}, "e5")


@pytest.mark.parametrize("letter", ["+L", "+E"])
def test_cannon_and_arrow_capture_over_one_screen(letter):
    line = ("e3", "e5", "e7") if letter == "+L" else ("c3", "e5", "g7")
    pieces = {line[0]: letter, line[1]: "P", line[2]: "p"}
    assert line[2] in dests(pieces, line[0])
    assert line[2] not in dests({line[0]: letter, line[2]: "p"}, line[0])


def test_korean_cannons_must_hop_to_move_and_may_take_their_own_kind():
    pieces = {"e3": "+L", "e5": "P", "e7": "+l"}
    assert dests(pieces, "e3", {"koreancannons": True}) == {"e6", "e7"}
    assert "e4" in dests(pieces, "e3")


def test_marshal_queen_and_adjutant():
    assert {"e9", "a5", "d7", "c6"} <= dests({"e5": "+P"}, "e5")
    assert {"e9", "a5", "i9", "b2"} <= dests({"e5": "+F"}, "e5")
    assert {"a9", "i9", "d7", "c6"} <= dests({"e5": "+Y"}, "e5") and "e9" not in dests({"e5": "+Y"}, "e5")


# --- promotion -----------------------------------------------------------------------------------------

def test_promotion_is_optional_on_moves_into_within_and_out_of_the_zone():
    assert moves_from({"e6": "P"}, "e6") == {"e6e7", "e6e7+", "e6d6", "e6f6"}
    assert moves_from({"e7": "R", "e9": "p"}, "e7") >= {"e7e6", "e7e6+", "e7e9", "e7e9+"}
    assert "e4e5+" not in moves_from({"e4": "R"}, "e4")


def test_promotion_is_compulsory_where_the_piece_would_have_no_move():
    """A horse or elephant on the last rank could never move again: only the promoting move."""
    assert moves_from({"c7": "H"}, "c7") == {"c7b9+", "c7d9+", "c7a8", "c7a8+", "c7e8", "c7e8+"}
    assert "must promote" in refusal({"c7": "H"}, "c7d9=")
    g = game({"c7": "H"})
    g.play("c7d9")   # the bare move has only the promoting reading
    assert "+H" in g.fen().split()[0]


def test_lance_peasant_and_yeoman_need_not_promote_on_the_last_rank():
    assert "e8e9" in moves_from({"e8": "L"}, "e8")
    assert "e8e9" in moves_from({"e8": "P"}, "e8")


def test_warriorpromotion_offers_the_warrior_to_pawn_like_pieces_without_drops():
    params = {"nodrops": True, "warriorpromotion": True}
    assert moves_from({"e6": "F"}, "e6", params) >= {"e6e7", "e6e7+", "e6e7+G"}
    g = game({"e6": "F"}, params)
    g.play("e6e7+G")
    assert "+G" in g.fen().split()[0]
    with pytest.raises(Exception, match="nodrops"):
        Game.new("giqi", {"warriorpromotion": True})


# --- drops ------------------------------------------------------------------------------------------------

def test_captured_pieces_change_side_and_demote():
    g = game({"e3": "R", "e5": "+b"})
    g.play("e3e5")
    assert g.fen().split()[0].endswith("[B]")


def test_no_drop_on_the_last_rank_where_the_piece_could_not_move():
    g = game({}, hands="HEPL")
    drops = {m for m in g.legal_moves() if "*" in m}
    assert "H*e9" not in drops and "E*e9" not in drops and "H*e8" in drops
    assert "L*e9" in drops and "P*e9" in drops
    assert "may not be dropped on the last rank" in refusal({}, "H*e9", hands="H")


def test_pawn_like_pieces_may_share_a_file_and_mate_by_drop():
    assert "P*e4" in game({"e3": "P", "e6": "F"}, hands="P").legal_moves()
    # The Black king on i9 has no guard, so it cannot move; a foot soldier dropped on i8 checks it
    # (it takes straight forward), and only the king could take it: checkmate by a dropped pawn.
    g = game({"a2": "K", "i9": "k"}, hands="F")
    g.play("F*i8")
    assert (g.result, g.reason) == ("1-0", "checkmate")


def test_nodrops_keeps_no_hands():
    g = game({"e3": "R", "e5": "b"}, NODROPS)
    g.play("e3e5")
    assert "[]" in g.fen() and not any("*" in m for m in g.legal_moves())


# --- teleport, king zones, facing -------------------------------------------------------------------------

def test_bodyguard_teleports_beside_its_king_where_it_would_not_attack_it():
    """King e5 on the (strong) river square, bodyguard on a1, whose own steps are a2 and b2.  On the
    weak d5, f5 a copper general attacks forward, back and diagonally forward: not e5, allowed.  On
    d4, f4 it would attack e5 diagonally forward; on e6 (crossed: a gold general) straight back:
    excluded.  On d6, f6 a gold general attacks sideways and forward, not diagonally back: allowed.
    e4 holds a yeoman."""
    pieces = {"e5": "K", "a1": "G", "e4": "Y"}
    assert dests(pieces, "a1") == {"d5", "f5", "d6", "f6", "a2", "b2"}


def test_crossed_bodyguard_teleports_only_diagonally_in_front():
    """King e6, on Black's half: only d7 and f7 are squares from which a gold general would not
    attack e6 (d5 and f5 are weak squares, where a copper general attacks e6 diagonally forward); a8
    and b9 are the bodyguard's own steps from a9."""
    assert dests({"e6": "K", "i9": "k", "a9": "G"}, "a9") == {"d7", "f7", "a8", "b9"}


def test_warrior_teleports_sideways_or_in_front_and_only_in_front_once_crossed():
    """King e2 (own half: silver generals around it): d2, f2 beside it and e3 in front.  King e6: only
    e7, where a drunk elephant, which never steps straight back, does not attack it.  b8 and b9 are
    the warrior's own steps from a9."""
    assert dests({"e2": "K", "i9": "k", "a9": "+G"}, "a9") == {"d2", "f2", "e3", "b8", "b9"}
    assert dests({"e6": "K", "i9": "k", "a9": "+G"}, "a9") == {"e7", "b8", "b9"}


def test_king_steps_only_into_a_zone_holding_a_guard_and_may_be_immobile():
    """King e5 in the zone d4-f6, its bodyguard on c1 in the zone a1-c3: every square it could step
    to lies in its own zone, which holds no guard, so it cannot move.  With a bodyguard on e8 (zone
    d7-f9) a king on e6 may step to d7, e7, f7 and nowhere else."""
    assert dests({"e5": "K", "c1": "G"}, "e5") == set()
    assert dests({"e6": "K", "i9": "k", "e8": "G"}, "e6") == {"d7", "e7", "f7"}
    assert "zone" in refusal({"e6": "K", "i9": "k", "e8": "G"}, "e6d6")


def test_kings_may_not_face_on_a_diagonal():
    """Kings a1 and e5 on the a1-i9 diagonal, a White foot soldier on c3 between: it may not leave
    the diagonal.  (The rook on h1 gives White a move, so the game is not over.)"""
    pieces = {"a1": "K", "e5": "k", "c3": "F", "h1": "R"}
    assert dests(pieces, "c3") == set()
    assert "facing each other with nothing between them" in refusal(pieces, "c3c4")


# --- castling ---------------------------------------------------------------------------------------------

CASTLE = {"e1": "K", "a1": "L", "i1": "L", "e2": "G", "e9": "k"}  # e2 closes the e file


def test_castling_with_either_lance_two_or_three_squares():
    g = game(CASTLE, castling="KQ")
    assert {"e1c1", "e1b1", "e1g1", "e1h1"} <= set(g.legal_moves())
    g.play("e1b1")
    assert g.fen().split()[0].endswith("/4G4/1KL5L[]") and g.fen().split()[2] == "-"


@pytest.mark.parametrize(("extra", "rights", "gone"), [
    ({}, "K", {"e1c1", "e1b1"}),                       # the a-file lance has moved: no right
    ({"c1": "H"}, "KQ", {"e1c1", "e1b1"}),             # a piece between king and lance
    ({"d3": "n"}, "KQ", {"e1c1", "e1b1", "e1g1", "e1h1"}),  # the king is in check (knight d3)
    ({"d5": "r"}, "KQ", {"e1c1", "e1b1"}),             # d1, which both pass, is attacked
    ({"b5": "r"}, "KQ", {"e1b1"}),                     # b1, where only the long one lands, is attacked
])
def test_castling_refused(extra, rights, gone):
    legal = set(game({**CASTLE, **extra}, castling=rights).legal_moves())
    assert not gone & legal
    assert {"e1c1", "e1b1", "e1g1", "e1h1"} - gone <= legal


def test_no_castling_across_a_point_facing_the_other_king():
    """Black king on d9 with the d file open: the king may not pass d1 (it would face it there), so
    only the castlings toward the i-file lance remain."""
    pieces = {"e1": "K", "a1": "L", "i1": "L", "e2": "G", "d9": "k"}
    legal = set(game(pieces, castling="KQ").legal_moves())
    assert {"e1g1", "e1h1"} <= legal and not {"e1c1", "e1b1"} & legal


# --- the repetition rule ------------------------------------------------------------------------------------

def test_a_move_that_recreates_an_earlier_position_is_illegal():
    g = game({"e1": "K", "d1": "G", "e9": "k", "d9": "g", "e5": "F", "e6": "f"})
    g.play("e1e2")
    g.play("e9e8")
    g.play("e2e1")
    assert "e8e9" not in g.legal_moves()
    assert "recreate an earlier position" in str(pytest.raises(IllegalMove, g.play, "e8e9").value)


def test_a_player_whose_every_move_would_repeat_loses():
    """After b8b9 Black is in check along rank 9 from the dragon rook on b9.  Its king has no guard and
    cannot move, nothing can take b9, and the only block is c4-c9 (the rook on c3 is behind c4),
    which would recreate the position after Black's g9c9.  Black has no allowed move and loses; it
    is not checkmate, since a block exists."""
    g = Game.new("giqi", NODROPS, "8k/9/7r1/9/9/9/2r6/9/K2R5[] w - - 0 1")
    for move in ["d1d5", "h7h9", "d5d9+", "h9g9", "d9b9", "g9c9", "b9b8", "c9c4", "b8b9"]:
        g.play(move)
    assert (g.result, g.reason) == ("1-0", "every move would repeat an earlier position")
