"""Replies that keep what the player meant: an in-game word or a move after a greeting acts even on
a mail that asked for no move (an early move is told how to queue it, in a reply's words and with a
move number of the player's own), the reply error shows a move, not a Python list, and quotes the
lines as it read them (indented in Chinese as in English), an error quote masks only what may be a
password, and no mail breaks a command across lines."""
from __future__ import annotations

import json
import re

import pytest
from support.postoffice import PostOffice, by_recipient, flat, text

ALICE, BOB = "alice@example.org", "bob@example.org"
pytestmark = pytest.mark.post_office("alice", "bob")


def mails_of(post: PostOffice, subject: str, sender: str = ALICE) -> dict:
    return by_recipient(post.send(subject, sender=sender))


def test_a_setup_after_a_greeting_on_a_new_janggi_game_is_a_setup_not_chat(post):
    note = mails_of(post, "janggi challenge alice bob")[BOB]
    mails = by_recipient(post.reply(note, "Hi Alice,\n\nsetup left\n\nGood luck!"))
    assert "bob (Han) chose the setup left" in flat(mails[ALICE])
    assert "Hi Alice" in flat(mails[ALICE])                       # the greeting goes on as the comment
    [(params,)] = post.db.execute("SELECT params FROM games WHERE variant = 'janggi'")
    assert json.loads(params) == {"han": "left"}


def test_an_early_move_after_a_greeting_is_refused_with_how_to_queue_it(post):
    note = mails_of(post, "xiangqi challenge alice bob")[BOB]
    [error] = post.reply(note, "Hi Alice\n\nh10g8")
    body = flat(error)
    assert "It is not your move on Xiangqi Board 101: it is alice's turn." in body
    assert "queue it: queue h10g8" in body
    assert re.search(r"for example \w+ or \w+#2\)", body)      # bob's own next move is #2, not #1
    [error] = post.send("xiangqi move 101 bob Hunter22 h10g8", sender=BOB)
    assert any(line.endswith(" xiangqi queue 101 bob PASSWORD h10g8") or line == "xiangqi queue 101 bob PASSWORD h10g8"
               for line in text(error).splitlines())                    # one line, whole


def test_the_reply_error_shows_a_move_and_the_lines_it_read_indented(post):
    turn = mails_of(post, "xiangqi challenge alice bob")[ALICE]
    [error] = post.reply(turn, "Thanks!")
    assert "    Thanks!\n" in text(error)
    assert "['" not in text(error) and "(for example " in flat(error)
    post.send("set alice Sw0rdfish lang=zh-Hans", sender=ALICE)
    [error] = post.reply(turn, "你好\n\n谢谢")
    assert "\n    你好\n    谢谢\n" in text(error) and "['" not in text(error)


@pytest.mark.parametrize("subject, quoted", [
    ("xiangqi moev 101 alice Sw0rdfish h3e3", "xiangqi moev 101 alice ******** h3e3"),
    ("xiangqi replay 101 4 h3e3 h10g8", "xiangqi replay 101 4 h3e3 h10g8"),
    ("xiangqi preview 101 i1h1 马8进7", "xiangqi preview 101 i1h1 马8进7"),
    ("janggi setup 102 alice outer", "janggi setup 102 alice outer"),
    ("janggi setup 102 alice ma-sang-ma-sang", "janggi setup 102 alice ma-sang-ma-sang"),
])
def test_an_error_quote_masks_only_what_may_be_a_password(post, subject, quoted):
    post.send("xiangqi challenge alice bob", sender=ALICE)
    [error] = post.send(subject, sender=ALICE)
    assert f"    {quoted}\n" in text(error)


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "ko"])
def test_no_command_is_broken_across_lines(post, lang):
    post.send(f"set bob Hunter22 lang={lang}", sender=BOB)
    post.send(f"set alice Sw0rdfish lang={lang}", sender=ALICE)
    post.send("xiangqi challenge alice bob", sender=ALICE)
    [error] = post.send("xiangqi move 101 bob Hunter22 h10g8", sender=BOB)
    [created] = post.send("xiangqi tournament create springcup2026 alice Sw0rdfish --system=swiss --rounds=3", sender=ALICE)
    [page] = post.send("help", sender=ALICE)
    lines = [line for mail in (error, created, page) for line in text(mail).splitlines()]
    for command in ("xiangqi queue 101 bob PASSWORD h10g8", "lang=en|zh-Hans|zh-Hant|ko",
                    "xiangqi tournament start springcup2026 alice PASSWORD"):
        assert any(command in line for line in lines), (command, lines)
