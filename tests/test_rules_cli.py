"""`python -m rules`, the rules core's command-line contract, run as real subprocesses.

Expected answers come from pyffish's stored verdicts (tests/xiangqi_positions.py) and from the pbmserv
board of pbmserv's Xiangqi help page, never from the rules core itself.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.rules_cli import ok, refused
from support.xiangqi_positions import PERFT, START_FEN, board, load_oracle

REPO = Path(__file__).resolve().parent.parent
PLAYOUTS = {playout["name"]: playout for playout in load_oracle()}

# The published start diagram with g -> b for Black and the "Green" label read as "Black" (docs/games.md);
# trailing blanks of the seed's lines dropped.
START_BOARD = r"""
     A   B   C   D   E   F   G   H   I

10  bR--bH--bE--bG--bK--bG--bE--bH--bR 10   Black
     |   |   |   | \ | / |   |   |   |
 9   +---+---+---+---+---+---+---+---+  9
     |   |   |   | / | \ |   |   |   |
 8   +--bC---+---+---+---+---+--bC---+  8
     |   |   |   |   |   |   |   |   |
 7  bS---+--bS---+--bS---+--bS---+--bS  7
     |   |   |   |   |   |   |   |   |
 6   +---+---+---+---+---+---+---+---+  6
     |         R  I  V  E  R         |
 5   +---+---+---+---+---+---+---+---+  5
     |   |   |   |   |   |   |   |   |
 4  rS---+--rS---+--rS---+--rS---+--rS  4
     |   |   |   |   |   |   |   |   |
 3   +--rC---+---+---+---+---+--rC---+  3
     |   |   |   | \ | / |   |   |   |
 2   +---+---+---+---+---+---+---+---+  2
     |   |   |   | / | \ |   |   |   |
 1  rR--rH--rE--rG--rK--rG--rE--rH--rR  1   Red

     A   B   C   D   E   F   G   H   I
