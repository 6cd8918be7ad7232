"""The records players' own software reads (pbm.records), checked by readers pbm did not write:
Chinese PGN by the cchess library; DhtmlXQ and `.gib` by the small readers below, written from the
formats' published descriptions (the DhtmlXQ field list and its movelist/binit digits; the Korean
players' description of `.gib` on the WinBoard forum and two real files under tests/data/gib).
Random games go through each writer and come back as the moves played; the two real `.gib` games,
replayed through the rules core, come back from pbm's writer as the Korean program wrote them.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import cchess
import pytest
from support.playouts import random_games
from support.postoffice import PASSWORDS, PostOffice

import rules
from pbm.model.play.games import Board, PlayedMove
from pbm.records import chinese, dhtmlxq, formats, gib

DATA = Path(__file__).parent / "data" / "gib"
FILES = "abcdefghi"


def board_of(game: rules.Game, result: str = "*", reason: str | None = None) -> Board:
    """A stored board holding `game` (what the writers take), as pbm.model.play.games loads one."""
    return Board(id=1, variant=game.variant.name, number=101, player1="alice", player2="bob",
                 params=game.params, options={}, start_fen=game.start_fen, rated=False,
                 status="active" if result == "*" else "finished", ply=game.ply, to_move=None,
                 result=result, winner=None, reason=reason, offer=None, offer_by=None,
                 created_at="2026-11-27 10:00:00", updated_at="", finished_at=None, remind_at=None,
                 deadline=None, challenger=None, accepted_at=None, expires_at=None, paused_left=None,
                 moves=[PlayedMove(m, n, False) for m, n in zip(game.moves, game.notation)])


# --- Chinese PGN, read by cchess ------------------------------------------------------------------

def cchess_moves(path: Path) -> list[str]:
    """The moves cchess reads from a PGN file, as pbm's coordinates (cchess's ranks count from 0)."""
    [line] = cchess.Game.read_from(str(path)).dump_iccs_moves() or [[]]
    return [f"{m[0]}{int(m[1]) + 1}{m[2]}{int(m[3]) + 1}" for m in (s.replace("-", "") for s in line)]


# traditional characters -> simplified (cchess reads only simplified); 帥 仕 相 兵 are Red's in both
TO_SIMPLIFIED = str.maketrans("帥將馬車砲進後", "帅将马车炮进后")


def test_chinese_pgn_read_by_cchess_gives_the_moves_played(tmp_path):
    for i, game in enumerate(random_games("xiangqi", 12, random.Random(5), 90)):
        board = board_of(game, "1-0", "checkmate")
        text = chinese.record(board, [], "pbm@pbm.test")
        assert '[Red "alice"]' in text and '[Black "bob"]' in text and '[Result "1-0"]' in text
        assert re.search(r'\[Date "\d{4}\.\d\d\.\d\d"\]', text) and '[Event "' in text
        path = tmp_path / f"{i}.pgn"
        path.write_text(text, encoding="utf-8")
        assert cchess_moves(path) == game.moves, text
        # the traditional record is the same in the other script
        assert chinese.record(board, [], "pbm@pbm.test", traditional=True).translate(TO_SIMPLIFIED) == text


def test_chinese_pgn_writes_black_in_full_width_digits_and_each_script():
    game = rules.Game.new("xiangqi")
    for move in ("h3e3", "h10g8", "h1g3"):
        game.play(move)
    simplified = chinese.record(board_of(game), [(1, "bob", "Ha {nice}")], "s")
    assert "1. 炮二平五 {bob: Ha (nice)}\n1. ... 马８进７\n2. 马二进三\n*\n" in simplified
    traditional = chinese.record(board_of(game), [], "s", traditional=True)
    assert "1. 炮二平五 馬８進７\n2. 馬二進三\n*\n" in traditional


def test_chinese_pgn_of_a_game_from_a_position_with_black_to_move(tmp_path):
    fen = "4k4/9/9/9/9/9/9/9/4A4/R2K5 b - - 0 1"
    game = rules.Game.new("xiangqi", fen=fen)
    game.play("e10f10")
    game.play("a1a10")
    text = chinese.record(board_of(game), [], "s")
    assert f'[FEN "{fen}"]' in text and "1. ... 将５平６\n2. 车九进九\n" in text
    path = tmp_path / "p.pgn"
    path.write_text(text, encoding="utf-8")
    assert cchess_moves(path) == game.moves


# --- DhtmlXQ, read as its description says -----------------------------------------------------------

BINIT_ORDER = "RNBAKABNRCCPPPPPrnbakabnrccppppp"


def read_dhtmlxq(text: str) -> dict[str, str]:
    """Every `[DhtmlXQ_name]value[/DhtmlXQ_name]` of the block."""
    assert text.startswith("[DhtmlXQ]\n") and text.rstrip().endswith("[/DhtmlXQ]")
    return dict(re.findall(r"\[DhtmlXQ_(\w+)\](.*?)\[/DhtmlXQ_\1\]", text))


def dhtmlxq_moves(movelist: str) -> list[str]:
    """Four digits a move: from file, from rank, to file, to rank; files 0-8 from Red's left,
    ranks 0-9 from Black's edge."""
    assert len(movelist) % 4 == 0
    return [f"{FILES[int(m[0])]}{10 - int(m[1])}{FILES[int(m[2])]}{10 - int(m[3])}"
            for m in (movelist[i:i + 4] for i in range(0, len(movelist), 4))]


