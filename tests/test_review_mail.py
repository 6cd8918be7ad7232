"""Engine reviews through real processes: games played to the end by mail with `pbm deliver`, the
reviews done by `pbm review` with Debian's fairy-stockfish (few nodes), each player's review mail in
their language and notation -- headline, chart, turning points, annotated records a PGN reader
takes -- a review asked during play refused, the daily limit, the wait said, and a worker killed
mid-review whose review is then done once."""
from __future__ import annotations

import base64
import json
import os
import re
import signal
import stat
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from support.browser import screenshot
from support.pgn_reader import read as read_pgn
from support.postoffice import text
from support.processes import PbmEnv, wait_until

import rules
from pbm.review.engine import DEBIAN

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "Car0l-Secret", "dave": "Dav3-Secret"}
XIANGQI = ["h3e3", "h8e8", "h1g3", "h10g8", "i1h1", "b8b1", "h1h7", "a10a9"]
JANGGI = ["a4b4", "a7b7", "i4h4", "i7h7", "b1c3", "b10c8", "h1g3", "h10g8"]
NODES = 3000
COORDINATE = re.compile(r"(?<![A-Za-z0-9%])[a-i](10|[1-9])(?![0-9])")


@pytest.fixture
def env(tmp_path) -> PbmEnv:
    if not os.access(DEBIAN, os.X_OK):
        pytest.fail("Debian's fairy-stockfish is not installed: run .ci/setup (apt-get install fairy-stockfish)")
    env = PbmEnv(tmp_path)
    env.configure(review={"nodes": NODES, "timeout": 20.0})
    yield env
    env.close()


def signup(env: PbmEnv, user: str, *prefs: str) -> None:
    env.mail(" ".join(["signup", user, PASSWORDS[user], *prefs]), sender=f"{user}@example.org")


def play(env: PbmEnv, variant: str, board: int, players: tuple[str, str], moves: list[str],
         styles: dict[str, str]) -> None:
    """The game played move by move, each player writing in their own notation."""
    game = rules.Game.new(variant)
    for ply, move in enumerate(moves):
        user = players[ply % 2]
        game.play(move)
        written = game.name_last(styles[user])
        env.mail(f"{variant} move {board} {user} {PASSWORDS[user]} {written}", sender=f"{user}@example.org")
    assert env.query("SELECT ply FROM games WHERE board = ?", (board,)) == [(len(moves),)]


def reviews_of(mails: list[EmailMessage]) -> dict[str, EmailMessage]:
    return {m["To"].split("@")[0]: m for m in mails
            if any(".review." in (part.get_filename() or "") for part in m.walk())}


def attachments(mail: EmailMessage) -> dict[str, str]:
    return {part.get_filename(): part.get_content() for part in mail.iter_attachments()}


def pictures(mail: EmailMessage) -> dict[str, bytes]:
    """The inline PNGs, by Content-ID: the chart and the boards before the turning points."""
    return {part["Content-ID"].strip("<>"): part.get_content() for part in mail.walk()
            if part.get_content_type() == "image/png"}


def html(mail: EmailMessage) -> str:
    return mail.get_body(preferencelist=("html",)).get_content()


def check_review(mail: EmailMessage, moves: int) -> tuple[str, dict[str, str]]:
    """What every review mail holds; its plain text and its records."""
    body = text(mail)
    assert all(len(line) <= 78 for line in body.splitlines()), body
    images = pictures(mail)
    charts = [cid for cid in images if cid.startswith("chart-")]
    boards = [cid for cid in images if cid.startswith("board-")]
    assert len(charts) == 1 and 1 <= len(boards) <= 3
    page = html(mail)
    assert all(f"cid:{cid}" in page for cid in images)
    assert images[charts[0]].startswith(b"\x89PNG")
    records = attachments(mail)
    pgn = read_pgn(records[next(name for name in records if name.endswith(".review.pgn"))])
    assert len(pgn.moves) == moves
    evals = [c for c in pgn.comments if c[1].startswith("[%eval ")]
    assert [ply for ply, _c in evals] == list(range(1, moves + 1))     # an evaluation after every move
    assert all(re.fullmatch(r"\[%eval (-?\d+\.\d\d|#-?\d+)\].*", c) for _p, c in evals)
    return body, records