""".strip("\n").splitlines()

PBMSERV_LETTERS = {"k": "K", "a": "G", "b": "E", "n": "H", "r": "R", "c": "C", "p": "S"}

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def expected_board(fen: str) -> list[str]:
    """The pbmserv help page's diagram with the FEN's pieces on its points (colour prefix + pbmserv letter)."""
    lines = list(START_BOARD)
    pieces = board(fen)
    for rank in range(1, 11):
        row = 2 + 2 * (10 - rank)
        line = lines[row]
        for file in range(9):
            col = 4 + 4 * file
            letter = pieces.get("abcdefghi"[file] + str(rank))
            if letter:
                cell = ("r" if letter.isupper() else "b") + PBMSERV_LETTERS[letter.lower()]
            else:
                cell = " +" if file == 0 else "-+"
            line = line[:col] + cell + line[col + 2:]
        lines[row] = line
    return lines


def position(name: str, ply: int) -> tuple[str, list[str], dict]:
    """(start FEN, moves, pyffish's record) of a stored playout after `ply` moves."""
    playout = PLAYOUTS[name]
    return playout["start_fen"], playout["moves"][:ply], playout["positions"][ply]


def ending(reason_is_mate: bool) -> tuple[str, list[str], dict]:
    """A stored random playout that ends in checkmate (or stalemate) after at least one move."""
    for playout in PLAYOUTS.values():
        last = playout["positions"][-1]
        if playout["moves"] and last["result"] is not None and last["check"] == reason_is_mate:
            return playout["start_fen"], playout["moves"], last
    raise AssertionError("the stored playouts have no such ending")


def loser_to_result(fen: str) -> str:
    return "0-1" if fen.split()[1] == "w" else "1-0"


# --- legal -----------------------------------------------------------------------------------------

def test_legal_lists_the_start_moves_sorted_on_one_line() -> None:
    out = ok("legal", "xiangqi")
    assert out.count("\n") == 1
    moves = out.split()
    assert moves == sorted(moves)
    assert moves == sorted(PLAYOUTS["start-00"]["positions"][0]["wxf"])


@pytest.mark.parametrize(("name", "ply"), [("start-05", 9), ("perft1-3", 17), ("edge-06", 1)])
def test_legal_after_moves_and_from_a_fen(name: str, ply: int) -> None:
    start, moves, record = position(name, ply)
    assert ok("legal", "xiangqi", "--fen", start, *moves).split() == sorted(record["wxf"])
    assert ok("legal", "xiangqi", "--fen", record["fen"]).split() == sorted(record["wxf"])


def test_legal_after_moves_from_the_start_position() -> None:
    start, moves, record = position("start-06", 12)
    assert start == START_FEN
    assert ok("legal", "xiangqi", *moves).split() == sorted(record["wxf"])


def test_legal_in_wxf_notation() -> None:
    _, _, record = position("edge-05", 0)  # tandem horses, rooks and cannons
    out = ok("legal", "xiangqi", "--fen", record["fen"], "--notation", "wxf").split()
    assert sorted(out) == sorted(record["wxf"].values())
    assert out == sorted(out)
    assert ok("legal", "xiangqi", "--notation", "coord").split() == sorted(
        PLAYOUTS["start-00"]["positions"][0]["wxf"])


def test_legal_with_no_legal_move_prints_an_empty_line() -> None:
    _, _, record = ending(reason_is_mate=False)
    assert ok("legal", "xiangqi", "--fen", record["fen"]) == "\n"


def test_legal_batch_answers_every_line_in_order() -> None:
    records = [r for p in PLAYOUTS.values() for r in p["positions"]][::60]
    records += [p["positions"][-1] for p in PLAYOUTS.values() if p["positions"][-1]["result"] is not None]
    out = ok("legal", "xiangqi", "--batch", stdin="".join(r["fen"] + "\n" for r in records))
    lines = out.split("\n")
    assert lines[-1] == "" and len(lines) == len(records) + 1
    for record, line in zip(records, lines):
        assert line.split() == sorted(record["wxf"]), record["fen"]


def test_legal_batch_in_wxf() -> None:
    records = [PLAYOUTS[name]["positions"][0] for name in ("edge-00", "edge-01", "edge-10")]
    out = ok("legal", "xiangqi", "--batch", "--notation", "wxf",
             stdin="".join(r["fen"] + "\n" for r in records)).splitlines()
    assert [sorted(line.split()) for line in out] == [sorted(r["wxf"].values()) for r in records]


# --- perft -----------------------------------------------------------------------------------------

def test_perft_prints_the_node_count_last() -> None:
    assert ok("perft", "xiangqi", "2").splitlines()[-1] == str(PERFT[0][1][1])


def test_perft_from_a_fen() -> None:
    fen, counts = PERFT[2]
    assert ok("perft", "xiangqi", "3", "--fen", fen).splitlines()[-1] == str(counts[2])


# --- play ------------------------------------------------------------------------------------------

def test_play_reports_fen_and_an_open_result() -> None:
    _, moves, record = position("start-04", 20)
    assert json.loads(ok("play", "xiangqi", *moves)) == {"fen": record["fen"], "result": "*", "reason": None}


def test_play_with_fen_before_the_moves() -> None:
    """The documented order: `play VARIANT [--fen FEN] MOVE...`."""
    start, moves, record = position("perft2-2", 10)
    assert json.loads(ok("play", "xiangqi", "--fen", start, *moves))["fen"] == record["fen"]
    assert json.loads(ok("play", "xiangqi", *moves, "--fen", start))["fen"] == record["fen"]


def test_play_reads_wxf() -> None:
    out = json.loads(ok("play", "xiangqi", "C2=5", "h10g8"))
    assert out["fen"] == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    assert json.loads(ok("play", "xiangqi", "C2.5", "H8+7"))["fen"] == out["fen"]


def test_wxf_with_the_rear_marker_first_after_double_dash() -> None:
    """`-C.1` looks like an option; after `--` it is a move (the usual command-line convention)."""
    fen = PLAYOUTS["edge-05"]["start_fen"]  # tandem cannons on g4 and g6
    rear = json.loads(ok("play", "xiangqi", "--fen", fen, "C-.1"))["fen"]
    assert json.loads(ok("play", "xiangqi", "--fen", fen, "--", "-C.1"))["fen"] == rear
    assert ok("legal", "xiangqi", "--fen", fen, "--", "-C.1") == ok("legal", "xiangqi", "--fen", rear) != "\n"


@pytest.mark.parametrize("mate", [True, False], ids=["checkmate", "stalemate"])
def test_play_to_the_end_of_a_game(mate: bool) -> None:
    start, moves, record = ending(reason_is_mate=mate)
    out = json.loads(ok("play", "xiangqi", "--fen", start, *moves))
    assert out == {"fen": record["fen"], "result": loser_to_result(record["fen"]),
                   "reason": "checkmate" if mate else "stalemate"}


def test_play_draws_after_120_plies_without_capture() -> None:
    fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 119 80"
    out = json.loads(ok("play", "xiangqi", "--fen", fen, "e2e3"))
    assert out == {"fen": "3k5/9/9/9/9/9/9/4R4/9/4K4 b - - 120 80", "result": "1/2-1/2",
                   "reason": "120 plies without capture"}
    capture = json.loads(ok("play", "xiangqi", "--fen", "3k5/9/9/9/9/9/9/9/4R3p/4K4 w - - 119 80", "e2i2"))
    assert capture["result"] == "*" and capture["fen"].split()[4] == "0"


def test_play_batch_answers_every_line_in_order() -> None:
    cases = [position(name, ply) for name, ply in
             [("start-03", 25), ("endgame-04", 60), ("perft1-1", 0), ("edge-02", 6)]]
    cases += [ending(reason_is_mate=True), ending(reason_is_mate=False)]
    stdin = "".join(f"{start}\t{' '.join(moves)}\n" for start, moves, _ in cases)
    out = [json.loads(line) for line in ok("play", "xiangqi", "--batch", stdin=stdin).splitlines()]
    assert [o["fen"] for o in out] == [record["fen"] for _, _, record in cases]
    assert [o["result"] for o in out[:4]] == ["*"] * 4
    assert [o["reason"] for o in out[4:]] == ["checkmate", "stalemate"]


def test_fen_input_accepts_red_as_r_and_the_letters_h_and_e() -> None:
    fen = "rhbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNEAKAEHR r - - 0 1"
    assert json.loads(ok("play", "xiangqi", "--fen", fen))["fen"] == START_FEN


def test_fen_fields_after_the_placement_may_be_left_out() -> None:
    assert json.loads(ok("play", "xiangqi", "--fen", START_FEN.split()[0]))["fen"] == START_FEN


# --- board -----------------------------------------------------------------------------------------

def test_board_of_the_start_position_is_the_pbmserv_board() -> None:
    out = ok("board", "xiangqi")
    assert [line.rstrip() for line in out.strip("\n").splitlines()] == START_BOARD
    assert all(line == line.rstrip() for line in out.splitlines()), "no trailing blanks in mail"


@pytest.mark.parametrize(("name", "ply"), [("start-02", 18), ("endgame-10", 60), ("edge-01", 0)])
def test_board_shows_every_piece_on_its_point(name: str, ply: int) -> None:
    start, moves, record = position(name, ply)
    out = ok("board", "xiangqi", "--fen", start, *moves)
    assert [line.rstrip() for line in out.strip("\n").splitlines()] == expected_board(record["fen"])


# --- errors ----------------------------------------------------------------------------------------

def test_illegal_move_says_what_the_piece_could_do() -> None:
    message = refused("play", "xiangqi", "h3e4")
    assert "h3e4" in message and "not a legal move" in message
    assert "e3" in message  # the cannon on h3 could go to e3
    assert "not a legal move" in refused("legal", "xiangqi", "h3e3", "h3e3")


def test_illegal_wxf_move_is_called_illegal_not_unreadable() -> None:
    message = refused("play", "xiangqi", "P5=4")  # well-formed WXF; the soldier has not crossed yet
    assert "not a legal move" in message and "e5" in message


def test_coordinate_spellings() -> None:
    fens = {json.loads(ok("play", "xiangqi", move, "h10g8"))["fen"]
            for move in ("h3e3", "h3-e3", "H3-E3", "h3xe3", "H3E3")}
    assert len(fens) == 1


def test_unreadable_move() -> None:
    message = refused("play", "xiangqi", "zz")
    assert "zz" in message and "h3e3" in message  # shows what a move looks like


def test_iccs_rank_zero_is_not_a_point() -> None:
    """ICCS numbers ranks 0..9; here a1 must never mean two points, so b0 does not exist."""
    assert "b0" in refused("play", "xiangqi", "b0c2")


def test_moves_after_the_end_of_the_game_are_refused() -> None:
    start, moves, _ = ending(reason_is_mate=True)
    assert "over" in refused("play", "xiangqi", "--fen", start, *moves, "a1a2")


@pytest.mark.parametrize(("fen", "hint"), [
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9 w - - 0 1", "10"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1", "X"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1", "rank 1"),
    ("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", "rank 10"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1", "x"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "number"),
    ("3k5/9/9/9/9/9/9/9/9/3KK4 w - - 0 1", "king"),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "face"),
    ("3k5/9/9/9/9/9/9/9/9/K8 w - - 0 1", "palace"),
])
def test_malformed_fen_is_refused_with_a_reason(fen: str, hint: str) -> None:
    for command in ("legal", "play", "board"):
        assert hint.lower() in refused(command, "xiangqi", "--fen", fen).lower()
    assert hint.lower() in refused("perft", "xiangqi", "1", "--fen", fen).lower()


def test_unknown_notation_and_variant() -> None:
    assert "wxf" in refused("legal", "xiangqi", "--notation", "iccs")
    assert "xiangqi" in refused("legal", "chess")


def test_padwarqi_on_the_command_line() -> None:
    """Padwar qi through every subcommand, standard and -korean; moves in coordinates."""
    assert len(ok("legal", "padwarqi").split()) == 57
    assert len(ok("legal", "padwarqi", "--param", "korean").split()) == 71
    assert ok("perft", "padwarqi", "2").split()[0] == "3227"
    assert ok("perft", "padwarqi", "2", "--param", "korean").split()[0] == "5017"
    played = json.loads(ok("play", "padwarqi", "h3e3", "b10c8"))
    assert played == {"fen": "r1bakabnr/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
                      "result": "*", "reason": None}
    assert "rD--rT--rP--rW--rC--rW--rP--rT--rD" in ok("board", "padwarqi")
    # a1 to a2 is a U-shaped walk a1-b1-b2-a2, and the thoat stands on b1.
    assert "the dwar on a1 is blocked at b1" in refused("play", "padwarqi", "a1a2")
    assert "korean" in refused("legal", "padwarqi", "--param", "chinese")


def test_giqi_on_the_command_line() -> None:
    """Gi-Qi-Game through every subcommand, with and without drops: drops, promotions, castling."""
    assert len(ok("legal", "giqi").split()) == 28
    assert ok("perft", "giqi", "2", "--param", "nodrops").split()[0] == "784"
    fen = "4k4/4p4/9/9/9/4P4/9/3G5/L3K3L[Rn] w Q - 0 1"
    legal = ok("legal", "giqi", "--fen", fen).split()
    assert {"R*a9", "e4e5", "e1c1", "e1b1"} <= set(legal) and "e1g1" not in legal
    played = json.loads(ok("play", "giqi", "--fen", fen, "e1c1", "N*e3"))
    assert played["fen"] == "4k4/4p4/9/9/9/4P4/4n4/3G5/2KL4L[R] w - - 2 2"
    assert "In White's hand: R" in ok("board", "giqi", "--fen", fen)
    assert "warriorpromotion needs nodrops" in refused("legal", "giqi", "--param", "warriorpromotion")
