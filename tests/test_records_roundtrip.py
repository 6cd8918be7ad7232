"""pbm reads back every record it writes, and the records others publish as they are.

Random games of both variants -- from the start, from Janggi setups, from random positions (Xiangqi
with stacked soldiers and tandem pieces, either side to move), with comments -- written in every
format the game has, in every charset pbm serves them in (GBK, Big5, CP949, and UTF-8 on request),
then read as `challenge -record` reads an attachment: the same moves, the same position.  Besides:
xqbase's own files (GBK, an advertisement after the result) read as ElephantEye reads them; DhtmlXQ
inside the dpxq wrappers and with variations; the DhtmlXQ cases that crashed the importer.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from support import xqrefs
from support.playouts import random_games
from support.xiangqi_setups import random_game, stacked_position

import rules
from pbm.records import dhtmlxq, formats, gib
from pbm.records.importing import read, replay, text_of
from test_records import board_of

XQ = Path(__file__).parent / "data" / "xq"
COMMENTS = [(0, "alice", "good luck"), (1, "bob", "ha (nice) [x] {y}"), (3, "alice", "说得好")]


def janggi_games(rnd: random.Random) -> list[rules.Game]:
    keys = [a.key for a in rules.Game.new("janggi").variant.arrangements]
    out = random_games("janggi", 6, rnd, 100)
    for cho in keys:                                    # every setup, each side
        game = rules.Game.new("janggi", {"cho": cho, "han": rnd.choice(keys)})
        for _ in range(rnd.randrange(1, 60)):
            if game.result != "*":
                break
            game.play(rnd.choice(game.legal_moves()))
        out.append(game)
    for source in random_games("janggi", 4, rnd, 40):   # from positions of their own
        game = rules.Game.new("janggi", fen=source.fen())
        for _ in range(rnd.randrange(1, 40)):
            if game.result != "*":
                break
            game.play(rnd.choice(game.legal_moves()))
        out.append(game)
    return out


def xiangqi_games(rnd: random.Random) -> list[rules.Game]:
    out = random_games("xiangqi", 6, rnd, 150)
    out += [random_game(rnd, stacked_position(rnd), rnd.randrange(1, 40)) for _ in range(10)]
    # binit games whose first move touches rank 10 crashed the importer (`int('10e')`)
    crashed = rules.Game.new("xiangqi", fen="2bak4/9/9/9/2b6/9/9/9/9/R2K5 b - - 0 1")
    crashed.play("e10f10")
    crashed.play("a1a10")
    out.append(crashed)
    return out


RND = random.Random(39)
GAMES = xiangqi_games(RND) + janggi_games(RND)


def same(game: rules.Game, back: rules.Game) -> bool:
    return back.moves == game.moves and back.fen().split()[:2] == game.fen().split()[:2]


@pytest.mark.parametrize("lang", ["en", "zh-Hant"])
def test_every_record_of_every_game_reads_back_in_every_charset_served(lang):
    wrong = []
    for game in GAMES:
        if not game.moves:
            continue
        board = board_of(game, "1-0" if game.result == "1-0" else "*")
        for fmt in formats.of(game.variant.name):
            text = fmt.write(board, COMMENTS, "pbm.example.org", lang)
            for utf8 in (False, True):
                data, _ = formats.encoded(fmt, text, utf8, lang)
                found = read(game.variant.name, text_of(data))
                if found is None or found.form != {"zh": "pgn"}.get(fmt.key, fmt.key) \
                        or not same(game, replay(game.variant.name, found)):
                    wrong.append(f"{fmt.key} {'utf-8' if utf8 else 'served'} of {game.start_fen}")
    assert not wrong, wrong


def test_a_janggi_pgn_is_not_taken_for_a_gib():
    """Its `Date "2026.11.27"` once read as a kibo move line: 0 of 99 games came back."""
    game = GAMES[-1]
    text = formats.FORMATS["pgn"].write(board_of(game), [], "s", "en")
    assert '[Date "2026.11.27"]' in text
    assert read("janggi", text).form == "pgn"


def test_a_game_from_a_plain_setup_keeps_its_arrangements_in_the_gib():
    """A game started from a record with no moves has the setup as a position of its own."""
    start = rules.Game.new("janggi", {"cho": "left", "han": "outer"})
    plain = rules.Game.new("janggi", fen=start.fen())
    text = gib.record(board_of(plain), "s")
    assert '[초차림 "상마상마"]' in text and '[한차림 "상마마상"]' in text and "[FEN" not in text
    found = read("janggi", text)
    assert found.form == "gib" and found.fen == start.fen()


def test_the_gib_lays_out_its_tags_as_the_real_files_do():
    real = (Path(__file__).parent / "data" / "gib" / "real-1.gib").read_bytes().decode("cp949")
    order = [line.split()[0] for line in real.splitlines() if line.startswith("[")]
    game = GAMES[-6]
    ours = gib.record(board_of(game, "1-0", "checkmate"), "s")
    assert [line.split()[0] for line in ours.splitlines() if line.startswith("[")] == order
    assert ours.endswith("\n\n") and "\r" not in ours and real.endswith("\n\n")


def test_xqbase_files_read_as_published_and_as_elephanteye_reads_them():
    for path in sorted(XQ.glob("*.pgn")):
        data = path.read_bytes()
        game = replay("xiangqi", read("xiangqi", text_of(data)))
        fen, moves = xqrefs.eleeye(path)
        assert [xqrefs.iccs(m) for m in game.moves] == moves and len(moves) > 20, path.name
        assert path.name == "sample.pgn" or "www.xqbase.com" in data.decode("gbk")   # after the result
        for other in (data.decode("gbk").encode("utf-8"), b"\xef\xbb\xbf" + data.decode("gbk").encode("utf-8")):
            assert replay("xiangqi", read("xiangqi", text_of(other))).moves == game.moves


def test_dhtmlxq_inside_the_dpxq_wrappers_and_with_variations():
    game = GAMES[1]
    block = dhtmlxq.record(board_of(game), [])
    inner = block.replace("[DhtmlXQ]\n", "").replace("[/DhtmlXQ]\n", "")
    variations = "".join(f"[DhtmlXQ_move_{i}_1_1]77477062[/DhtmlXQ_move_{i}_1_1]\n" for i in range(2000))
    for text in (f"[DhtmlXQiFrame]\n{inner}{variations}[/DhtmlXQiFrame]",
                 f"<p>[DhtmlXQHTML]{inner}[DhtmlXQ_binit]{dhtmlxq.STANDARD_BINIT}[/DhtmlXQ_binit]"
                 f"[/DhtmlXQHTML]</p>"):
        found = read("xiangqi", text)
        assert found.form == "dhtmlxq" and same(game, replay("xiangqi", found))


def test_a_file_of_several_games_is_read_for_its_first():
    first, second = GAMES[0], GAMES[7]          # from the start, and from a position of its own
    texts = [formats.FORMATS[key].write(board_of(game), [], "s", "en")
             for key, game in (("pgn", first), ("zh", second))]
    assert same(first, replay("xiangqi", read("xiangqi", texts[0] + "\n" + texts[1])))
    assert same(second, replay("xiangqi", read("xiangqi", texts[1] + "\n" + texts[0])))
