"""The review's engine and arithmetic, against Debian's fairy-stockfish at small node counts: a game
searched position by position, the same twice; an engine that crashes, hangs, prints garbage or is
missing says so in one line and is killed; a game in play is never searched nor handed out by the
queue; Lichess's formulas."""
from __future__ import annotations

import math
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support.postoffice import PASSWORDS, PostOffice

import rules
from pbm.config import load_config
from pbm.model.db import transaction
from pbm.model.play import reviews
from pbm.review import analysis
from pbm.review.engine import DEBIAN, Engine, EngineError, Settings
from pbm.review.search import Game, NotOver, Point, engine_moves, search, supported

NODES = 3000
XIANGQI = ["h3e3", "h8e8", "h1g3", "h10g8", "i1h1", "b8b1", "e3e7", "a10a9"]


def settings(argv: tuple[str, ...] = (DEBIAN,), timeout: float = 20.0) -> Settings:
    if argv == (DEBIAN,) and not os.access(DEBIAN, os.X_OK):
        pytest.fail("Debian's fairy-stockfish is not installed: run .ci/setup (apt-get install fairy-stockfish)")
    return Settings(argv, NODES, 1, 16, timeout)


def xiangqi(moves: list[str], finished: bool = True) -> Game:
    return Game("xiangqi", {}, rules.Game.new("xiangqi").fen(), moves, finished)