def binit_placement(digits: str) -> str:
    """The FEN placement the 32 two-digit points stand for (99: off the board)."""
    rows = [["."] * 9 for _ in range(10)]
    for letter, i in zip(BINIT_ORDER, range(0, 64, 2)):
        if digits[i:i + 2] != "99":
            rows[int(digits[i + 1])][int(digits[i])] = letter
    return "/".join(re.sub(r"\.+", lambda m: str(len(m[0])), "".join(row)) for row in rows)


def test_dhtmlxq_read_back_gives_the_moves_players_and_result():
    for game in random_games("xiangqi", 20, random.Random(7), 120):
        board = board_of(game, "0-1", "alice resigned")
        fields = read_dhtmlxq(dhtmlxq.record(board, [(0, "alice", "good [luck]"), (2, "bob", "a\nb")]))
        assert dhtmlxq_moves(fields["movelist"]) == game.moves
        assert (fields["red"], fields["black"], fields["result"]) == ("alice", "bob", "黑胜")
        assert "binit" not in fields and fields["title"]
        assert fields["comment0"] == "alice: good (luck)" and fields["comment2"] == "bob: a||b"


def test_dhtmlxq_binit_places_a_position_of_its_own():
    assert dhtmlxq.binit(rules.Game.new("xiangqi").fen()) == dhtmlxq.STANDARD_BINIT
    assert binit_placement(dhtmlxq.STANDARD_BINIT) == rules.Game.new("xiangqi").fen().split()[0]
    for game in random_games("xiangqi", 10, random.Random(8), 120):
        start = rules.Game.new("xiangqi", fen=game.fen())
        start.play(start.legal_moves()[0])
        fields = read_dhtmlxq(dhtmlxq.record(board_of(start), []))
        assert binit_placement(fields["binit"]) == game.fen().split()[0]
        assert fields["result"] == "未知"


# --- .gib, read as the Korean players describe it ------------------------------------------------------

def read_gib(text: str) -> tuple[dict[str, str], list[str]]:
    """The tags and the move texts of a `.gib`: tag lines `[name "value"]`, then `N. move` in order."""
    tags = dict(re.findall(r'^\[(\S+) "(.*)"\]$', text, re.M))
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    numbered = re.findall(r"(\d+)\. (\S+)", body)
    assert [int(n) for n, _ in numbered] == list(range(1, len(numbered) + 1))
    return tags, [move for _, move in numbered]


def gib_move(text: str) -> str:
    """A kibo move as coordinates: two digits (row from Han's edge, 0 for Cho's back row; file from
    Cho's left), the piece, two digits, then maybe the piece taken and 장군; 한수쉼 a pass."""
    if text == "한수쉼":
        return "pass"
    m = re.fullmatch(r"(\d)(\d)(\w)(\d)(\d)\w?(장군)?", text)
    assert m, text
    def point(row: str, file: str) -> str:
        return f"{FILES[int(file) - 1]}{11 - (int(row) or 10)}"
    return point(m[1], m[2]) + point(m[4], m[5])


def gib_start(cho: str, han: str) -> str:
    """The start FEN of two 차림 names, each read from Cho's left (files b, c, g, h)."""
    def rank(name: str) -> str:
        letters = ["n" if c == "마" else "b" for c in name]
        return f"r{letters[0]}{letters[1]}a1a{letters[2]}{letters[3]}r"
    return (f"{rank(han)}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{rank(cho).upper()} w - - 0 1")