def shot(mail: EmailMessage, tmp_path: Path, name: str):
    """The HTML part as Chromium draws it, its pictures in place (kept in $PBM_SHOTS/reviews)."""
    page = html(mail)
    for cid, data in pictures(mail).items():
        page = page.replace(f"cid:{cid}", "data:image/png;base64," + base64.b64encode(data).decode())
    folder = Path(os.environ["PBM_SHOTS"]) / "reviews" if os.environ.get("PBM_SHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return screenshot(page, folder, name, width=640, height=2400)


def marks_in(pgn_text: str) -> dict[str, int]:
    nags = read_pgn(pgn_text).nags.values()
    return {"?!": list(nags).count(6), "?": list(nags).count(2), "??": list(nags).count(4)}


def test_a_xiangqi_game_in_chinese_notation_reviewed_for_each_player(env, tmp_path):
    signup(env, "alice", "lang=zh-Hans", "notation=chinese", "review=on")
    signup(env, "bob", "review=on")
    env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    play(env, "xiangqi", 101, ("alice", "bob"), XIANGQI[:4], {"alice": "chinese", "bob": "wxf"})
    env.replies()
    env.mail(f"xiangqi review 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    [refusal] = env.replies()
    assert "Xiangqi Board 101 is still being played. An engine's review is made only after the end, " \
           "never during play" in " ".join(text(refusal).split())
    play_on = XIANGQI[4:]
    game = rules.Game.new("xiangqi")
    for move in XIANGQI[:4]:
        game.play(move)
    for ply, move in enumerate(play_on):
        user = ("alice", "bob")[ply % 2]
        game.play(move)
        env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {game.name_last('chinese' if user == 'alice' else 'wxf')}",
                 "Your move." if ply == 1 else "", sender=f"{user}@example.org")
    env.mail(f"xiangqi resign 101 alice {PASSWORDS['alice']}", sender="alice@example.org")
    assert env.query("SELECT status FROM reviews") == [("queued",)]     # both chose review=on
    assert not env.query("SELECT 1 FROM reviews WHERE evaluations IS NOT NULL")
    env.replies()

    done = env.run("review")
    assert done.returncode == 0 and b"reviews tried: 1" in done.stdout, done.stderr
    mails = reviews_of(env.replies())
    assert set(mails) == {"alice", "bob"}

    body, records = check_review(mails["alice"], len(XIANGQI))
    assert "准确率：alice（红方）" in body and "bob（黑方）" in body and "转折点：" in body
    assert "第 " in body and "引擎的着法：" in body
    assert not [line for line in body.splitlines() if COORDINATE.search(line) and "/" not in line]
    assert set(records) == {"xiangqi-101.review.pgn", "xiangqi-101.review.zh.pgn", "xiangqi-101.review.dhtmlxq"}
    assert "炮二平五" in records["xiangqi-101.review.zh.pgn"]
    assert re.search(r"\[DhtmlXQ_comment1\](\?\S* )?\(%eval ", records["xiangqi-101.review.dhtmlxq"])
    counts = marks_in(records["xiangqi-101.review.pgn"])
    drawn = shot(mails["alice"], tmp_path, "review-xiangqi-zh")
    colours = drawn.crop((0, 80, 640, 400)).getcolors(1 << 18)
    area = sum(n for n, (r, g, b) in colours if (r > 150 and g < 90 and b < 90)          # Red ahead
               or max(abs(r - 51), abs(g - 51), abs(b - 51)) <= 6)                  # Black ahead
    assert area > 2000, "the chart is not drawn in the mail"

    english, records = check_review(mails["bob"], len(XIANGQI))
    assert re.search(r"Accuracy: alice \(Red\) \d+%, bob \(Black\) \d+%\.", english)
    assert "The turning points:" in english and "The engine's move: " in english
    # the headline's counts are the marks in the record
    assert (6, "bob: Your move.") in read_pgn(records["xiangqi-101.review.pgn"]).comments   # theirs kept
    said = {mark: sum(int(n) for n in re.findall(rf"(\d+) {word}", english))
            for mark, word in (("??", "blunder"), ("?", "mistake"), ("?!", "inaccurac"))}
    assert said == counts == marks_in(records["xiangqi-101.review.pgn"])
    # once stored, asking again runs no engine: the stored review is mailed at once
    env.mail("xiangqi review 101", sender="bob@example.org")
    [again] = reviews_of(env.replies()).values()
    assert text(again) == english
    assert env.query("SELECT count(*), sum(attempts) FROM reviews") == [(1, 1)]


def test_a_janggi_game_in_korean_notation_reviewed_on_request(env):
    signup(env, "carol", "lang=ko", "notation=korean")
    signup(env, "dave", "lang=ko", "notation=korean")
    env.mail("janggi challenge carol dave", sender="carol@example.org")
    play(env, "janggi", 101, ("carol", "dave"), JANGGI, {"carol": "korean", "dave": "korean"})
    env.mail(f"janggi resign 101 dave {PASSWORDS['dave']}", sender="dave@example.org")
    assert env.query("SELECT count(*) FROM reviews") == [(0,)]        # nobody chose review=on
    env.replies()
    env.mail("janggi review 101", sender="carol@example.org")       # by the registered address
    [queued] = env.replies()
    assert "엔진 복기가 대기열에 올랐습니다" in text(queued) and "carol" in text(queued)
    assert re.search(r"약 \d+분 뒤에", text(queued))
    done = env.run("review")
    assert done.returncode == 0, done.stderr
    mails = reviews_of(env.replies())
    assert set(mails) == {"carol"}
    body, records = check_review(mails["carol"], len(JANGGI))
    assert "정확도: carol(초) " in body and "전환점:" in body and "엔진의 수: " in body
    assert not [line for line in body.splitlines() if COORDINATE.search(line) and "/" not in line]
    assert set(records) == {"janggi-101.review.pgn"}
    assert read_pgn(records["janggi-101.review.pgn"]).tags["Variant"] == "janggi"


def test_limits_refusals_and_the_wait(env):
    env.configure(review={"nodes": NODES, "timeout": 20.0, "per_day": 1})
    signup(env, "alice")
    signup(env, "bob")
    for board in (101, 102):
        env.mail("xiangqi challenge alice bob", sender="alice@example.org")
        play(env, "xiangqi", board, ("alice", "bob"), XIANGQI[:2], {"alice": "wxf", "bob": "wxf"})
        env.mail(f"xiangqi resign {board} bob {PASSWORDS['bob']}", sender="bob@example.org")
    env.mail("padwarqi challenge alice bob", sender="alice@example.org")
    padwarqi = rules.Game.new("padwarqi")
    for user in ("alice", "bob"):
        move = padwarqi.legal_moves()[0]
        padwarqi.play(move)
        env.mail(f"padwarqi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    env.mail(f"padwarqi resign 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    env.replies()
    env.configure(review={"nodes": 10 ** 10, "timeout": 20.0, "per_day": 1})
    env.mail(f"xiangqi review 101 alice {PASSWORDS['alice']}", sender="bob@example.org")
    env.mail(f"xiangqi review 102 alice {PASSWORDS['alice']}", sender="alice@example.org")
    env.mail("padwarqi review 101", sender="bob@example.org")
    env.mail("xiangqi review 101", sender="stranger@example.net")
    queued, limit, padwar, stranger = (" ".join(text(m).split()) for m in env.replies())
    assert re.search(r"queued; it will be mailed to alice, in about \d+ hours\. The queue holds more "
                     r"than a day's work", queued)
    assert "alice has asked for 1 review in the last 24 hours, the most a day here" in limit
    assert "The engine cannot be given the rules of Padwar qi" in padwar
    assert "Your address is not registered here" in stranger
    assert env.query("SELECT game_id, user_id FROM reviews JOIN review_requests ON review_id = id") == [(1, "alice")]


def test_a_worker_killed_mid_review_gives_it_back_and_it_is_done_once(env, tmp_path):
    log = tmp_path / "engine.log"
    wrapper = tmp_path / "engine"
    wrapper.write_text(f"#!/bin/sh\necho start >> {log}\ntee -a {log} | {DEBIAN}\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env.configure(review={"engine": str(wrapper), "nodes": 40000, "timeout": 2.0})
    signup(env, "alice", "review=on")
    signup(env, "bob")
    env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    play(env, "xiangqi", 101, ("alice", "bob"), XIANGQI, {"alice": "wxf", "bob": "wxf"})
    env.mail(f"xiangqi resign 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    env.replies()
    worker = env.popen("review")
    assert wait_until(lambda: log.exists() and log.read_text().count("go nodes") >= 2, 60)
    os.kill(worker.pid, signal.SIGKILL)
    worker.communicate()
    [(status, claimed, attempts)] = env.query("SELECT status, claimed_by, attempts FROM reviews")
    assert status == "running" and claimed.endswith(f":{worker.pid}") and attempts == 1
    early = env.run("review")                   # the lease (3 position timeouts) holds it a while
    assert b"reviews tried: 0" in early.stdout
    time.sleep(6.5)
    later = env.run("review")
    assert b"reviews tried: 1" in later.stdout, later.stderr
    assert env.query("SELECT status, attempts FROM reviews") == [("done", 2)]
    assert list(reviews_of(env.replies())) == ["alice"]
    assert env.run("review").stdout.startswith(b"reviews tried: 0")
    assert not reviews_of(env.replies())        # mailed once
    evaluations = json.loads(env.query("SELECT evaluations FROM reviews")[0][0])
    assert len(evaluations) == len(XIANGQI) + 1


def test_a_failing_engine_is_logged_shown_by_doctor_and_retried(env, tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nread line\necho uciok\nexit 3\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    env.configure(review={"engine": str(broken), "nodes": NODES, "timeout": 5.0})
    signup(env, "alice", "review=on")
    signup(env, "bob")
    env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    play(env, "xiangqi", 101, ("alice", "bob"), XIANGQI[:2], {"alice": "wxf", "bob": "wxf"})
    env.mail(f"xiangqi resign 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    failed = env.run("review")
    assert failed.returncode == 0
    assert b"review of game 1 failed, to be tried again later: the engine died (exit status 3)" in failed.stderr
    doctor = env.run("doctor").stdout.decode()
    assert "review:" in doctor and "the engine died (exit status 3)" in doctor
    assert "the review of game 1 failed (1 attempts), to be tried again: the engine died" in doctor
    [(status, after)] = env.query("SELECT status, next_attempt_at > queued_at FROM reviews")
    assert status == "queued" and after
    env.configure(review={"engine": "", "nodes": NODES, "timeout": 5.0})
    assert env.run("review").stdout.startswith(b"reviews tried: 0")     # not before its time
    env.query("UPDATE reviews SET next_attempt_at = queued_at")
    assert env.run("review").stdout.startswith(b"reviews tried: 1")
    assert env.query("SELECT status FROM reviews") == [("done",)]
