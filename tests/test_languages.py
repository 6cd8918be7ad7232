"""Choosing the language of one's mails: at sign-up (lang=, else the mail's Content-Language), with
set, in any case; a Chinese or Korean account reads moves in its own notation unless it says
otherwise; an address without an account is answered in its mail's language."""
from __future__ import annotations

import pytest
from support.postoffice import PostOffice, flat

import rules
from pbm import i18n
from pbm.commands import wording
from pbm.model import accounts


def _preferences(post: PostOffice, user: str) -> dict:
    """The preferences as every mail reads them (defaults filled in)."""
    return accounts.preferences(post.db, user)


@pytest.mark.parametrize(("header", "lang", "notation"), [
    ("zh-CN", "zh-Hans", "chinese"), ("zh-TW", "zh-Hant", "chinese-traditional"),
    ("zh-Hant-HK, en;q=0.8", "zh-Hant", "chinese-traditional"), ("ko-KR", "ko", "korean"),
    ("en-GB", "en", "both"), ("fr", "en", "both"),
])
def test_a_new_account_takes_its_language_from_the_sign_up_mail(tmp_path, header, lang, notation):
    post = PostOffice(tmp_path)
    [welcome] = post.send("signup alice Sw0rdfish", Content_Language=header)
    prefs = _preferences(post, "alice")
    assert (prefs["lang"], prefs["notation"]) == (lang, notation)
    with i18n.speaking(lang):
        assert i18n._("Welcome to {server}, {user}").format(server="pbm test", user="alice") == \
            welcome["Subject"]


def test_lang_and_notation_given_at_sign_up_win_over_the_header(tmp_path):
    post = PostOffice(tmp_path)
    post.send("signup alice Sw0rdfish LANG=ZH-HANT notation=wxf", Content_Language="ko")
    assert _preferences(post, "alice")["lang"] == "zh-Hant"
    assert _preferences(post, "alice")["notation"] == "wxf"


def test_set_changes_the_language_of_the_answer_itself(tmp_path):
    post = PostOffice(tmp_path)
    post.send("signup alice Sw0rdfish")
    [answer] = post.send("set alice Sw0rdfish lang=ko board_faces=HANGUL")
    assert "alice 님의 현재 설정:" in flat(answer) and "board_faces=hangul" in flat(answer)
    [error] = post.send("set alice Sw0rdfish lang=fr")
    assert "lang=fr은(는) 설정이 아닙니다." in flat(error) and "lang=en|zh-Hans|zh-Hant|ko" in flat(error)


def test_a_stranger_is_answered_in_the_language_of_their_mail(tmp_path):
    post = PostOffice(tmp_path)
    [error] = post.send("xiangqi move 101 nobody Sw0rdfish h3e3", sender="x@example.org",
                        Content_Language="zh-CN")
    assert "没有 Xiangqi Board 101。" in flat(error)
    [error] = post.send("xiangqi move 101 nobody Sw0rdfish h3e3", sender="x@example.org")
    assert "There is no Xiangqi Board 101." in flat(error)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "padwarqi", "giqi"])
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "ko"])
def test_the_ascii_board_keeps_its_grid_and_says_the_rest_in_the_readers_language(variant, lang):
    game = rules.Game.new(variant)
    english = wording.board(game, True, variant, english=True)
    with i18n.speaking(lang):
        translated = wording.board(game, True, variant, english=False)
        legend = wording.legend(variant)
    grid = [line for line in english.split("\n") if "+--" in line or "--+" in line or "|" in line]
    kept = translated.split("\n")
    assert all(line in kept or any(other.startswith(line.rsplit("   ", 1)[0]) for other in kept)
               for line in grid)
    assert translated.endswith(legend) and legend and legend not in english
    assert not {"Red", "Black", "Cho", "Han", "White"} & set(translated.split())
    assert all(i18n.width(line) <= 78 for line in translated.split("\n"))
