"""pbm's Xiangqi records as the field's own programs read them: ElephantEye's PGN reader (xqbase's code,
on the bytes pbm serves: GBK, Big5 for traditional characters) and vschess (the dpxq viewer, on the
UTF-8 form) read every move of random games of their own -- from the start, and from random positions
with soldiers stacked on one and two files and chariots, horses, cannons, advisors and elephants in
tandem, either side to move -- in Chinese PGN (both scripts) and in WXF PGN; and pbm reads back what
vschess writes for every move of those games (its WXF and Chinese names, tandem forms included).
"""
from __future__ import annotations

import random

import pytest
from support import xqrefs
from support.playouts import random_games
from support.xiangqi_setups import random_game, stacked_position

import rules
from pbm.model.play import pgn
from pbm.records import formats
from pbm.records.importing import read, replay, text_of
from test_records import board_of

pytestmark = pytest.mark.slow   # the field's programs, on many games


def games() -> list[rules.Game]:
    rnd = random.Random(40)
    out = random_games("xiangqi", 12, rnd, 120)
    out += [random_game(rnd, None, 80) for _ in range(6)]
    out += [random_game(rnd, stacked_position(rnd), 40) for _ in range(30)]
    return out


GAMES = games()


def test_the_games_hold_every_hard_case():
    """Soldiers on two tandem files, three or more on one, both sides: the cases a reader can miss."""
    names = [name for game in GAMES for name in game.name_moves("chinese", record=True)]
    for form in ("一兵", "二兵", "三兵", "四兵", "前兵", "后兵", "一卒", "三卒", "前车", "后炮", "前马"):
        assert any(name.startswith(form) for name in names), form
    wxf = [name for game in GAMES for name in game.name_moves("wxf", record=True)]
    for form in ("Pa", "Pd", "P.", "C+", "R-", "H+"):
        assert any(name.startswith(form) for name in wxf), form


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_eleeye_and_vschess_read_every_move_of_the_chinese_pgn(tmp_path, lang):
    fmt = formats.FORMATS["zh"]
    served, utf8 = [], []
    for i, game in enumerate(GAMES):
        text = fmt.write(board_of(game), [], "pbm.example.org", lang)
        data, charset = formats.encoded(fmt, text, lang=lang)
        assert charset == ("big5" if lang == "zh-Hant" else "gb18030")
        served.append(tmp_path / f"{i}.zh.pgn")
        served[-1].write_bytes(data)
        utf8.append(tmp_path / f"{i}.utf8.zh.pgn")
        utf8[-1].write_bytes(formats.encoded(fmt, text, utf8=True)[0])
    wrong = []
    for game, path, theirs in zip(GAMES, served, xqrefs.vschess(utf8)):
        expected = [xqrefs.iccs(m) for m in game.moves]
        fen, moves = xqrefs.eleeye(path, traditional=lang == "zh-Hant")
        if moves != expected or fen != " ".join(game.start_fen.split()[:2]):
            wrong.append(f"ElephantEye {path.name}: {len(moves)} of {len(expected)}")
        if theirs.get("moves") != expected or theirs["fen"].split()[:2] != game.start_fen.split()[:2]:
            wrong.append(f"vschess {path.name}: {len(theirs.get('moves', []))} of {len(expected)}")
    assert not wrong, wrong


def test_eleeye_and_vschess_read_every_move_of_the_wxf_pgn(tmp_path):
    paths = []
    for i, game in enumerate(GAMES):
        paths.append(tmp_path / f"{i}.pgn")
        paths[-1].write_bytes(pgn.record(board_of(game), [(1, "alice", "good {luck}")],
                                         "pbm.example.org").encode())
    assert '[Format "WXF"]' in paths[0].read_text()
    wrong = []
    for game, path, theirs in zip(GAMES, paths, xqrefs.vschess(paths)):
        expected = [xqrefs.iccs(m) for m in game.moves]
        fen, moves = xqrefs.eleeye(path)
        if moves != expected or fen != " ".join(game.start_fen.split()[:2]):
            wrong.append(f"ElephantEye {path.name}: {len(moves)} of {len(expected)}")
        if theirs.get("moves") != expected:
            wrong.append(f"vschess {path.name}: {len(theirs.get('moves', []))} of {len(expected)}")
    assert not wrong, wrong


def test_pbm_reads_what_vschess_writes():
    """vschess's WXF (`C+.5`, `Pa+1`, `P.+1`) and Chinese names of every move are pbm's record names
    (save the letters and 中兵), and pbm's importer reads them."""
    pairs = []
    for game in GAMES:
        replayed = rules.Game.new("xiangqi", fen=game.start_fen)
        for move in game.moves:
            pairs.append((replayed.fen(), xqrefs.iccs(move)))
            replayed.play(move)
    names = iter(xqrefs.vschess_names(pairs))       # one node process for every move
    wrong = []
    for game in GAMES:
        theirs = [next(names) for _ in game.moves]
        # pbm's record names are vschess's, letters H/E for its N/B, and 二兵 for its 中兵
        ours = zip(game.name_moves("wxf", record=True), game.name_moves("chinese", record=True))
        for (wxf, chinese), (their_wxf, their_chinese) in zip(ours, theirs):
            their_chinese = their_chinese.replace("中", "二").translate(str.maketrans("１２３４５６７８９", "123456789"))
            if wxf != their_wxf.replace("N", "H").replace("B", "E") or chinese != their_chinese:
                wrong.append((wxf, their_wxf, chinese, their_chinese))
        head = f'[FEN "{game.start_fen}"]\n\n'
        for column in (0, 1):
            record = read("xiangqi", head + " ".join(name[column] for name in theirs) + " *\n")
            if replay("xiangqi", record).moves != game.moves:
                wrong.append((game.start_fen, column))
    assert not wrong, wrong


def test_pbm_reads_its_own_chinese_pgn_in_every_charset():
    fmt = formats.FORMATS["zh"]
    for game in GAMES[::3]:
        for lang in ("zh-Hans", "zh-Hant"):
            text = fmt.write(board_of(game), [], "pbm.example.org", lang)
            for data in (formats.encoded(fmt, text, lang=lang)[0], text.encode("utf-8"),
                         b"\xef\xbb\xbf" + text.encode("utf-8"), text.encode("gb18030")):
                assert replay("xiangqi", read("xiangqi", text_of(data))).moves == game.moves
