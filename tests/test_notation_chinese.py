"""Chinese notation for Xiangqi (rules/notation_chinese.py) against the cchess library, and the tandem
rules one by one.

The positions are pyffish's stored playouts (tests/xiangqi_positions.py): every legal move of every
fifth position, and of every position with tandem pieces, is named in both character sets and read
back, and named and read as cchess's `Move.to_text()` names it.  Where cchess departs from the rules the module follows, the test says
how and checks the departure itself:
  - soldiers on two files with two or more each: cchess writes 前兵, which names no single soldier;
    the module numbers them as xqbase, ElephantEye and vschess do (一兵 ... 五兵);
  - four or five soldiers on a file: cchess writes 前, 二, 三, 后 (Black: 前, ２, ３, 后); the module
    一, 二, 三, 四 from the front, and reads cchess's form too;
  - where cchess gives two legal moves one name, that name is no reference for either.
cchess writes Black's digits full-width (马８进７); they are compared as ASCII digits.
"""
from __future__ import annotations

import functools
from collections import Counter

import cchess
import pytest
from support.xiangqi_positions import load_oracle, tandem_files

import rules
from rules import notation_styles
from rules.errors import IllegalMove, NotationError
from rules.notation import format_move
from rules.notation_chinese import RED_FILES, places, read, write

FULL_WIDTH = str.maketrans("１２３４５６７８９", "123456789")
ALL = [p["fen"] for playout in load_oracle() for p in playout["positions"]]
# Every fifth position, and every one where a file holds two of a kind (rarer in random play).
POSITIONS = [fen for i, fen in enumerate(ALL) if i % 5 == 0 or tandem_files(fen)]

pytestmark = pytest.mark.slow   # checked against an independent reference over many positions


