"""The limits a `pbm serve` under load is measured against, each measured alone on this machine, in
the same run as the load (bench/mail_load.py prints them, and the tightest as
`limit_commands_per_second`):

- the whole necessary work of a command, in CPU milliseconds, over the cores the machine has: what
  the server could do if every core did only this, and did it without waste.  It is the sum of
    - the replies' work: the two board mails of a move, whole (composed, text and HTML parts
      rendered, both pictures drawn, as the MIME bytes that leave), again and again in one process;
    - the intake's own work: the run's own command mails prepared (parsed, decoded, the password
      checked) and accepted (the command run, its record and replies written, committed) one at a
      time by `pbm.intake` in one process, on a copy of the database as it was before them, less
      the replies' composing and rendering it includes (counted above, and shown apart as
      `replies_composing_ms`: the rest of `replies_ms` is drawing the pictures);
    - a bare SMTP receive: the CPU time of an aiosmtpd sink (its own process, as `pbm serve`'s
      SMTP process is) taking the run's command mails over real sockets;
  the outbox's own sending (Maildir files, fsync) is not counted, so the limit is, if anything, high;
- durable commits: SQLite transactions as pbm opens the database (WAL, synchronous=FULL), each
  writing as many bytes as a command of the run did (the message and its replies), one after the
  other: a bound in time, not CPU.

A server that does all of it for every command cannot go faster than the tighter of the two; how
close it comes says what its own work, beyond the necessary, costs.
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
SINK_ROUNDS = 3         # the run's mails are sent to the sink this many times: enough CPU ticks


def measure(config_path: Path, db_path: Path, board: int, folder: Path, recipient: str,
            clients: list[list[tuple[str, bytes]]], snapshot: Path) -> dict[str, float]:
    """The limits of a run, with its server stopped: the last move of `board` rendered, the run's
    command mails `clients` sent (sender, bytes) taken again by the intake on `snapshot` (a copy of
    the database before them) and by a sink, and commits of the bytes an average command wrote."""
    with sqlite3.connect(db_path) as db:
        written, commands = db.execute(
            "SELECT (SELECT sum(length(raw)) FROM outbox_bodies) + sum(length(raw)), count(*) "
            "FROM inbound").fetchone()
    replies, composing = replies_seconds(config_path, board)
    intake = intake_seconds(config_path, snapshot, [mail for mails in clients for mail in mails],
                            recipient) - composing
    smtp = sink_seconds(clients, recipient)
    cores = os.cpu_count() or 1
    return {
        "replies_ms": replies * 1000, "replies_composing_ms": composing * 1000,
        "intake_ms": intake * 1000, "smtp_receive_ms": smtp * 1000,
        "cores": cores,
        "whole_work_commands_per_second": cores / (replies + intake + smtp),
        "durable_commits_per_second": commit_rate(folder / "commits", written // commands),
    }


def tightest(limits: dict[str, float]) -> float:
    """The limit of a run: the tighter of the whole work over the cores and the durable commits."""
    return min(limits["whole_work_commands_per_second"], limits["durable_commits_per_second"])


def replies_seconds(config_path: Path, number: int) -> tuple[float, float]:
    """CPU seconds on one core of a move's replies: the two board mails of board `number`'s last
    move, composed, rendered and their pictures drawn, as the bytes that leave, for the player who
    moved and for the opponent (the server's database and templates); and of these, the seconds
    composing and rendering took (which the intake does, in its transaction).  The move is taken
    back and played again each round, and the pictures' caches emptied, so that nothing kept for a
    position is reused, as it would not be on a new move."""
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
    composing = [0.0]

    def move() -> None:
        started = time.process_time()
        game.undo()
        game.play(board.moves[-1].move)
        board.rendered.clear()          # what a command renders once for all its mails
        ctx = Context(db, config, incoming, now)
        notify.board_mails(ctx, board, game, actor=mover, headline=headline,
                           recipients=list(board.players))
        assert len(ctx.out) == 2
        rendered = [render.render(config, out, now)[1] for out in ctx.out]
        composing[0] += time.process_time() - started
        cached_draw.cache_clear()
        deferred._done.clear()          # the views' base64, kept for the readers of one event
        for raw in rendered:
            deferred.fill(raw)

    try:
        move()                          # warm-up
        composing[0] = 0.0
        count, _, cpu = _repeat(move)
        return cpu / count, composing[0] / count
    finally:
        db.close()


def intake_seconds(config_path: Path, snapshot: Path, mails: list[tuple[str, bytes]],
                   recipient: str) -> float:
    """CPU seconds per command of `pbm.intake` taking `mails` (sender, bytes) one after the other,
    each prepared and accepted on its own (parse, decode, password check; the command, its replies
    composed and rendered, the writes, the commit), on `snapshot`: a copy of the run's database
    as it was before them (pbm.toml and the secret beside it)."""
    from pbm import intake
    from pbm.config import load_config
    from pbm.model.store import open_db

    config = load_config(snapshot.parent.parent / "pbm.toml")
    db = open_db(config)
    try:
        started = time.process_time()
        for sender, raw in mails:
            delivery = intake.Delivery(raw, sender, (recipient,))
            result = intake.accept_many(db, config, [intake.prepare(db, config, delivery)])[0]
            if isinstance(result, Exception) or result.status != "processed":
                raise SystemExit(f"the intake did not process a command again: {result}")
        return (time.process_time() - started) / len(mails)
    finally:
        db.close()


def snapshot(config_path: Path, db_path: Path, folder: Path) -> Path:
    """A copy of the server's database now (SQLite's backup: consistent while it runs), with its
    configuration and secret beside it, for `intake_seconds` to take the coming commands again."""
    data = folder / "var"
    data.mkdir(parents=True)
    (folder / "pbm.toml").write_text(config_path.read_text())
    (data / "secret").write_bytes((db_path.parent / "secret").read_bytes())
    copy = data / db_path.name
    with sqlite3.connect(db_path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    return copy


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


def sink_seconds(clients: list[list[tuple[str, bytes]]], recipient: str) -> float:
    """CPU seconds per command of a bare aiosmtpd sink (its own process, as `pbm serve`'s SMTP
    process is) taking the mails `clients` hold, each list sent by its own thread over its own
    connection, SINK_ROUNDS times: its process's user and system time (Linux /proc) while it did."""
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

        used = -_cpu_seconds(sink.pid)
        for _ in range(SINK_ROUNDS):
            threads = [threading.Thread(target=send, args=(mails,)) for mails in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        used += _cpu_seconds(sink.pid)
        return used / (SINK_ROUNDS * sum(map(len, clients)))
    finally:
        sink.terminate()
        sink.wait(WAIT)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    count, elapsed, _ = _repeat(work)
    return count / elapsed


def _repeat(work) -> tuple[int, float, float]:
    """Run `work()` again and again for SECONDS: how many times, in how many seconds, of how much
    CPU time of this process."""
    count, started, cpu = 0, time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - started) < SECONDS:
        work()
        count += 1
    return count, elapsed, time.process_time() - cpu
