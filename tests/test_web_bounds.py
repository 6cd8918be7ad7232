"""The pages cannot starve the mail: `pbm serve` with its pages, SMTP and LMTP on
one loop, under the 1,024 descriptors systemd gives a service by default, keeps taking mail and
running its timers while 1,100 slow clients hold connections to the page port (from 40 loopback
addresses: the bound in total and per address both bite); a request head not whole within
`[web] head_timeout` is closed; a resource error is logged once a minute, not per accept; and no
path or `?ply=` value, however hostile, gets a 500 or an answer without the security headers
(hypothesis, against a real `pbm web`).  Real processes and sockets throughout."""
from __future__ import annotations

import http.client
import smtplib
import socket
import time
import urllib.parse
from contextlib import ExitStack

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.postoffice import PASSWORDS
from support.processes import PBM, PbmEnv, free_port, listening, wait_until, wire

SLOW = 1100                 # the review's slow clients
ADDRESSES = 40              # loopback addresses they come from (127.0.1.1 ...)
LIMITED = ["prlimit", "--nofile=1024:1024", *PBM]       # systemd's default for a service
SECURITY = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control")
PROMPT = 5.0                # seconds: "within a second" on an idle machine, with room for a loaded one


def game_on(env: PbmEnv) -> None:
    for user in ("alice", "bob"):
        env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    env.mail("xiangqi challenge alice bob")
    env.replies()


def serving(env: PbmEnv, **web: object) -> tuple[int, object]:
    port = free_port()
    env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}", **web},
                  server={"timer_interval": 0.5})
    server = env.start_server(LIMITED)
    assert wait_until(lambda: listening(port), 30), server.log()
    return port, server



def slow_clients(stack: ExitStack, port: int, count: int) -> list[socket.socket]:
    """`count` connections that start a request head and never finish it."""
    opened = []
    for i in range(count):
        sock = stack.enter_context(socket.socket())
        sock.settimeout(5)
        sock.bind((f"127.0.1.{1 + i % ADDRESSES}", 0))
        sock.connect(("127.0.0.1", port))
        try:
            sock.sendall(b"GET /p/xiangqi-101 HTTP/1.1\r\nHost: x\r\n")
        except OSError:
            pass                                # refused at once: the bounds at work
        opened.append(sock)
    return opened


def closed(sock: socket.socket) -> bool:
    """Whether the server closed the connection (or refused it, with a reset)."""
    try:
        return sock.recv(100) == b""
    except ConnectionResetError:
        return True


def timed_smtp(port: int, env: PbmEnv) -> float:
    started = time.monotonic()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("alice@example.org", [env.address], wire(env.message("help")))
    return time.monotonic() - started


def timed_lmtp(path, env: PbmEnv) -> float:
    started = time.monotonic()
    with smtplib.LMTP(str(path), timeout=30) as lmtp:
        lmtp.sendmail("alice@example.org", [env.address], wire(env.message("help")))
    return time.monotonic() - started


def heartbeat(env: PbmEnv) -> str:
    return env.query("SELECT at FROM heartbeats WHERE name = 'timers'")[0][0]


def test_1100_slow_page_clients_do_not_stop_the_mail(pbm_env):
    socket_path = pbm_env.data_dir / "lmtp.sock"
    pbm_env.configure(lmtp={"socket": str(socket_path)})
    port, server = serving(pbm_env)
    assert timed_smtp(server.port, pbm_env) < PROMPT
    with ExitStack() as stack:
        slow_clients(stack, port, SLOW)
        time.sleep(1)
        beat = heartbeat(pbm_env)
        smtp, lmtp = timed_smtp(server.port, pbm_env), timed_lmtp(socket_path, pbm_env)
        assert smtp < PROMPT and lmtp < PROMPT, (smtp, lmtp)
        assert wait_until(lambda: heartbeat(pbm_env) > beat, PROMPT)       # the timers run
        assert len(pbm_env.wait_replies(3)) == 3      # each help answered, the first one too
    assert server.stop() == 0
    log = server.log()
    assert "Too many open files" not in log and "out of system resource" not in log


def test_a_slow_request_head_is_closed_and_the_bounds_refuse_at_once(pbm_env):
    port, server = serving(pbm_env, head_timeout=1.0, connections=30, connections_per_address=4)
    with ExitStack() as stack:
        [first, *_rest] = socks = [stack.enter_context(socket.create_connection(("127.0.0.1", port)))
                                   for _ in range(6)]
        for sock in socks:
            sock.settimeout(10)
            sock.sendall(b"GET /static/page.css HTTP/1.1\r\n")
        started = time.monotonic()
        assert closed(socks[5]) and closed(socks[4])    # the 5th and 6th from one address: at once
        assert time.monotonic() - started < 0.5
        assert all(closed(sock) for sock in socks[:4])  # no whole head: closed after head_timeout
        assert 0.5 < time.monotonic() - started < PROMPT
        answer = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answer.request("GET", "/static/page.css")
        assert answer.getresponse().status == 200   # a whole request in time is served
    assert server.stop() == 0


def test_running_out_of_descriptors_is_logged_once_a_minute(pbm_env):
    """Bounds set past the descriptors there are (an operator's mistake): accept fails with
    EMFILE, told in one line, not a traceback per accept."""
    port, server = serving(pbm_env, connections=5000, connections_per_address=5000)
    with ExitStack() as stack:
        slow_clients(stack, port, SLOW)
        time.sleep(3)
    assert server.stop() == 0
    log = server.log()
    assert log.count("out of system resource") == 1, log[-3000:]
    assert "Traceback" not in log


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """`pbm web` alone on a game taken by `pbm deliver`."""
    env = PbmEnv(tmp_path_factory.mktemp("pages"))
    game_on(env)
    port = free_port()
    env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    web = env.popen("web")
    try:
        assert wait_until(lambda: listening(port), 30)
        yield port
    finally:
        web.terminate()
        web.wait(30)


def get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer


@pytest.mark.parametrize("path", ["/p/xiangqi-101?ply=%C2%B2", "/p/xiangqi-101?ply=%E2%91%A0",
                                  "/p/xiangqi-101?ply=" + "9" * 5000, "/p/xiangqi-%C2%B2",
                                  "/p/xiangqi-" + "9" * 30, "/p/xiangqi-" + "9" * 5000,
                                  "/p/xiangqi-%D9%A1%D9%A0%D9%A1", "/p/xiangqi-101/board.png?ply=%C2%B2",
                                  "/p/xiangqi-101/record.%C2%B2", "/g/%C2%B2/board.png"])
def test_hostile_numbers_get_a_plain_404(pages, path):
    answer = get(pages, path)
    assert answer.status == 404
    assert all(answer.getheader(name) for name in SECURITY)


SEGMENT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["p", "g", "t/xiangqi", "t", "static", "x"]), name=SEGMENT,
       tail=st.sampled_from(["", "/board.png", "/record.pgn", "/record.txt", "/"]), ply=SEGMENT)
def test_no_path_gets_a_500_or_loses_the_headers(pages, kind, name, tail, ply):
    path = f"/{kind}/{urllib.parse.quote(name, safe='')}{tail}?ply={urllib.parse.quote(ply, safe='')}"
    answer = get(pages, path)
    assert answer.status in (200, 400, 404), (path, answer.status)
    assert all(answer.getheader(name) for name in SECURITY), path

