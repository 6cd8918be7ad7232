"""The rules core's refusals (rules.said) in the player's language: an illegal or unreadable move
is explained in Chinese or Korean, each part of the explanation (piece, side, list) translated, while
the rules core itself stays English and free of catalogs."""
from __future__ import annotations

import pytest
from support.postoffice import PostOffice, text

import rules
from pbm import i18n
from pbm.commands import wording
from rules.said import Said, said


def test_said_is_the_english_text_and_remembers_its_making():
    piece = said("the {piece} on {square}", piece=said("cannon"), square="h3")
    text_ = said("{piece} is blocked at {square}", piece=piece, square="h5")
    assert text_ == "the cannon on h3 is blocked at h5" and isinstance(text_, str)
    assert text_.template == "{piece} is blocked at {square}" and text_.values["piece"] is piece
    with pytest.raises(rules.IllegalMove) as refused:
        rules.Game.new("xiangqi").play("h3h9")
    assert isinstance(refused.value.args[0], Said)
    assert str(refused.value) == ("h3h9 is not a legal move: the cannon on h3 can jump only to "
                                  "capture; the cannon on h3 can go to c3, d3, e3, f3, g3, h2, h4, h5, "
                                  "h6, h7, h10, i3")


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "h3h9 is not a legal move: the cannon on h3 can jump only to capture; the cannon on h3"),
    ("zh-Hans", "h3h9 不是合法着法：h3 的炮只有吃子时才能翻山；h3 的炮可以走到"),
    ("zh-Hant", "h3h9 不是合法著法：h3 的炮只有吃子時才能翻山；h3 的炮可以走到"),
    ("ko", "h3h9는 둘 수 없는 수입니다: h3의 포는 잡을 때만 넘을 수 있습니다. h3의 포는"),
])
def test_a_refused_move_is_explained_in_each_language(lang, expected):
    with pytest.raises(rules.IllegalMove) as refused:
        rules.Game.new("xiangqi").play("h3h9")
    with i18n.speaking(lang):
        assert wording.refusal(refused.value).startswith(expected)


@pytest.mark.parametrize(("variant", "moves", "lang", "named"), [
    ("xiangqi", ["h3e3", "a7b7"], "zh-Hans", "a7 的卒可以走到 a6"),      # Black's soldier: 卒
    ("xiangqi", ["a4b4"], "zh-Hans", "a4 的兵可以走到 a5"),              # Red's: 兵
    ("janggi", ["a4a5", "a7a8"], "ko", "a7의 병"),                       # Han's soldier: 병
    ("janggi", ["a4a3"], "ko", "a4의 졸"),                               # Cho's: 졸
])
def test_a_piece_is_named_as_its_side_names_it(variant, moves, lang, named):
    game = rules.Game.new(variant)
    with pytest.raises(rules.IllegalMove) as refused:
        for move in moves:
            game.play(move)
    with i18n.speaking(lang):
        assert named in wording.refusal(refused.value)


def test_refusals_by_mail_in_chinese_and_korean(tmp_path):
    post = PostOffice(tmp_path)
    post.send("signup alice Sw0rdfish notation=chinese", sender="alice@example.org", Content_Language="zh")
    post.send("signup bob Hunter22 notation=korean", sender="bob@example.org", Content_Language="ko-KR")
    post.send("xiangqi challenge alice bob", sender="alice@example.org")
    post.send("janggi challenge bob alice", sender="bob@example.org")
    [error] = post.send("xiangqi move 101 alice Sw0rdfish 马二进二", sender="alice@example.org")
    assert "马二进二 不是合法着法：它所指的棋子可以走 马二进一、马二进三。" in text(error)
    [error] = post.send("xiangqi move 101 alice Sw0rdfish zz", sender="alice@example.org")
    assert "无法识别着法“zz”。请这样写：用起点-终点坐标，例如 h3e3" in text(error)
    [error] = post.send("janggi move 101 bob Hunter22 08차87", sender="bob@example.org")
    assert "08차87은 둘 수 없는 수입니다: 08의 기물은 초의 마입니다(차가 아닙니다)" in " ".join(text(error).split())


@pytest.mark.parametrize("stored", [
    "checkmate", "stalemate", "by agreement", "repetition", "bikjang", "alice resigned",
    "perpetual check by Red", "perpetual chase of the cannon on b7 by Red",
    "bikjang: decided on points, Cho 72 - Han 73.5", "bob did not move within 3 days",
    "adjudicated by root: both agreed", "120 plies without capture",
])
def test_a_stored_ending_reads_as_stored_in_english_and_is_translated_otherwise(stored):
    assert wording.reason(stored) == stored
    with i18n.speaking("zh-Hans"):
        assert wording.reason(stored) != stored
