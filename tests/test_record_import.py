"""A game started from a record (`GAME challenge -record USER1 USER2`), through `pbm deliver`: two
real `.gib` games from a Korean program's archive (tests/data/gib) attached in CP949, a Chinese PGN
and a DhtmlXQ block as pbm writes them, each starting the game from the position after its moves;
the first real game is played to its end by mail (its last move mates), and a record with a move
that cannot be played is refused naming that move."""
from __future__ import annotations

import random
from pathlib import Path

from support.playouts import random_games
from support.postoffice import PASSWORDS

import rules
from pbm.records import chinese, dhtmlxq
from pbm.records.importing import read, replay, text_of
from test_records import board_of

DATA = Path(__file__).parent / "data" / "gib"


def signed_up(env) -> None:
    for user in ("alice", "bob"):
        env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    env.replies()


def challenge(env, game: str, record: bytes | None, body: str = "", name: str = "record.txt", word="-record"):
    msg = env.message(f"{game} challenge {word} alice bob", body)
    if record is not None:
        msg.add_attachment(record, maintype="application", subtype="octet-stream", filename=name)
    result = env.deliver(msg)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return env.replies()


def start_fen(env, game: str) -> str:
    [(fen,)] = env.query("SELECT start_fen FROM games WHERE variant = ? AND board = 101", (game,))
    return fen


def text(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def test_a_real_gib_starts_a_game_played_to_its_end(pbm_env):
    signed_up(pbm_env)
    data = (DATA / "real-2.gib").read_bytes()
    last = "122. 65차95장군".encode("cp949")
    assert data.rstrip().endswith(last)
    mails = challenge(pbm_env, "janggi", data.rstrip()[:-len(last)].replace(
        '[총수 "122"]'.encode("cp949"), '[총수 "121"]'.encode("cp949")), name="game.gib")
    assert any("after the 121 moves of the record" in text(m) for m in mails), text(mails[0])
    everything = replay("janggi", read("janggi", text_of(data)))
    assert everything.result == "0-1" and everything.reason == "checkmate"
    before = rules.Game.new("janggi", fen=start_fen(pbm_env, "janggi"))
    assert before.turn == "b" and before.result == "*"
    # as with -fen, the first player named plays the side to move: alice has Han here
    pbm_env.mail(f"janggi move 101 alice {PASSWORDS['alice']} 65차95", sender="alice@example.org")
    after = pbm_env.replies()
    final = [m for m in after if " over: " in m["Subject"]]
    assert final and "alice won (checkmate)" in final[0]["Subject"], text(after[0])


def test_the_other_real_gib_and_chinese_pgn_and_dhtmlxq_give_the_position_after_their_moves(pbm_env):
    signed_up(pbm_env)
    data = (DATA / "real-1.gib").read_bytes()
    challenge(pbm_env, "janggi", data, name="game.gib")
    assert start_fen(pbm_env, "janggi") == replay("janggi", read("janggi", text_of(data))).fen()
    [game] = random_games("xiangqi", 1, random.Random(3), 60)
    board = board_of(game)
    mails = challenge(pbm_env, "xiangqi", None, body=chinese.record(board, [(2, "bob", "hm")], "s"))
    assert start_fen(pbm_env, "xiangqi") == game.fen(), text(mails[0])
    pbm_env.mail(f"xiangqi resign 101 alice {PASSWORDS['alice']}", sender="alice@example.org")
    pbm_env.replies()
    challenge(pbm_env, "xiangqi", dhtmlxq.record(board, []).encode(), name="game.txt", word="-record=dhtmlxq")
    [(fen,)] = pbm_env.query("SELECT start_fen FROM games WHERE variant = 'xiangqi' AND board = 102")
    assert fen == game.fen()


def test_a_record_with_a_move_that_cannot_be_played_is_refused_naming_it(pbm_env):
    signed_up(pbm_env)
    [refused] = challenge(pbm_env, "xiangqi", None, body="1. 炮二平五 马８进７\n2. 马二进三 车９平９\n")
    assert "Move 4 of the record (车９平９) cannot be played" in text(refused)
    assert not pbm_env.query("SELECT id FROM games")
    [none] = challenge(pbm_env, "xiangqi", None)
    assert "-record needs the game's record" in text(none)
    [wrong] = challenge(pbm_env, "xiangqi", b"1. C2=5 H8+7", word="-record=gib", name="r.pgn")
    assert "-record=gib was asked for, but the record in this mail is pgn" in text(wrong)


def test_records_up_to_a_megabyte_are_read_and_a_larger_one_is_refused_with_its_size(pbm_env):
    """A real dpxq file with its variations is 546 KB; xqbase's files are GBK with an advertisement
    after the result; a record over 1 MB is refused naming its size and the limit."""
    signed_up(pbm_env)
    [game] = random_games("xiangqi", 1, random.Random(5), 40)
    block = dhtmlxq.record(board_of(game), []).replace("[/DhtmlXQ]", "".join(
        f"[DhtmlXQ_move_{i}_1_1]77477062[/DhtmlXQ_move_{i}_1_1]\n" for i in range(14_000)) + "[/DhtmlXQ]")
    assert 600_000 < len(block) < 1024 * 1024
    challenge(pbm_env, "xiangqi", f"[DhtmlXQiFrame]{block}[/DhtmlXQiFrame]".encode(), name="game.txt")
    assert start_fen(pbm_env, "xiangqi") == game.fen()
    pbm_env.mail(f"xiangqi resign 101 alice {PASSWORDS['alice']}", sender="alice@example.org")
    pbm_env.replies()
    xqbase = (Path(__file__).parent / "data" / "xq" / "ccgc-1.pgn").read_bytes()
    challenge(pbm_env, "xiangqi", xqbase, name="ccgc.pgn")
    [(fen,)] = pbm_env.query("SELECT start_fen FROM games WHERE variant = 'xiangqi' AND board = 102")
    assert fen == replay("xiangqi", read("xiangqi", text_of(xqbase))).fen()
    big = block.encode() + b" " * (1024 * 1024 + 10_000 - len(block.encode()))
    [refused] = challenge(pbm_env, "xiangqi", big, name="big.txt")
    assert "The record big.txt is 1,034 KB; records of up to 1,024 KB are read." in text(refused)
