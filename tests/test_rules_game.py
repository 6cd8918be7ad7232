"""The Game API: endings, notation input, error messages a player can act on, the pbmserv board."""
import random

import pytest

import rules

MATE_IN_ONE = "4k4/R8/9/9/3P5/5R3/9/4C4/9/3K5 w - - 0 1"        # d6e6: the soldier becomes a screen
STALEMATE_IN_ONE = "4k4/9/R8/9/9/5R3/9/9/9/3K5 w - - 0 1"   # a8a9 leaves Black's king no move
TANDEM_CANNONS = "5k3/9/9/9/4C4/4C4/9/9/9/3K5 w - - 0 1"

def test_board_shows_moved_pieces():
    g = rules.Game.new("xiangqi")
    g.play("h3e3")
    lines = g.board().splitlines()
    assert lines[16] == " 3   +--rC---+---+--rC---+---+---+---+  3"


def test_checkmate_ends_the_game():
    g = rules.Game.new("xiangqi", fen=MATE_IN_ONE)
    assert g.play("d6e6") == "d6e6"
    assert (g.result, g.reason) == ("1-0", "checkmate")
    assert g.legal_moves() == []
    with pytest.raises(rules.IllegalMove, match="the game is over"):
        g.play("e10e9")


def test_stalemate_loses():
    g = rules.Game.new("xiangqi", fen=STALEMATE_IN_ONE)
    g.play("a8a9")
    assert (g.result, g.reason) == ("1-0", "stalemate")
    assert not g.in_check()


def test_stalemated_side_to_move_in_the_fen_has_already_lost():
    g = rules.Game.new("xiangqi", fen="4k4/R8/9/9/9/5R3/9/9/9/3K5 b - - 0 1")
    assert g.result == "1-0"


def test_120_plies_without_capture_is_a_draw():
    # (the soldier on a7 keeps the position alive: bare kings and advisors would be drawn at once)
    g = rules.Game.new("xiangqi", fen="4k4/9/9/p8/9/9/9/9/4A4/3K5 w - - 119 60")
    assert g.result == "*"
    g.play("e2f3")
    assert (g.result, g.reason) == ("1/2-1/2", "120 plies without capture")


def test_undo_restores_position_and_result():
    g = rules.Game.new("xiangqi", fen=MATE_IN_ONE)
    g.play("d6e6")
    assert g.undo() == "d6e6"
    assert g.result == "*" and g.fen() == MATE_IN_ONE
    with pytest.raises(rules.IllegalMove):
        rules.Game.new("xiangqi").undo()


@pytest.mark.parametrize("text", ["h3e3", "h3-e3", "H3-E3", "h3xe3", "C2=5", "C2.5", "c2.5"])
def test_move_forms(text):
    g = rules.Game.new("xiangqi")
    assert g.play(text) == "h3e3"
    assert g.notation == ["C2=5"]


@pytest.mark.parametrize("text,move", [("C+=6", "e6d6"), ("+C.6", "e6d6"), ("C+.6", "e6d6"),
                                       ("C-=6", "e5d5"), ("-C=6", "e5d5")])
def test_tandem_pieces_in_wxf(text, move):
    assert rules.Game.new("xiangqi", fen=TANDEM_CANNONS).play(text) == move


def test_ambiguous_wxf_says_what_to_write():
    with pytest.raises(rules.NotationError, match="write C-=6 or C\\+=6"):
        rules.Game.new("xiangqi", fen=TANDEM_CANNONS).play("C5=6")


def test_from_record_and_at():
    g = rules.Game.from_record("xiangqi", None, None, ["h3e3", "h10g8", "e3e7"])
    assert g.ply == 3 and g.turn == "b"
    assert g.at(1).moves == ["h3e3"]
    assert g.at(0).fen() == rules.Game.new("xiangqi").fen()


@pytest.mark.parametrize("move,message", [
    ("b1d2", "b1d2 is not a legal move: the horse on b1 is blocked at c1; the horse on b1 can go to a3, c3"),
    ("e4e6", "the soldier on e4 can go to e5"),
    ("a1a5", "the rook on a1 is blocked at a4"),
    ("e3e4", "there is no piece on e3"),
    ("a10a9", "the rook on a10 is Black's and it is Red's move"),
    ("a1b1", "b1 holds your own horse"),
    ("b3b9", "the cannon on b3 can jump only to capture"),
    ("h3h9", "the cannon on h3 can jump only to capture"),
])
def test_illegal_moves_explain_themselves(move, message):
    with pytest.raises(rules.IllegalMove) as err:
        rules.Game.new("xiangqi").play(move)
    assert message in str(err.value)


def test_move_into_check_and_facing_kings_are_explained():
    g = rules.Game.new("xiangqi", fen="4k4/9/9/p8/9/9/9/9/9/3K5 w - - 0 1")
    with pytest.raises(rules.IllegalMove, match="kings facing each other"):
        g.play("d1e1")
    g = rules.Game.new("xiangqi", fen="3rk4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1")
    with pytest.raises(rules.IllegalMove, match="leave your king in check"):
        g.play("e1d1")


@pytest.mark.parametrize("fen,message", [
    ("rnbakabnr/9/1c5c1", "3 ranks"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX", "unknown piece letter 'X'"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "describes 8 points"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"),
    ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "Black has 0 kings"),
    ("", "empty"),
])
def test_bad_fen_is_explained(fen, message):
    with pytest.raises(rules.FenError, match=message):
        rules.Game.new("xiangqi", fen=fen)


def test_fen_input_forms():
    start = rules.Game.new("xiangqi").fen()
    placement = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR"  # E and H accepted
    assert rules.Game.new("xiangqi", fen=placement).fen() == start
    assert rules.Game.new("xiangqi", fen=start.replace(" w ", " r ").replace(" ", "_")).fen() == start


def test_unknown_variant_and_parameters():
    with pytest.raises(rules.UnknownVariant, match="the games are"):
        rules.Game.new("chess")
    with pytest.raises(rules.RulesError, match="no parameters"):
        rules.Game.new("xiangqi", {"korean": True})


@pytest.mark.parametrize("variant, styles", [("xiangqi", ("chinese", "chinese-traditional", "wxf")),
                                             ("janggi", ("korean",))])
def test_the_last_move_is_named_as_the_whole_list_names_it(variant, styles):
    """name_last, which a mail about a move uses, agrees with name_moves at every ply."""
    rng = random.Random(variant)
    game = rules.Game.new(variant)
    for _ in range(80):
        if game.result != "*":
            break
        game.play(rng.choice(game.legal_moves()))
        for style in styles:
            assert game.name_last(style) == game.name_moves(style)[-1]