def script(tmp_path: Path, name: str, body: str) -> tuple[str, ...]:
    """A fake engine: a shell script that misbehaves as `body` says."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return (str(path),)


def test_a_game_is_searched_position_by_position_the_same_twice():
    first = search(settings(), xiangqi(XIANGQI))
    assert len(first) == len(XIANGQI) + 1
    assert all(p.best and p.line and p.line[0] == p.best and len(p.line) <= 8 for p in first)
    assert all((p.cp is None) != (p.mate is None) for p in first)
    second = search(settings(), xiangqi(XIANGQI))
    assert first == second          # fixed nodes, one thread: the same verdicts, so the same marks
    marks = [m.mark for m in analysis.judge(first, "xiangqi", XIANGQI)]
    assert marks == [m.mark for m in analysis.judge(second, "xiangqi", XIANGQI)]


def test_scores_are_turned_to_the_first_players_side():
    # Black starts a rook down: Red is far ahead whoever is to move
    fen = "1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    points = search(settings(), Game("xiangqi", {}, fen, ["h3e3", "h8e8"], True))
    assert all(p.cp is not None and p.cp > 300 for p in points), points


def test_a_checkmate_ends_the_search_with_a_mate_against_the_mated():
    # the rook to the d-file mates: the king cannot step to e10, where it would face Red's king
    game = Game("xiangqi", {}, "3k5/9/9/9/9/9/9/9/9/2R1K4 w - - 0 1", ["c1d1"], True)
    points = search(settings(), game)
    assert points[0].mate == 1 and points[0].best == "c1d1"
    assert points[-1].mate == 1 and points[-1].best is None and points[-1].line == ()
    assert analysis.win_percent(points[-1], "xiangqi") > 97


def test_a_janggi_pass_is_the_kings_move_to_its_own_point():
    start = rules.Game.new("janggi", {"cho": "left"}).fen()
    game = Game("janggi", {"cho": "left"}, start, ["pass", "e7e6", "pass"], True)
    assert engine_moves(game) == ["e2e2", "e7e6", "e2e2"]
    points = search(settings(), game)
    assert len(points) == 4 and all(p.best for p in points)
    assert not any(m == "e2e2" for p in points for m in p.line)   # the engine's passes read as `pass`


def test_a_game_in_play_is_never_searched(tmp_path):
    log = tmp_path / "started"
    argv = script(tmp_path, "engine", f"echo started >> {log}\nexec {DEBIAN}\n")
    with pytest.raises(NotOver):
        search(settings(argv), xiangqi(XIANGQI[:3], finished=False))
    assert not log.exists()         # refused before any engine process was started


def test_games_the_engine_cannot_be_given_are_not_reviewed():
    assert supported("xiangqi", {}) and supported("janggi", {"cho": "left", "points": True})
    assert not supported("padwarqi", {}) and not supported("giqi", {})


@pytest.mark.parametrize("name, body, said", [
    ("crashes", "read line; echo 'id name x'; echo uciok; read l; read l; read l; read l;"
                " echo readyok; read l; read l; kill -9 $$\n", "the engine died (killed by signal 9)"),
    ("hangs", "read line; echo uciok; while read l; do case $l in isready) echo readyok;; esac; done; "
              "sleep 60\n", "did not answer 'go' within 1 s: hung, killed"),
    ("garbage", "read line; echo uciok; while read l; do case $l in isready) echo readyok;; go*) "
                "echo 'Segmentation fault? core dumped'; sleep 5;; esac; done\n", "which is not UCI"),
    ("scoreless", "read line; echo uciok; while read l; do case $l in isready) echo readyok;; go*) "
                  "echo 'bestmove h3e3';; esac; done\n", "without a score"),
])
def test_an_engine_that_fails_says_how_in_one_line(tmp_path, name, body, said):
    with pytest.raises(EngineError) as failed:
        search(settings(script(tmp_path, name, body), timeout=1.0), xiangqi(XIANGQI[:2]))
    assert said in str(failed.value) and "\n" not in str(failed.value)


def test_a_missing_engine_says_how_to_install_one(tmp_path):
    with pytest.raises(EngineError, match="apt-get install fairy-stockfish"):
        Engine(settings((str(tmp_path / "nothing"),)), "xiangqi")
    (tmp_path / "pbm.toml").write_text(f'[review]\nengine = "{tmp_path / "nothing"} --uci"\n')
    assert Settings.of(load_config(tmp_path / "pbm.toml")).argv == (str(tmp_path / "nothing"), "--uci")


def test_lichess_formulas():
    even, up = Point(0, None, "a1a2", ()), Point(300, None, "a1a2", ())
    assert analysis.win_percent(even, "xiangqi") == 50
    assert analysis.win_percent(up, "xiangqi") == pytest.approx(50 + 50 * (2 / (1 + math.exp(-0.00368208 * 300)) - 1))
    assert analysis.win_percent(Point(5000, None, None, ()), "xiangqi") == \
        analysis.win_percent(Point(None, 3, None, ()), "xiangqi")       # both at the ceiling
    assert analysis.move_accuracy(60, 60) == pytest.approx(99.9999)     # Lichess's formula as published
    assert analysis.move_accuracy(60, 50) == pytest.approx(103.1668 * math.exp(-0.04354 * 10) - 3.1669)
    assert analysis.move_accuracy(100, 0) == 0.0
    assert [analysis.mark(x) for x in (9.9, 10, 19.9, 20, 30, 80)] == ["", "?!", "?!", "?", "??", "??"]


def test_marks_turning_points_and_accuracy_from_a_made_up_game():
    # Black throws away 24, then 38 points of winning chances; Red 16 in between
    cps = [0, 10, 300, 100, 1000, 990, 990]
    points = [Point(cp, None, "x", ()) for cp in cps]
    moves = analysis.judge(points, "xiangqi", ["a"] * 6)
    assert [m.mark for m in moves] == ["", "?", "?!", "??", "", ""]
    assert [m.ply for m in analysis.turning_points(moves)] == [2, 3, 4]
    summary = analysis.summary(moves, analysis.curve(points, "xiangqi"))
    assert summary.counts == ({"?!": 1, "?": 0, "??": 0}, {"?!": 0, "?": 1, "??": 1})
    assert summary.accuracy[0] > summary.accuracy[1]
    same = [Point(cp, None, "a", ()) for cp in cps]      # the engine's own move is never marked
    assert not any(m.mark for m in analysis.judge(same, "xiangqi", ["a"] * 6))


def test_the_queue_never_hands_out_a_game_in_play(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h8e8")
    # a row for the game in play, as no command makes one: the queue still does not hand it out
    now = datetime.now(timezone.utc)
    post.db.execute("INSERT INTO reviews (game_id, status, nodes, queued_at, next_attempt_at) "
                    "VALUES (1, 'queued', 1000, '2000-01-01', '2000-01-01')")
    with transaction(post.db):
        assert reviews.acquire(post.db, "me:1", now, 60) is None
    post.send(f"xiangqi resign {board} bob {PASSWORDS['bob']}", sender="bob@example.org")
    with transaction(post.db):
        job = reviews.acquire(post.db, "me:1", now, 60)
    assert job.finished and job.moves == ["h3e3", "h8e8"]
