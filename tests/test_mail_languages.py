"""Whole games by mail in Chinese and in Korean, through real `pbm deliver` processes: moves written
in the players' notations (in RFC 2047 subjects and UTF-8 bodies), every mail in the reader's
language and notation, pbmserv's subjects kept for mail filters, and every line within 78 columns
of a fixed-width font (Chinese and Korean characters taking two)."""
from __future__ import annotations

import re

from support.postoffice import plain
from test_commands_game import MATE
from test_line_length import assert_in_the_readers_words

import rules
from pbm import i18n

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "minsu": "c4rol-pw", "jiwoo": "R00t-admin"}
FEN = re.compile(r"\S+/\S+ [wb] ")
JANGGI_MATE = "rnb1a3r/4Ca3/4k4/1pp6/6c1n/4p3p/1PP1P1N1c/3K5/3CR4/2BA1A3 b - - 21 46"


def body(mail) -> str:
    return plain(mail).replace("\r\n", "\n")


def by_recipient(mails) -> dict[str, object]:
    return {str(m["To"]).split("@")[0]: m for m in mails}


def assert_fits(mails) -> None:
    """No line wider than 78 columns (links and FENs, which must not break, aside)."""
    wide = [(m["Subject"], line) for m in mails for line in body(m).splitlines()
            if i18n.width(line) > 78 and not line.startswith("https://") and not FEN.match(line)]
    assert not wide, wide


def send(pbm_env, subject: str, user: str, text: str = "", **headers: str) -> dict[str, object]:
    pbm_env.mail(subject, text, sender=f"{user}@example.org", **headers)
    return by_recipient(pbm_env.replies())


def test_a_xiangqi_game_in_chinese_notation_and_chinese_mails(pbm_env):
    welcome = send(pbm_env, "signup alice Sw0rdfish notation=chinese", "alice", Content_Language="zh-CN")
    assert welcome["alice"]["Subject"] == "欢迎来到 pbm test，alice"
    assert "你已注册为 alice" in body(welcome["alice"])
    send(pbm_env, "signup bob Hunter22 lang=zh-Hant notation=chinese-traditional", "bob")
    assert pbm_env.query("SELECT id, preferences FROM users ORDER BY id") == [
        ("alice", '{"autoleave": "off", "board": "own", "board_faces": "hanja", "calendar": "on", '
                  '"digest": "off", "lang": "zh-Hans", "movetimes": "off", "notation": "chinese", '
                  '"notes": "private", "review": "off", "subscribed": "on", "tz": "UTC"}'),
        ("bob", '{"autoleave": "off", "board": "own", "board_faces": "hanja", "calendar": "on", '
                '"digest": "off", "lang": "zh-Hant", "movetimes": "off", "notation": "chinese-traditional", '
                '"notes": "private", "review": "off", "subscribed": "on", "tz": "UTC"}')]
    mails = send(pbm_env, "xiangqi challenge alice bob", "alice")
    assert mails["bob"]["Subject"] == "New Xiangqi Board 101 alice"
    assert "輪到 alice 走棋。" in body(mails["bob"])
    assert "（例如" in body(mails["alice"]) and "r = 红方（先走）" in body(mails["alice"])
    raw = bytes(pbm_env.message("xiangqi move 101 alice Sw0rdfish 炮二平五", sender="alice@example.org"))
    assert b" =?utf-8?b?54Ku5LqM5bmz5LqU?=" in raw      # the subjects below go as RFC 2047 words
    game = rules.Game.new("xiangqi")
    seen = list(mails.values())
    for ply, move in enumerate(MATE):
        game.play(move)
        if ply % 2 == 0:        # alice writes commands, in the subject (RFC 2047 encoded words)
            name = game.name_moves("chinese")[-1]
            mails = send(pbm_env, f"xiangqi move 101 alice Sw0rdfish {name}", "alice")
        else:                   # bob answers his game mail with the move, in traditional characters
            name = game.name_moves("chinese-traditional")[-1]
            pbm_env.reply(mails["bob"], f"{name}\n\n該你了。")
            mails = by_recipient(pbm_env.replies())
        seen += mails.values()
        assert f"{'alice' if ply % 2 == 0 else 'bob'} 走了 {name}" in body(mails["bob"]) or ply % 2 == 0
    alice, bob = body(mails["alice"]), body(mails["bob"])
    assert mails["alice"]["Subject"] == "Xiangqi Board 101 over: alice 胜（将死）"
    assert mails["bob"]["Subject"] == "Xiangqi Board 101 over: alice 勝（將死）"
    assert "alice 走了 炮二平五。" not in alice         # the last move is named, not the first
    assert "alice 走了 炮八平五。" in alice and "alice 获胜（将死）。" in alice
    assert "alice 獲勝（將死）。" in bob
    assert "  1. 炮二平五" in alice and "4. 车1退1" in alice and "4. 車1退1" in bob
    header, first = next(lines for lines in zip(bob.splitlines(), bob.splitlines()[1:])
                         if lines[0].startswith("     alice"))
    # each name stands over its column's moves, after the moves' numbers: aligned in display columns
    assert i18n.width(header[:header.index("bob")]) == i18n.width(first[:first.index("車1進1")])
    assert pbm_env.query("SELECT status, winner, reason FROM games") == [("finished", "alice", "checkmate")]
    assert_fits(seen)
    assert_in_the_readers_words([m for m in seen if m["To"].startswith("alice")], "zh-Hans")
    assert_in_the_readers_words([m for m in seen if m["To"].startswith("bob")], "zh-Hant")