def cchess_name(board: cchess.ChessBoard, move: tuple[int, int]) -> str:
    """cchess's name of a move given as rules-core squares (rank * 9 + file, rank 0 = Red's edge)."""
    fr, to = move
    return cchess.Move(board, (fr % 9, fr // 9), (to % 9, to // 9)).to_text().translate(FULL_WIDTH)


@functools.cache
def named() -> list[tuple[rules.Game, list[tuple[tuple[int, int], str, str, str]]]]:
    """For each position: the game, and each legal move with its simplified, traditional and cchess
    names."""
    out = []
    for fen in POSITIONS:
        game = rules.Game.new("xiangqi", fen=fen)
        board = cchess.ChessBoard(fen)
        pos = game.position
        out.append((game, [(m, write(pos, m, "chinese"), write(pos, m, "chinese-traditional"),
                            cchess_name(board, m)) for m in pos.legal_moves()]))
    return out


def test_enough_positions_and_moves() -> None:
    assert len(POSITIONS) >= 500
    assert sum(len(moves) for _, moves in named()) >= 10_000


def test_every_move_named_and_read_back_in_both_sets() -> None:
    problems = []
    for game, moves in named():
        pos, legal = game.position, [m for m, *_ in moves]
        for style in (1, 2):
            names = [entry[style] for entry in moves]
            if len(set(names)) != len(names):
                problems.append(f"{game.fen()}: two moves share a name: {sorted(names)}")
        for move, simplified, traditional, _ in moves:
            for text in (simplified, traditional):
                if read(pos, text, legal) != move:
                    problems.append(f"{game.fen()}: {text} reads as {read(pos, text, legal)}, not {move}")
    assert not problems, "\n".join(problems[:20])


def expected_from_cchess(pos, move, cchess_text: str) -> str:
    """What the module writes for a move cchess names `cchess_text`, by the departures listed above."""
    place = places(pos)[move[0]]
    if place.role == "soldier" and place.tandem_files >= 2 and place.count >= 2:
        return RED_FILES[place.tandem_index] + cchess_text[1:]
    if place.role == "soldier" and place.count >= 4:
        return RED_FILES[place.index] + cchess_text[1:]
    return cchess_text


def test_names_agree_with_cchess() -> None:
    counts: Counter[str] = Counter()
    problems = []
    for game, moves in named():
        pos = game.position
        by_cchess = Counter(c for *_, c in moves)
        for move, simplified, _, cchess_text in moves:
            if by_cchess[cchess_text] > 1:
                counts["one cchess name for two moves"] += 1
                continue
            expected = expected_from_cchess(pos, move, cchess_text)
            counts["tandem files" if expected != cchess_text else "same"] += 1
            if simplified != expected:
                problems.append(f"{game.fen()} {format_move(game.variant, move)}: cchess {cchess_text}, "
                                f"expected {expected}, written {simplified}")
    assert not problems, "\n".join(problems[:20])
    assert counts["same"] >= 10_000 and counts["tandem files"] >= 20, counts


def test_reads_what_cchess_writes() -> None:
    """Every name cchess gives one move only reads as that move, its 前兵 beside tandem files too."""
    problems = []
    for game, moves in named():
        pos, legal = game.position, [m for m, *_ in moves]
        by_cchess = Counter(c for *_, c in moves)
        for move, _, _, cchess_text in moves:
            if by_cchess[cchess_text] == 1 and read(pos, cchess_text, legal) != move:
                problems.append(f"{game.fen()}: {cchess_text} read as {read(pos, cchess_text, legal)}")
    assert not problems, "\n".join(problems[:20])


# The tandem rules, each with a position: (FEN, move, simplified name, why).
TANDEM = [
    # Two soldiers on a file: 前/后 replace the file number and go before the piece.
    ("3k5/9/9/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c7c8", "前兵进一", "front of two"),
    ("3k5/9/9/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c6b6", "后兵平八", "rear of two"),
    # Three on a file: 前, 中, 后.
    ("3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c7d7", "中兵平六", "middle of three"),
    ("3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c6b6", "后兵平八", "rear of three"),
    # Four or five: 一, 二, 三, 四, 五 counted from the front.
    ("3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c9c10", "一兵进一", "first of four"),
    ("3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c7d7", "三兵平六", "third of four"),
    ("3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c6b6", "四兵平八", "last of four"),
    ("2P2k3/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c10d10", "一兵平六", "first of five"),
    ("2P2k3/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1", "c6b6", "五兵平八", "last of five"),
    ("4k4/9/9/9/9/2p6/2p6/2p6/2p6/3K5 b - - 0 1", "c2c1", "一卒进1", "Black's first of four"),
    # Two files with two or more each: numbered, files from the right, then from the front.
    ("3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1", "c7b7", "三兵平八", "front on the file 七"),
    ("3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1", "g6h6", "二兵平二", "rear on the file 三"),
    ("3k5/9/2P3P2/2P3P2/2P6/9/9/9/9/4K4 w - - 0 1", "c7d7", "四兵平六", "three beside two"),
    ("4k4/9/9/9/9/2p3p2/2p3p2/9/9/3K5 b - - 0 1", "c4b4", "一卒平2", "Black: its own right first"),
    # Advisors and elephants keep their file: direction tells them apart.
    ("3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1", "d1e2", "仕六进五", "rear advisor goes forward"),
    ("3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1", "d3e2", "仕六退五", "front advisor goes back"),
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1", "c1a3", "相七进九", "rear elephant goes forward"),
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1", "c5e3", "相七退五", "front elephant goes back"),
    # Horses, chariots and cannons in tandem: 前/后 and the piece.
    ("5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1", "c6d8", "前马进六", "front horse"),
    ("5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1", "c4b2", "后马退八", "rear horse"),
    ("5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1", "e6e10", "前车进四", "front chariot"),
    ("5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1", "e4f4", "后车平四", "rear chariot"),
    ("5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1", "g4g1", "后炮退三", "rear cannon"),
    ("3k5/9/9/2n1r1c2/9/2n1r1c2/9/9/9/5K3 b - - 0 1", "c5d3", "前马进4", "Black's front is nearer Red"),
]


@pytest.mark.parametrize("fen, coordinates, name, why", TANDEM, ids=[t[3] for t in TANDEM])
def test_tandem(fen: str, coordinates: str, name: str, why: str) -> None:
    game = rules.Game.new("xiangqi", fen=fen)
    pos = game.position
    move = notation_styles.read_points(pos, coordinates)
    legal = pos.legal_moves()
    assert move in legal
    assert write(pos, move, "chinese") == name
    assert read(pos, name, legal) == move
    traditional = write(pos, move, "chinese-traditional")
    assert read(pos, traditional, legal) == move
    cchess_text = cchess_name(cchess.ChessBoard(fen), move)
    assert expected_from_cchess(pos, move, cchess_text) == name
    if Counter(cchess_name(cchess.ChessBoard(fen), m) for m in legal)[cchess_text] == 1:
        assert read(pos, cchess_text, legal) == move  # cchess's 前兵 for the first of four


def test_numbered_tandem_soldiers_read() -> None:
    """xqbase numbers the soldiers on two tandem files (files from the right, then the front):
    g7 一兵, g6 二兵, c7 三兵, c6 四兵."""
    game = rules.Game.new("xiangqi", fen="3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1")
    assert game.play("四兵平八") == "c6b6"
    game = rules.Game.new("xiangqi", fen="3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1")
    assert game.play("一兵进一") == "g7g8"


def test_ambiguous_and_loose_names() -> None:
    game = rules.Game.new("xiangqi", fen="3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1")
    with pytest.raises(NotationError, match="一兵进一 or 三兵进一|三兵进一 or 一兵进一"):
        game.play("前兵进一")
    # Horses on h1 and h3 (file 二) can both go forward to file 三.
    game = rules.Game.new("xiangqi", fen="3k5/9/9/9/9/9/9/7N1/9/4K2N1 w - - 0 1")
    with pytest.raises(NotationError, match="前马进三 or 后马进三|后马进三 or 前马进三"):
        game.play("马二进三")
    assert game.play("马二退三") == "h3g1"  # only the front horse can: read without its mark


@pytest.mark.parametrize("text", ["炮二平五", "炮２平５", "炮 二 平 五", "砲二平五", "炮2平5"])
def test_both_sets_and_digit_forms_read(text: str) -> None:
    assert rules.Game.new("xiangqi").play(text) == "h3e3"


@pytest.mark.parametrize("text", ["馬8進7", "马８进７", "馬８進７", "马8进7"])
def test_black_and_traditional_read(text: str) -> None:
    game = rules.Game.new("xiangqi")
    game.play("炮二平五")
    assert game.play(text) == "h10g8"


def test_piece_before_its_place_read() -> None:
    """Older books write the place after the piece: 車前平四 for 前车平四."""
    game = rules.Game.new("xiangqi", fen="5k3/9/9/9/2N1R1C2/9/2N1R1C2/9/9/3K5 w - - 0 1")
    assert game.play("車前平四") == "e6f6"


def test_game_names_moves_in_each_style() -> None:
    game = rules.Game.new("xiangqi")
    for move in ("h3e3", "h10g8", "h1g3", "i10h10", "e3e7"):
        game.play(move)
    assert game.name_moves("chinese") == ["炮二平五", "马8进7", "马二进三", "车9平8", "炮五进四"]
    assert game.name_moves("chinese-traditional") == ["炮二平五", "馬8進7", "馬二進三", "車9平8", "炮五進四"]
    assert game.name_moves("wxf") == game.notation
    assert game.name_moves("coordinates") == game.moves
    with pytest.raises(NotationError, match="no korean notation; its notations are coordinates, wxf, "
                                            "chinese, chinese-traditional"):
        game.name_moves("korean")


def test_premoves_and_refusals() -> None:
    game = rules.Game.new("xiangqi")
    game.check_notation("马8进7")      # not Red's move now, but readable
    game.check_notation("前車進一")    # no tandem chariots now, but readable
    with pytest.raises(NotationError, match="in Chinese such as 炮二平五"):
        game.check_notation("炮二走五")
    # the reason the same move gets in coordinates: what stands in the way, where the piece can go
    with pytest.raises(IllegalMove, match="炮二平五 is not a legal move: e3 holds your own soldier; the "
                                          "cannon on h3 can go to f3, g3, "):
        rules.Game.new("xiangqi", fen="3k5/9/9/9/9/9/9/4P2C1/9/4K4 w - - 0 1").play("炮二平五")
