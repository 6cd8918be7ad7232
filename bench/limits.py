"""The limits a `pbm serve` under load is measured against, each measured alone on this machine, in
the same run as the load (bench/mail_load.py prints them, and the tightest as
`limit_commands_per_second`):

- the replies' work: the two board mails of a move, whole (text and HTML parts and both pictures
  drawn, as the MIME bytes that leave), again and again in one process, times the cores the
  machine has: the most the writer and the outbox together could do if every core did only this;
- durable commits: SQLite transactions as pbm opens the database (WAL, synchronous=FULL), each
  writing as many bytes as a command of the run did (the message and its replies);
- SMTP: a bare aiosmtpd sink, taking the run's command mails from as many clients as the run had.

A server that does all three for every command cannot go faster than the slowest of them; how close
it comes says what its own work costs.
"""
from __future__ import annotations

import os
import smtplib
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

SECONDS = 2.0           # each rate is measured over this long (after one warm-up round)
WAIT = 60.0             # seconds for the sink to listen: a bound, not a measurement


def measure(config_path: Path, db_path: Path, board: int, folder: Path, recipient: str,
            clients: list[list[tuple[str, bytes]]]) -> dict[str, float]:
    """The limits of a run, with its server stopped: the last move of `board` rendered, commits of
    the bytes an average command wrote, the mails `clients` sent (sender, bytes) into a sink."""
    with sqlite3.connect(db_path) as db:
        written, commands = db.execute(
            "SELECT (SELECT sum(length(raw)) FROM outbox_bodies) + sum(length(raw)), count(*) "
            "FROM inbound").fetchone()
    return {
        "replies_moves_per_second": render_rate(config_path, board) * (os.cpu_count() or 1),
        "durable_commits_per_second": commit_rate(folder / "commits", written // commands),
        "smtp_sink_commands_per_second": sink_rate(clients, recipient),
    }


def render_rate(config_path: Path, number: int) -> float:
    """Moves per second on one core: the two board mails of board `number`'s last move, composed,
    rendered and their pictures drawn, as the bytes that leave, for the player who moved and for the
    opponent (the server's database and templates).  The move is taken back and played again each
    round, and the pictures' caches emptied, so that nothing kept for a position is reused, as it
    would not be on a new move."""
    from pbm.commands.mails import notify
    from pbm.commands.base import Context
    from pbm.config import load_config
    from pbm.mail.messages import Incoming
    from pbm.model.play import games
    from pbm.model.players import accounts
    from pbm.model.store import open_db
    from pbm.outbox import render
    from pbm.pictures import deferred
    from pbm.pictures.drawing import cached_draw

    config = load_config(config_path)
    db = open_db(config)
    board = games.load(db, "xiangqi", number)
    game = board.replay()
    mover = board.opponent(board.to_move)
    incoming = Incoming(message_id="<render@bench.test>", sender=accounts.mail_address(db, mover),
                        sender_name="", subject="", body="")
    headline = [f"{mover} played {notify.played(board.moves[-1].move, board.moves[-1].notation)}."]
    now = datetime.now(timezone.utc)

    def move() -> None:
        game.undo()
        game.play(board.moves[-1].move)
        board.rendered.clear()          # what a command renders once for all its mails
        ctx = Context(db, config, incoming, now)
        notify.board_mails(ctx, board, game, actor=mover, headline=headline,
                           recipients=list(board.players))
        assert len(ctx.out) == 2
        cached_draw.cache_clear()
        deferred._done.clear()          # the views' base64, kept for the readers of one event
        for out in ctx.out:
            deferred.fill(render.render(config, out, now)[1])

    try:
        return _rate(move)
    finally:
        db.close()


def commit_rate(folder: Path, size: int) -> float:
    """Durable commits per second, each inserting `size` bytes, in a database pbm opened itself."""
    from pbm.config import load_config
    from pbm.model.db import transaction
    from pbm.model.store import open_db

    folder.mkdir()
    (folder / "pbm.toml").write_text('[storage]\ndata_dir = "var"\n')
    db = open_db(load_config(folder / "pbm.toml"))
    db.execute("CREATE TABLE written (data BLOB)")
    data = os.urandom(size)

    def commit() -> None:
        with transaction(db):
            db.execute("INSERT INTO written (data) VALUES (?)", [data])

    try:
        return _rate(commit)
    finally:
        db.close()


def sink_rate(clients: list[list[tuple[str, bytes]]], recipient: str) -> float:
    """Commands per second into a bare aiosmtpd sink (its own process, as `pbm serve` is), the
    mails `clients` hold, each list sent by its own thread over its own connection."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sink = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}",
                             "-c", "aiosmtpd.handlers.Sink"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port)

        def send(mails: list[tuple[str, bytes]]) -> None:
            with smtplib.SMTP("127.0.0.1", port, timeout=WAIT) as smtp:
                for sender, raw in mails:
                    smtp.sendmail(sender, [recipient], raw)

        threads = [threading.Thread(target=send, args=(mails,)) for mails in clients]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sum(map(len, clients)) / (time.perf_counter() - started)
    finally:
        sink.terminate()
        sink.wait(WAIT)


def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the aiosmtpd sink did not listen")


def _rate(work) -> float:
    """How many times a second `work()` runs, over SECONDS, after one warm-up run."""
    work()
    count, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < SECONDS:
        work()
        count += 1
    return count / elapsed