def test_refusals_are_explained_in_the_senders_language(pbm_env):
    send(pbm_env, "signup alice Sw0rdfish", "alice", Content_Language="zh-TW, en;q=0.5")
    send(pbm_env, "signup bob Hunter22", "bob", Content_Language="ko")
    send(pbm_env, "xiangqi challenge alice bob", "alice")
    [error] = send(pbm_env, "xiangqi move 101 bob Hunter22 h10g8", "bob").values()
    assert error["Subject"] == "Xiangqi Board 101 Error"
    assert "다음 명령을 처리하지 못했습니다." in body(error) and "bob 님 차례" not in body(error)
    assert "지금은 둘 차례가 아닙니다. alice 님 차례입니다." in body(error)
    [error] = send(pbm_env, "xiangqi move 101 alice wrong-password h3e3", "alice").values()
    assert "alice 的密碼不對。密碼區分大小寫。" in body(error)
    [error] = send(pbm_env, "xiangqi move 999 alice Sw0rdfish h3e3", "alice").values()
    assert "沒有 Xiangqi Board 999。" in body(error)
    stranger = send(pbm_env, "janggi move 101 nobody Sw0rdfish a4a5", "carol", Content_Language="ko-KR")
    assert "Janggi Board 101은 없습니다." in body(stranger["carol"])
    assert_fits(list(stranger.values()))


def test_a_janggi_game_in_korean_notation_and_korean_mails(pbm_env):
    send(pbm_env, "signup minsu c4rol-pw notation=korean", "minsu", Content_Language="ko-KR")
    send(pbm_env, "signup jiwoo R00t-admin notation=korean board_faces=hangul", "jiwoo",
         Content_Language="ko")
    mails = send(pbm_env, "janggi challenge minsu jiwoo", "minsu")
    seen = list(mails.values())
    assert mails["jiwoo"]["Subject"] == "New Janggi Board 101 minsu"
    assert "minsu 님이 jiwoo 님과 장기 대국을 시작했습니다." in body(mails["jiwoo"])
    assert "c = 초(선수), h = 한.  K 궁(장), G 사, E 상, H 마, R 차, C 포, S 졸/병." in body(mails["minsu"])
    mails = send(pbm_env, "janggi move 101 minsu c4rol-pw 71졸61", "minsu")
    assert "minsu 님이 71졸61을 두었습니다." in body(mails["jiwoo"])
    pbm_env.reply(mails["jiwoo"], "49병59")
    mails = by_recipient(pbm_env.replies())
    mails.update(send(pbm_env, "janggi move 101 minsu c4rol-pw 02마83", "minsu"))
    pbm_env.reply(mails["jiwoo"], "한수쉼")
    mails = by_recipient(pbm_env.replies())
    seen += mails.values()
    assert "jiwoo 님이 한수쉼을 했습니다." in body(mails["minsu"])
    assert "  1. 71졸61" in body(mails["minsu"]) and "4. 한수쉼" in body(mails["minsu"])
    mails = send(pbm_env, "janggi resign 101 minsu c4rol-pw", "minsu")
    seen += mails.values()
    assert mails["jiwoo"]["Subject"] == "Janggi Board 101 over: jiwoo 님 승(minsu 님 기권)"
    assert "minsu 님이 기권했습니다." in body(mails["jiwoo"])
    # a second game, from a position where Han mates in one: 외통
    fen = JANGGI_MATE.replace(" ", "_")
    send(pbm_env, f"janggi challenge -fen={fen} jiwoo minsu", "jiwoo")
    mails = send(pbm_env, "janggi move 102 jiwoo R00t-admin 11차81", "jiwoo")
    seen += mails.values()
    assert mails["minsu"]["Subject"] == "Janggi Board 102 over: jiwoo 님 승(외통)"
    assert "jiwoo 님 승리(외통)." in body(mails["minsu"])
    assert_fits(seen)
    assert_in_the_readers_words(seen, "ko")
