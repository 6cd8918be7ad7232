"""Reviews inside a running `pbm serve`: no engine process ever starts for a game in play, whatever
is asked of it (commands, records, pages, timers, `pbm review` from cron, the server's own worker),
the worker runs niced, in the idle scheduling class, and reviews the game once it is over; and two workers on "other machines"
share the reviews over HTTP with a key (`pbm review --server URL --key KEY`)."""
from __future__ import annotations

import json
import os
import re
import stat
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support.processes import PbmEnv, free_port, wait_until
from test_review_mail import PASSWORDS, XIANGQI, reviews_of

from pbm.review.engine import DEBIAN

NODES = 3000


def logging_engine(folder: Path) -> tuple[Path, Path]:
    """An engine command that notes each start and every command it is given, then runs Debian's."""
    if not os.access(DEBIAN, os.X_OK):
        pytest.fail("Debian's fairy-stockfish is not installed: run .ci/setup (apt-get install fairy-stockfish)")
    log, wrapper = folder / "engine.log", folder / "engine"
    wrapper.write_text(f"#!/bin/sh\necho start >> {log}\ntee -a {log} | {DEBIAN}\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return log, wrapper


def nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def send(server, user: str, line: str, count: int = 0) -> None:
    server.send(server.env.message(line, sender=f"{user}@example.org"))
    if count:
        server.env.wait_replies(count)


def read(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def test_no_engine_runs_on_a_game_in_play_on_any_path(pbm_env: PbmEnv, tmp_path):
    log, wrapper = logging_engine(tmp_path)
    port = free_port()
    pbm_env.configure(review={"engine": str(wrapper), "nodes": NODES, "timeout": 20.0, "workers": 1},
                      web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    server = pbm_env.start_server()
    for user in ("alice", "bob"):
        send(server, user, f"signup {user} {PASSWORDS[user]} review=on", 1)
    send(server, "alice", "xiangqi challenge alice bob", 2)
    [worker] = server.children("pbm-review")
    assert nice(worker) == min(19, nice(server.process.pid) + 10)
    assert os.sched_getscheduler(worker) == os.SCHED_IDLE     # the CPU only when nothing else wants it
    for ply, move in enumerate(XIANGQI):
        user = ("alice", "bob")[ply % 2]
        send(server, user, f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", 2)
        if ply == 3:                    # everything one may ask of a game in play, half-way through
            for line in (f"xiangqi review 101 alice {PASSWORDS['alice']}", "xiangqi review 101",
                         "xiangqi record 101", "xiangqi record 101 zh", "xiangqi show 101", "xiangqi games"):
                send(server, "alice", line, 1)
            for path in ("/p/xiangqi-101", "/p/xiangqi-101/board.png", "/p/xiangqi-101/record.pgn",
                         "/p/xiangqi-101?ply=2"):
                assert get(f"http://127.0.0.1:{port}{path}") == 200
            assert get(f"http://127.0.0.1:{port}/p/xiangqi-101/chart.png") == 404
            assert pbm_env.run("timers").returncode == 0
            assert pbm_env.run("review").stdout.startswith(b"reviews tried: 0")
            time.sleep(6)               # the server's worker looks at the queue every 5 s
    assert not log.exists(), log.read_text()
    assert pbm_env.query("SELECT count(*) FROM reviews") == [(0,)]
    send(server, "bob", f"xiangqi resign 101 bob {PASSWORDS['bob']}", 2)
    mails = reviews_of(pbm_env.wait_replies(2, timeout=120))
    assert set(mails) == {"alice", "bob"}
    said = log.read_text()
    assert said.count("start") == 1 and said.count("go nodes 3000") == len(XIANGQI) + 1
    # the game's page shows the review: headline, chart, marks, turning points; ?ply=N the evaluation
    page = read(f"http://127.0.0.1:{port}/p/xiangqi-101?ply=3").decode()
    assert "The engine's review of Xiangqi Board 101" in page and 'src="xiangqi-101/chart.png"' in page
    assert re.search(r"Accuracy: alice \(Red\) \d+%", page) and "The turning points:" in page
    assert re.search(r"Evaluation after move 3: [+-]\d\.\d\d \(from Red&#39;s side\)", page)
    cells = re.findall(r"<td>(?:<a [^>]*>|<b>)([^<]*)</", page)[2:]     # the players first
    marked = sum(1 for cell in cells if cell.endswith(("?", "?!")))   # ?!, ?, ?? in the move list
    counted = sum(int(n) for n in re.findall(r"(\d+) (?:blunder|mistake|inaccurac)", page))
    assert len(cells) == len(XIANGQI) and marked == counted
    assert read(f"http://127.0.0.1:{port}/p/xiangqi-101/chart.png").startswith(b"\x89PNG")
    assert server.stop() == 0


def test_two_workers_share_the_reviews_over_http(pbm_env: PbmEnv, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    pbm_env.configure(review={"nodes": NODES, "timeout": 20.0, "workers": 0, "keys": ["key-one", "key-two"]},
                      web={"listen": f"127.0.0.1:{port}", "base_url": url})
    server = pbm_env.start_server()
    for user in ("alice", "bob"):
        send(server, user, f"signup {user} {PASSWORDS[user]} review=on", 1)
    games = 4
    for board in range(101, 101 + games):
        send(server, "alice", "xiangqi challenge alice bob", 2)
        for ply, move in enumerate(XIANGQI[:4]):
            user = ("alice", "bob")[ply % 2]
            send(server, user, f"xiangqi move {board} {user} {PASSWORDS[user]} {move}", 2)
        send(server, "bob", f"xiangqi resign {board} bob {PASSWORDS['bob']}", 2)
    assert pbm_env.query("SELECT count(*) FROM reviews WHERE status = 'queued'") == [(games,)]
    wrong = urllib.request.Request(f"{url}/review/acquire", data=json.dumps({"key": "guess"}).encode(),
                                   method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(wrong, timeout=30)
    assert refused.value.code == 403
    workers = [pbm_env.popen("review", "--server", url, "--key", key) for key in ("key-one", "key-two")]
    outputs = [w.communicate(timeout=300) for w in workers]
    done = [int(out.decode().rsplit(":", 1)[1]) for out, _err in outputs]
    assert sum(done) == games, outputs
    assert pbm_env.query("SELECT count(*) FROM reviews WHERE status = 'done' AND attempts = 1") == [(games,)]
    mails = pbm_env.wait_replies(2 * games, timeout=60)
    assert sorted(m["To"] for m in mails if reviews_of([m])) == ["alice@example.org"] * games + \
        ["bob@example.org"] * games
    assert wait_until(lambda: pbm_env.query("SELECT count(*) FROM review_requests WHERE mailed_at IS NOT NULL")
                      == [(2 * games,)])
    assert server.stop() == 0