@pytest.mark.parametrize("name", ["real-1.gib", "real-2.gib"])
def test_a_real_gib_replays_and_pbm_writes_it_back_as_the_korean_program_did(name):
    tags, moves = read_gib((DATA / name).read_bytes().decode("cp949"))
    assert int(tags["총수"]) == len(moves)
    game = rules.Game.new("janggi", fen=gib_start(tags["초차림"], tags["한차림"]))
    for move in moves:
        game.play(gib_move(move))
    # the same game as pbm stores it: the setups chosen, so its start is the standard one arranged
    arranged = rules.Game.new("janggi")
    for side, rank in (("w", -1), ("b", 0)):
        wanted = game.start_fen.split()[0].split("/")[rank]
        choice = next(a.key for a in arranged.variant.arrangements
                      if rules.Game.new("janggi", {("cho" if side == "w" else "han"): a.key})
                      .fen().split()[0].split("/")[rank] == wanted)
        arranged.setup(side, choice)
    for move in game.moves:
        arranged.play(move)
    assert arranged.fen() == game.fen()
    winner = tags["대국결과"][0]
    written, back = read_gib(gib.record(board_of(arranged, "1-0" if winner == "초" else "0-1"), "s"))
    assert back == moves
    assert (written["초차림"], written["한차림"]) == (tags["초차림"], tags["한차림"])
    assert written["총수"] == tags["총수"] and written["대국결과"][0] == winner


def test_gib_of_random_games_reads_back_in_cp949():
    rnd = random.Random(11)
    for game in random_games("janggi", 15, rnd, 120):
        if game.result == "*" and "pass" in game.legal_moves():
            game.play("pass")
        board = board_of(game, "1/2-1/2", "by agreement")
        data, charset = formats.encoded(formats.FORMATS["gib"], gib.record(board, "pbm@pbm.test"))
        assert charset == "cp949"
        tags, moves = read_gib(data.decode("cp949"))
        assert [gib_move(m) for m in moves] == game.moves
        assert tags["초대국자"] == "alice" and tags["한대국자"] == "bob" and tags["대국결과"] == "무승부"
        assert tags["초차림"] == tags["한차림"] == "마상상마"


@pytest.mark.parametrize("reason, said", [("checkmate", "초 완승"), ("bob resigned", "초 기권승"),
                                          ("bob did not move within 3 days", "초 시간승")])
def test_gib_result_says_how_the_game_was_won(reason, said):
    board = board_of(rules.Game.new("janggi"), "1-0", reason)
    assert gib.result(board) == said


# --- `GAME record BOARD FORMAT` ---------------------------------------------------------------------

def attachment(mail) -> tuple[str, bytes]:
    [part] = list(mail.iter_attachments())
    return part.get_filename(), part.get_payload(decode=True)


def test_record_command_attaches_each_format(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send("xiangqi challenge alice bob")
    post.move(101, "alice", "h3e3")
    post.send("janggi challenge alice bob")
    post.send("janggi move 101 alice Sw0rdfish a4b4", sender="alice@example.org")
    [zh] = post.send("xiangqi record 101 zh")
    name, data = attachment(zh)
    [part] = list(zh.iter_attachments())
    assert part.get_content_type() == "application/x-chess-pgn" and part.get_param("charset") == "gb18030"
    assert name == "xiangqi-101.zh.pgn" and "1. 炮二平五".encode("gbk") in data
    [zh] = post.send("xiangqi record 101 zh utf-8")
    name, data = attachment(zh)
    assert name == "xiangqi-101.zh.pgn" and "1. 炮二平五" in data.decode("utf-8")
    post.send(f"set bob {PASSWORDS['bob']} lang=zh-Hant", sender="bob@example.org")
    [zh] = post.send("xiangqi record 101 zh", sender="bob@example.org")     # traditional, in Big5
    [part] = list(zh.iter_attachments())
    assert part.get_param("charset") == "big5" and "1. 炮二平五".encode("big5") in attachment(zh)[1]
    [block] = post.send("xiangqi record 101 dhtmlxq")
    name, data = attachment(block)
    assert name == "xiangqi-101.dhtmlxq" and "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]" in data.decode()
    [kibo] = post.send("janggi record 101 gib")
    name, data = attachment(kibo)
    assert name == "janggi-101.gib" and "1. 71졸72" in data.decode("cp949")
    [refused] = post.send("janggi record 101 zh")
    assert "Janggi has no record called zh; its records are: pgn, gib" in refused.get_body().get_content()
