"""The game pages read as the mails are: plies numbered one by one (as the mails, the page's counter
and its comment links count them), each move in the reader's notation (`both`: coordinates and WXF),
the start position and a comment made before the first move said in words -- and no page, game or
tournament, breaks its own Content-Security-Policy: Chromium's console holds no violation.

Through a real `pbm serve` with `[web]` (test_web's `site`), games played by `pbm deliver`.
"""
from __future__ import annotations

import re

from support.browser import console
from support.postoffice import PASSWORDS
from test_web import LINK, fetch, last_mail_to, site, text_of  # noqa: F401 (site: a fixture)

MOVES = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1"]


def cells(page: str) -> list[tuple[str, str]]:
    """(number, move) of each cell of the page's move list."""
    table = page.split('<table class="moves">')[1].split("</table>")[0]
    return re.findall(r'<td class="n">(\d+)\.</td><td>(?:<a [^>]*>|<b>)([^<]*)<', table)


def test_the_page_numbers_plies_as_the_mails_and_shows_the_readers_notation(site):
    env, base = site
    env.mail(f"signup alice {PASSWORDS['alice']}", sender="alice@example.org")
    env.mail(f"signup bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    env.mail("xiangqi challenge alice bob", "Good luck!")
    for ply, move in enumerate(MOVES):
        user = ("alice", "bob")[ply % 2]
        env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    mails = env.replies()
    mail = text_of(last_mail_to(mails, "alice@example.org"))
    assert "  1. h3e3   C2=5      2. h10g8  H8+7" in mail
    [alice] = LINK.findall(mail)
    [bob] = LINK.findall(text_of(last_mail_to(mails, "bob@example.org")))

    status, _, body = fetch(alice + "?ply=3")
    page = body.decode()
    assert status == 200
    assert cells(page) == [("1", "h3e3 C2=5"), ("2", "h10g8 H8+7"), ("3", "h1g3 H2+3"),
                           ("4", "i10h10 R9=8"), ("5", "i1h1 R1=2")]
    assert "<b>h1g3 H2+3</b>" in page and "Position after move 3 of 5." in page
    start = fetch(alice + "?ply=0")[2].decode()
    assert "The starting position, before move 1 of 5." in start and "after move 0" not in start
    assert "Before the first move</a>, <b>alice</b>:" in start           # the challenge's comment
    chinese = fetch(bob)[2].decode()
    assert [name for _, name in cells(chinese)] == ["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二"]
    assert "开局前</a>，<b>alice</b>：" in chinese

    for url in (alice, bob, f"{base}/p/xiangqi-101"):
        assert [line for line in console(url) if "Content Security Policy" in line] == []


def test_the_tournament_page_keeps_its_own_content_security_policy(site):
    env, base = site
    users = {"ann": "Ann-pass-1", "ben": "Ben-pass-1", "cyd": "Cyd-pass-1"}
    for user, word in users.items():
        env.mail(f"signup {user} {word}", sender=f"{user}@example.org")
    env.mail(f"xiangqi tournament create cup ann {users['ann']} --system=roundrobin", sender="ann@example.org")
    for user, word in users.items():
        env.mail(f"xiangqi tournament join cup {user} {word}", sender=f"{user}@example.org")
    env.mail(f"xiangqi tournament start cup ann {users['ann']}", sender="ann@example.org")
    env.replies()
    [(number, player)] = env.query("SELECT board, player1 FROM games ORDER BY id LIMIT 1")
    env.mail(f"xiangqi resign {number} {player} {users[player]}", sender=f"{player}@example.org")  # results
    env.replies()
    page = fetch(f"{base}/t/xiangqi/cup")[2].decode()
    assert 'class="crosstable"' in page and "style=" not in page
    assert [line for line in console(f"{base}/t/xiangqi/cup") if "Content Security Policy" in line] == []
