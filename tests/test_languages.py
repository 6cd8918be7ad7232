"""Choosing the language of one's mails: at sign-up (lang=, else the mail's Content-Language), with
set, in any case; a Chinese or Korean account reads moves in its own notation unless it says
otherwise; an address without an account is answered in its mail's language."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat, text

import rules
from pbm import i18n
from pbm.commands import wording
from pbm.model.players import accounts


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
    assert "lang=fr은 설정이 아닙니다." in flat(error) and "lang=en|zh-Hans|zh-Hant|ko" in flat(error)


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


def _speaking(post: PostOffice, lang: str, *users: str) -> None:
    post.signup(*users)
    for user in users:
        post.send(f"set {user} {PASSWORDS[user]} lang={lang}", sender=f"{user}@example.org")


@pytest.mark.parametrize(("lang", "phrases"), [
    ("zh-Hans", ["象棋比赛 spring（循环赛）：第 1 轮（共 3 轮）已开始。", "第 1 轮：",
                 "排名：", "名次 棋手  积分 SB  1  2  3", "W：红方（先走），B：黑方"]),
    ("ko", ["샹치 대회 spring(리그전): 1/3라운드가 시작되었습니다.", "1라운드:",
            "순위:", "순위 사용자 승점 SB  1  2  3", "W: 홍(선수), B: 흑"]),
])
def test_a_tournament_round_is_announced_to_each_player_in_their_language(tmp_path, lang, phrases):
    post = PostOffice(tmp_path)
    _speaking(post, lang, "alice", "bob")
    _speaking(post, "en", "carol")
    post.send("xiangqi tournament create spring alice Sw0rdfish --system=roundrobin")
    for user in ("alice", "bob", "carol"):
        post.send(f"xiangqi tournament join spring {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    rounds = {m["To"].split("@")[0]: m for m in post.send("xiangqi tournament start spring alice Sw0rdfish")
              if "spring" in m["Subject"] and "Board" not in m["Subject"]}
    said = text(rounds["alice"])
    for phrase in phrases:
        assert phrase in said or phrase in flat(rounds["alice"]), phrase
    lines = said.split("\n")
    table = lines[lines.index(phrases[3]):][:4]             # the heading and a row for each player
    assert len({i18n.width(line) for line in table}) == 1, table    # aligned in display columns
    assert "The Xiangqi tournament spring (round robin): round 1 of 3 has begun." in flat(rounds["carol"])
    assert "Rk User  Pts SB  1  2  3" in text(rounds["carol"])      # each reader in their own language


@pytest.mark.parametrize(("lang", "refused", "told"), [
    ("zh-Hans", "“h3h9 h10g8”这一行在第 1 着 h3h9（alice 的着法）处被拒绝：",
     "没有设置任何着法；请改正这一行后重新发送。"),
    ("ko", "\"h3h9 h10g8\" 줄은 1번째 수 h3h9(alice 님의 수)에서 거절되었습니다:",
     "아무것도 설정되지 않았습니다. 그 줄을 고쳐서 다시 보내세요."),
])
def test_a_refused_conditional_move_is_explained_in_the_senders_language(tmp_path, lang, refused, told):
    post = PostOffice(tmp_path)
    _speaking(post, lang, "alice", "bob")
    post.send("xiangqi challenge alice bob")
    [error] = post.send("xiangqi conditional 101 bob Hunter22", "h3e3 h10g8\nh3h9 h10g8",
                        sender="bob@example.org")
    assert refused in flat(error) and told in flat(error)
    with i18n.speaking(lang):           # the rules core's reason, translated (Chinese lines break anywhere)
        assert "".join(wording.refusal(_refused("h3h9")).split()) in "".join(text(error).split())
    assert "cannon" not in flat(error) and "Nothing was set" not in flat(error)
    [answer] = post.send("xiangqi conditional 101 bob Hunter22", "h3e3 h10g8", sender="bob@example.org")
    assert {"zh-Hans": "如果 alice 走 h3e3 (C2=5)，你走 h10g8 (H8+7)。",
            "ko": "alice 님이 h3e3 (C2=5)를 두면, h10g8 (H8+7)을 둡니다."}[lang] in text(answer)


def _refused(move: str) -> rules.RulesError:
    try:
        rules.Game.new("xiangqi").play(move)
    except rules.RulesError as e:
        return e
    raise AssertionError(f"{move} was played")


def test_a_command_from_another_address_and_an_end_notice_speak_the_players_language(tmp_path):
    post = PostOffice(tmp_path)
    _speaking(post, "zh-Hans", "alice", "bob")
    post.send("xiangqi challenge alice bob")
    [answer] = post.send("xiangqi notify alice Sw0rdfish")
    assert "你的任何对局结束时，你都会收到通知。" in text(answer)
    mails = post.send("xiangqi move 101 alice Sw0rdfish h3e3", sender="elsewhere@example.net")
    told = {m["To"]: m for m in mails}
    assert "Done for alice on Xiangqi Board 101." in flat(told["elsewhere@example.net"])   # a stranger
    assert "这是从elsewhere@example.net发出的，它不是你的注册地址之一。" in "".join(
        text(told["alice@example.org"]).split())
    post.send("xiangqi move 101 bob Hunter22 h10g8", sender="bob@example.org")
    notices = [m for m in post.send("xiangqi move 101 alice Sw0rdfish resign") if "棋谱见附件。" in text(m)]
    assert [m["To"] for m in notices] == ["alice@example.org"]
    assert "Xiangqi Board 101（alice - bob）已结束：" in flat(notices[0])
