"""The game pages through real processes: `pbm serve` with `[web]` on a free port, a game played by
`pbm deliver`, each reader's link taken from their board mail, the page fetched over HTTP (status,
headers, moves in each reader's notation, `?ply=N`, the records, forged and revoked links), and drawn
by Chromium with scripts off (the page's Content-Security-Policy) at 800 and 390 pixels wide (kept
under $PBM_SHOTS/web when that variable names a folder).
"""
from __future__ import annotations

import os

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support.browser import screenshot_url
from support.postoffice import PASSWORDS
from support.processes import PbmEnv, free_port, listening, wait_until

SHOTS = Path(os.environ["PBM_SHOTS"]) / "web" if os.environ.get("PBM_SHOTS") else None
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/g/[a-z0-9_-]+)")


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def text_of(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def html_of(mail) -> str:
    return mail.get_body(("html",)).get_content()


def colours(image) -> set[tuple[int, int, int]]:
    return {colour for _, colour in image.getcolors(maxcolors=1 << 24)}


def last_mail_to(mails, address: str):
    return [m for m in mails if m["To"] == address][-1]


@pytest.fixture
def site(pbm_env: PbmEnv):
    port = free_port()
    pbm_env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    server = pbm_env.start_server()
    assert wait_until(lambda: listening(port), 30), server.log()
    yield pbm_env, f"http://127.0.0.1:{port}"
    assert server.stop() == 0



def test_each_reader_has_a_page_of_their_own(site):
    env, base = site
    env.mail(f"signup alice {PASSWORDS['alice']}", sender="alice@example.org")
    env.mail(f"signup bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    env.mail(f"signup carol {PASSWORDS['carol']} lang=ko", sender="carol@example.org")
    env.mail("xiangqi challenge alice bob")
    env.mail(f"xiangqi subscribe 101 carol {PASSWORDS['carol']}", sender="carol@example.org")
    for user, move, said in (("alice", "h3e3", "The central cannon."), ("bob", "h10g8", ""),
                             ("alice", "h1g3", "")):
        env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", said, sender=f"{user}@example.org")
    mails = env.replies()
    links = {}
    for user in ("alice", "bob"):
        mail = last_mail_to(mails, f"{user}@example.org")
        [link] = LINK.findall(text_of(mail))
        assert f'href="{link}"' in html_of(mail)
        links[user] = link
    assert len(set(links.values())) == 2
    # an observer's mail is every observer's: it links the game's public view, no page of its own,
    # which speaks the language the observer's browser asks for
    observed = last_mail_to(mails, "carol@example.org")
    assert not LINK.findall(text_of(observed))
    links["carol"] = f"{base}/p/xiangqi-101"
    assert links["carol"] in text_of(observed) and f'href="{links["carol"]}"' in html_of(observed)

    status, headers, body = fetch(links["alice"])
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Referrer-Policy"] == "no-referrer" and headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert "script-src" not in headers["Content-Security-Policy"]
    page = body.decode()
    assert "<script" not in page and "style=" not in page
    assert "C2=5" in page and "H8+7" in page and "H2+3" in page       # alice's notation: WXF
    assert "It is bob&#39;s turn." in page and "The central cannon." in page
    assert "<b>alice</b></td><td>1500? ±1000</td>" in page      # each player's rating, as of now
    assert 'src="' in page and "record.pgn" in page and "record.zh.pgn" in page and "record.dhtmlxq" in page
    assert "/record.zh.pgn?encoding=utf-8" in page and "/record.pgn?encoding" not in page
    chinese = fetch(links["bob"])[2].decode()
    assert "炮二平五" in chinese and "马８进７" not in chinese and "马8进7" in chinese
    assert 'lang="zh-Hans"' in chinese
    for user in ("alice", "bob"):       # the page's picture is the one of the reader's mail
        [mailed] = [part.get_content() for part in last_mail_to(mails, f"{user}@example.org").walk()
                    if part.get_content_type() == "image/png"]
        assert fetch(links[user] + "/board.png")[2] == mailed, user
    with urllib.request.urlopen(urllib.request.Request(links["carol"], headers={
            "Accept-Language": "ko-KR,ko;q=0.9"}), timeout=30) as answer:
        korean = answer.read().decode()
    assert 'lang="ko"' in korean and "C2=5" in korean

    # the game after one move: the board and the list say so, and the links step on
    status, _, body = fetch(links["alice"] + "?ply=1")
    stepped = body.decode()
    assert status == 200 and "1 / 3" in stepped and "?ply=2" in stepped and "?ply=0" in stepped
    now_png = fetch(links["alice"] + "/board.png")[2]
    then = fetch(links["alice"] + "/board.png?ply=1")
    assert then[0] == 200 and then[1]["Content-Type"] == "image/png" and then[2] != now_png
    assert then[2][:8] == b"\x89PNG\r\n\x1a\n"
    assert fetch(links["alice"] + "?ply=9")[0] == 404

    status, headers, body = fetch(links["alice"] + "/record.zh.pgn")     # GBK, as xqbase's readers take it
    assert headers["Content-Type"] == "application/x-chess-pgn; charset=gb18030"
    assert status == 200 and "1. 炮二平五 {alice: The central cannon.}".encode("gbk") in body
    status, headers, body = fetch(links["alice"] + "/record.zh.pgn?encoding=utf-8")
    assert headers["Content-Type"] == "application/x-chess-pgn; charset=utf-8"
    assert "1. 炮二平五 {alice: The central cannon.}" in body.decode()
    assert headers["Content-Disposition"] == 'inline; filename="xiangqi-101.zh.pgn"'
    assert "[DhtmlXQ_movelist]774770627967[/DhtmlXQ_movelist]" in fetch(links["bob"] + "/record.dhtmlxq")[2].decode()
    assert '[White "alice"]' in fetch(links["carol"] + "/record.pgn")[2].decode()
    assert fetch(links["alice"] + "/record.gib")[0] == 404          # a Xiangqi game has none

    # a game shown on request to a player's own address links their page too
    env.mail("xiangqi show 101", sender="alice@example.org")
    assert LINK.findall(text_of(env.replies()[-1])) == [links["alice"]]

    forged = links["alice"][:-1] + ("a" if links["alice"][-1] != "a" else "b")
    other = links["alice"].replace("-alice-", "-bob-")
    for url in (forged, other, base + "/g/xiangqi-101-alice", base + "/", base + "/g/"):
        status, headers, body = fetch(url)
        assert status == 404 and body == b"Not Found\n" and headers["Referrer-Policy"] == "no-referrer"

    # a password change revokes the links of the old one (with the reply addresses)
    env.mail(f"change password alice {PASSWORDS['alice']} N3w-passw0rd", sender="alice@example.org")
    assert fetch(links["alice"])[0] == 404 and fetch(links["alice"] + "/record.pgn")[0] == 404
    assert fetch(links["bob"])[0] == 200
    env.mail("xiangqi move 101 bob Hunter22 b10c8", sender="bob@example.org")
    [fresh] = LINK.findall(text_of(last_mail_to(env.replies(), "alice@example.org")))
    assert fresh != links["alice"] and fetch(fresh)[0] == 200


def test_pages_in_chromium_with_scripts_off(site, tmp_path):
    env, base = site
    env.mail(f"signup alice {PASSWORDS['alice']}", sender="alice@example.org")
    env.mail(f"signup bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    env.mail("xiangqi challenge alice bob")
    moves = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b8b4", "c4c5", "b10c8", "b1c3", "g7g6"]
    for ply, move in enumerate(moves):
        user = ("alice", "bob")[ply % 2]
        env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}",
                 "A long thought about this move, said in many words." if ply == 4 else "",
                 sender=f"{user}@example.org")
    mails = env.replies()
    folder = SHOTS or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    for user in ("alice", "bob"):
        [link] = LINK.findall(text_of(last_mail_to(mails, f"{user}@example.org")))
        for width in (800, 390):
            # scripts off by the page's own Content-Security-Policy (default-src 'none'): headless
            # Chromium takes no screenshot with --blink-settings=scriptEnabled=false
            image = screenshot_url(link + "?ply=7", folder / f"{user}-{width}.png", width=width,
                                   height=1600)
            assert image.width == width
            # nothing runs off the right edge: the last columns are the page's white
            assert colours(image.crop((width - 6, 0, width, image.height))) == {(255, 255, 255)}, \
                f"{user} at {width}px"
            # the board is drawn (a picture of many colours), not a broken image
            assert len(colours(image.crop((12, 200, width - 12, 560)))) > 50


def test_a_tournament_page_links_its_games_public_views(site, tmp_path):
    env, base = site
    users = {"ann": "Ann-pass-1", "ben": "Ben-pass-1", "cyd": "Cyd-pass-1"}
    for user, word in users.items():
        env.mail(f"signup {user} {word}", sender=f"{user}@example.org")
    env.mail(f"xiangqi tournament create Cup ann {users['ann']} --system=roundrobin", sender="ann@example.org")
    for user, word in users.items():
        env.mail(f"xiangqi tournament join cup {user} {word}", sender=f"{user}@example.org")
    env.replies()
    env.mail(f"xiangqi tournament start cup ann {users['ann']}", sender="ann@example.org")
    started = env.replies()
    news = [m for m in started if "tournament" in text_of(m).lower() and "/t/" in text_of(m)]
    assert news, [text_of(m)[:300] for m in started]
    [link] = re.findall(r"(http://127\.0\.0\.1:\d+/t/xiangqi/cup)\b", text_of(news[0]))
    assert f'href="{link}"' in html_of(news[0])

    status, headers, body = fetch(link)
    page = body.decode()
    assert status == 200 and headers["Referrer-Policy"] == "no-referrer" and "<script" not in page
    games = re.findall(r'href="\.\./\.\./p/(xiangqi-\d+)"', page)
    assert games and "Round 1" in page
    status, _, body = fetch(f"{base}/p/{games[0]}")
    assert status == 200 and "Board" in body.decode() and "record.pgn" in body.decode()
    request = urllib.request.Request(f"{base}/t/xiangqi/cup", headers={"Accept-Language": "ko-KR"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert 'lang="ko"' in answer.read().decode()
    assert fetch(f"{base}/t/xiangqi/nosuch")[0] == 404 and fetch(f"{base}/p/xiangqi-999")[0] == 404
    # the game's rating list: sure ratings only -- none yet, a tournament just started
    status, headers, body = fetch(f"{base}/r/xiangqi")
    assert status == 200 and "<h1>Xiangqi ratings</h1>" in body.decode() and "No rating is sure yet" in body.decode()
    assert headers["Referrer-Policy"] == "no-referrer" and fetch(f"{base}/r/chess")[0] == 404
    folder = SHOTS or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    image = screenshot_url(link, folder / "tournament-390.png", width=390, height=900)
    assert colours(image.crop((384, 0, 390, image.height))) == {(255, 255, 255)}


def test_pbm_web_alone_serves_the_pages_of_games_taken_by_pbm_deliver(pbm_env):
    assert pbm_env.run("web").returncode == 78          # no [web]: nothing to serve
    port = free_port()
    pbm_env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}/"})
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.mail("janggi challenge alice bob")
    pbm_env.mail(f"janggi move 101 alice {PASSWORDS['alice']} a4b4", sender="alice@example.org")
    [link] = LINK.findall(text_of(last_mail_to(pbm_env.replies(), "bob@example.org")))
    web = pbm_env.popen("web")
    try:
        assert wait_until(lambda: listening(port), 30)
        status, headers, body = fetch(link + "/record.gib")
        assert status == 200 and headers["Content-Type"] == "text/plain; charset=cp949"
        assert "1. 71졸72" in body.decode("cp949") and '[한대국자 "bob"]' in body.decode("cp949")
        status, headers, body = fetch(link + "/record.gib?encoding=utf-8")
        assert headers["Content-Type"] == "text/plain; charset=utf-8" and "71졸72" in body.decode()
        assert fetch(link + "/record.zh.pgn")[0] == 404            # Janggi has no Chinese PGN
        assert "a4b4" in fetch(link)[2].decode()
        taken = pbm_env.run("web")      # the port is this one's: one line, and EX_UNAVAILABLE
        assert taken.returncode == 69, taken.stderr
        [line] = [line for line in taken.stderr.decode().splitlines() if line.startswith("pbm:")]
        assert "address already in use" in line and "Traceback" not in taken.stderr.decode()
    finally:
        web.terminate()
        assert web.wait(30) == 0
