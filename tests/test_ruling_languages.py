"""Rulings as readers of each language see them: the cycle in their notation, the labels, the
verdict and the rule in their words; the HTML part as Chromium draws it, with the cycle's strip
picture (one small board per move of the cycle).  The screenshots are kept in $PBM_SHOTS/rulings
when that variable names a folder (for a person to look at), else in the test's folder."""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from PIL import Image
from support.browser import screenshot
from support.postoffice import PASSWORDS, PostOffice, text

from pbm.pictures.strip_drawing import BOARD_WIDTH, GAP

pytestmark = pytest.mark.slow      # a browser

PINNED_ROOT = "5k3/9/9/9/9/4c4/3r5/3NB4/4A4/4K4_w_-_-_0_1"    # fsf-27: Black chases a pinned horse
CYCLE = "e1d1 e5d5 d1e1 d5e5 " * 2
PERPETUAL_CHECK = "9/3kc4/3a5/3P5/9/4p4/9/4K4/9/3C5_w_-_-_0_1"   # fsf-07: Black checks for ever
CHECKS = "d7e7 e5d5 e7d7 d5e5 " * 2

# language, notation, what the ruling must say
READERS = {
    "en": ("both", ["6. e5d5  C5=4  chases the horse on d3 (unprotected: its protector, the",
                    "Verdict: Black (bob) loses by perpetual chase of the horse on d3.",
                    "Rule 4: A side that newly chased"]),
    "zh-Hans": ("chinese", ["炮5平4  捉六路马（无根：保护子五路仕被牵制）",
                            "判定：黑方（bob）长捉六路马，判负。", "第4条：一方每步棋都新捉对方同一个子"]),
    "zh-Hant": ("chinese-traditional", ["砲5平4  捉六路馬（無根：保護子五路仕被牽制）",
                                        "判定：黑方（bob）長捉六路馬，判負。", "第4條："]),
    "ko": ("both", ["6. e5d5  C5=4  쫓음: d3의 마 (보호 없음: 보호하는 기물이 묶임: e2의 사)",
                    "판정: 흑({user}) 쪽이 연속 쫓기로 집니다. 쫓긴 기물: d3의 마.", "제4조:"]),
}
def folder(tmp_path: Path) -> Path:
    if not os.environ.get("PBM_SHOTS"):
        return tmp_path
    shots = Path(os.environ["PBM_SHOTS"]) / "rulings"
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def play(post: PostOffice, game: str, fen: str, moves: str,
         players: tuple[str, str] = ("alice", "bob")) -> dict[str, object]:
    post.send(f"{game} challenge -fen={fen} {players[0]} {players[1]}", sender=f"{players[0]}@example.org")
    board = post.db.execute("SELECT board FROM games ORDER BY id DESC LIMIT 1").fetchone()[0]
    for ply, move in enumerate(moves.split()):
        user = players[ply % 2]
        mails = post.send(f"{game} move {board} {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    return {m["To"]: m for m in mails}


def client_page(mail, where: Path, name: str) -> tuple[str, list[Image.Image]]:
    """The HTML part with its pictures saved beside it, as a mail client shows it."""
    html = next(p.get_content() for p in mail.walk() if p.get_content_type() == "text/html")
    pictures = []
    for part in mail.walk():
        if part.get_content_type() == "image/png":
            cid = part["Content-ID"].strip("<>")
            file = f"{name}-{cid.split('@')[0]}.png-part"
            (where / file).write_bytes(part.get_content())
            html = html.replace(f"cid:{cid}", file)
            if cid.startswith("cycle-"):
                pictures.append(Image.open(io.BytesIO(part.get_content())))
    return html, pictures


@pytest.mark.parametrize("lang", READERS)
def test_a_perpetual_chase_ruled_in_each_language(tmp_path, lang):
    notation, expected = READERS[lang]
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    for user in ("alice", "bob"):
        post.send(f"set {user} {PASSWORDS[user]} lang={lang} notation={notation}", sender=f"{user}@example.org")
    mails = play(post, "xiangqi", PINNED_ROOT, CYCLE)
    mail = mails["alice@example.org"]
    body = text(mail)
    for line in expected:
        assert line.format(user="bob") in body, body
    where = folder(tmp_path)
    html, [strip] = client_page(mail, where, f"chase-{lang}")
    assert strip.width == 4 * (BOARD_WIDTH + GAP) - GAP          # the four moves of the cycle
    for line in expected[:1]:
        assert line.format(user="bob").split("  ")[-1][:20] in html
    shot = screenshot(html, where, f"chase-{lang}", height=1400)
    assert len(shot.getcolors(1 << 16) or range(1 << 16)) > 50     # drawn, not blank


def test_perpetual_check_is_labelled_check():
    """fsf-07: every move of Black's soldier gives check; Red's soldier checks only now and then."""
    post = PostOffice(Path(__import__("tempfile").mkdtemp()))
    post.signup("alice", "bob")
    post.send(f"set bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    mails = play(post, "xiangqi", PERPETUAL_CHECK, CHECKS)
    english, chinese = text(mails["alice@example.org"]), text(mails["bob@example.org"])
    assert re.search(r"^6\. e5d5  P5=4  check$", english, re.M)
    assert re.search(r"^7\. e7d7  P5=6  idle move$", english, re.M)
    assert "Verdict: Black (bob) loses by perpetual check." in english
    assert "Rule 3: A side that gave check with every one of its moves checks\nperpetually." in english
    assert re.search(r"^6\. 卒5平4  将军$", chinese, re.M) and re.search(r"^7\. 兵五平六  闲着$", chinese, re.M)
    assert "判定：黑方（bob）长将，判负。" in chinese
    assert "第3条：一方每步棋都将军，即为长将。" in chinese


def test_a_janggi_game_decided_on_points_shows_the_count(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send(f"set alice {PASSWORDS['alice']} lang=ko notation=korean", sender="alice@example.org")
    post.send("janggi challenge -points alice bob", sender="alice@example.org")
    for user, move in (("alice", "e2d2"), ("bob", "e9d9"), ("alice", "pass")):
        mails = post.send(f"janggi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    korean, english = (text(m) for m in sorted(mails, key=lambda m: m["To"]))
    assert "점수: 초 72 : 한 73.5" in korean and "제17조: 궁이 서로 마주 보면" in korean
    assert "제18조: 점수제에서는" in korean
    assert "Count: Cho 72 : Han 73.5" in english and "Rule 18: Under points scoring" in english


def test_a_janggi_bikjang_draw_names_its_rule(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send("janggi challenge alice bob", sender="alice@example.org")
    for user, move in (("alice", "e2d2"), ("bob", "e9d9"), ("alice", "pass")):
        mails = post.send(f"janggi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    mail = text(mails[0])
    assert "Draw (bikjang)." in mail and "Rule 17: When the generals face each other (bikjang)" in mail
    assert "Count:" not in mail
    [again] = post.send("janggi ruling 101", sender="dave@example.net")
    assert "Rule 17: When the generals face each other (bikjang)" in text(again)


DATA = Path(__file__).parent / "data" / "repetition_public.jsonl"


def test_every_decisive_held_out_case_is_explained_in_its_mail(tmp_path):
    """Each held-out case that ends by perpetual check or chase, played by mail: the mail's cycle is
    the moves that led from the repeated position back to it, a ply is labelled `check` exactly when
    it leaves the side to move in check, every move of the loser checks (perpetual check) or chases
    the piece the reason names, and the rule named is the one that decides."""
    import json

    import rules
    from rules import ruling
    post = PostOffice(tmp_path)
    post.signup("alice", "bob", "carol", "root")
    cases = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    decisive = [c for c in cases if c["expected"] != "draw" and c["fen"].split()[1] == "w"]
    assert len(decisive) == 21      # of 22: fsf-24 starts with Black to move (tests/test_ruling.py has it)
    for number, case in enumerate(decisive):
        players = (("alice", "bob"), ("carol", "root"))[number % 2]   # the challenges of a day
        mails = play(post, "xiangqi", case["fen"].replace(" ", "_"), case["moves"], players)
        mail = text(mails[f"{players[0]}@example.org"])
        block = mail.split("The cycle that repeated, move by move:\n", 1)[1].split("\n\n", 1)[0]
        plies = re.findall(r"^(\d+)\. (\S+)  \S+  (.+(?:\n      .+)*)$", block, re.M)
        game = rules.Game.new("xiangqi", None, case["fen"])
        for move in case["moves"].split():
            game.play(move)
        found = ruling.explain(game)
        assert [int(n) for n, _, _ in plies] == [p.number for p in found.plies], case["id"]
        assert [m for _, m, _ in plies] == game.moves[found.start:], case["id"]
        assert game.at(found.start).fen().split()[:2] == game.fen().split()[:2]
        loser = "Red" if case["expected"] == "black_wins" else "Black"
        for n, _, label in plies:
            label = " ".join(label.split())
            assert label.startswith("check") == game.at(int(n)).in_check(), (case["id"], n, label)
            if (int(n) % 2 == 1) == (loser == "Red"):               # the loser's move
                if game.reason.startswith("perpetual check"):
                    assert label.startswith("check"), (case["id"], n, label)
                else:
                    piece = re.match(r"perpetual chase of the (.+?) on", game.reason)[1]
                    assert f"chases the {piece} on " in label, (case["id"], n, label)
        assert f"Rule {found.decides.number}: " in mail and "loses by perpetual" in mail


def test_a_draw_by_repetition_with_both_sides_alike(tmp_path):
    """fsf-16: both sides check on every move: a draw, by the verdict table's rule."""
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    mails = play(post, "xiangqi", "9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5_w_-_-_0_1", "e4d4 d7e7 d4e4 e7d7 " * 2)
    mail = text(mails["bob@example.org"])
    assert "Draw (repetition)." in mail
    assert re.search(r"^5\. e4d4  C5=6  check$", mail, re.M)
    assert "Verdict: a draw; both sides did the same.\nRule 5: Perpetual check loses against" in mail
