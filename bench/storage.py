"""What a game costs the database: bytes a ply, before and after the retention period.

    python bench/storage.py [--plies 16] [--seed 1] [--json]

Two players sign up and play one Xiangqi game of --plies random legal moves, each message piped into
a real `pbm deliver` (which sends its replies into the outbox Maildir); then `pbm timers` runs once
within the retention period and once after it (`PBM_NOW`), and after each the database is copied
compacted (`VACUUM INTO`).  The figures are bytes a ply over an empty server's compacted copy, made
in the same run: `within_retention` (every message and reply whole: the baseline) and
`after_retention` (received messages cut to their header, sent replies to their outbox row), with
the game's record checked whole in the copy.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rules  # noqa: E402

PASSWORDS = {"alice": "Sw0rdfish-bench", "bob": "Hunter22-bench"}
START = datetime.now(timezone.utc)      # the outbox dates a reply sent by the wall clock
RETENTION_DAYS = 30


class Server:
    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir()
        self.config = folder / "pbm.toml"
        self.config.write_text(f'[server]\naddress = "pbm@bench.test"\nsecret = "bench-secret"\n'
                               f'retention_days = {RETENTION_DAYS}\n[storage]\ndata_dir = "var"\n')
        self.sent = 0

    def run(self, *args: str, stdin: bytes = b"", when: datetime = START) -> None:
        env = {**os.environ, "PBM_NOW": when.isoformat()}
        done = subprocess.run([sys.executable, "-m", "pbm", "--config", str(self.config), *args],
                              input=stdin, capture_output=True, env=env, timeout=120)
        if done.returncode:
            raise SystemExit(f"pbm {' '.join(args)}: exit {done.returncode}\n{done.stderr.decode()}")

    def mail(self, user: str, subject: str, when: datetime) -> None:
        self.sent += 1
        raw = (f"From: {user}@example.org\r\nTo: pbm@bench.test\r\nSubject: {subject}\r\n"
               f"Message-ID: <storage-{self.sent}@example.org>\r\n"
               f"Date: Mon, 02 Mar 2026 09:00:00 +0000\r\n\r\nbench\r\n").encode()
        self.run("deliver", "--sender", f"{user}@example.org", "--recipient", "pbm@bench.test",
                 stdin=raw, when=when)

    def compacted(self, name: str) -> int:
        copy = self.folder / name
        with sqlite3.connect(self.folder / "var" / "pbm.sqlite3") as db:
            db.execute("VACUUM INTO ?", [str(copy)])
        return copy.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="pbm-storage-") as tmp:
        empty = Server(Path(tmp) / "empty")
        empty.run("timers")                             # the schema, and nothing else
        empty_size = empty.compacted("empty.sqlite3")

        server = Server(Path(tmp) / "game")
        when = START
        for user in PASSWORDS:
            server.mail(user, f"signup {user} {PASSWORDS[user]}", when)
        server.mail("alice", "xiangqi challenge alice bob", when)
        game = rules.Game.new("xiangqi")
        played = []
        while len(played) < args.plies and game.result == "*":
            when += timedelta(minutes=30)
            user = "alice" if game.turn == "w" else "bob"
            move = rng.choice(game.legal_moves())
            server.mail(user, f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", when)
            game.play(move)
            played.append(move)
        server.run("timers", when=when + timedelta(hours=1))
        within = server.compacted("within.sqlite3")
        server.run("timers", when=when + timedelta(days=RETENTION_DAYS + 1))
        after = server.compacted("after.sqlite3")
        with sqlite3.connect(Path(tmp) / "game" / "after.sqlite3") as db:
            kept = [row[0] for row in db.execute(
                "SELECT m.move FROM moves m JOIN games g ON g.id = m.game_id WHERE g.board = 101 "
                "ORDER BY m.ply")]
    if kept != played:
        raise SystemExit(f"the game's record is not whole after the purge: {kept} != {played}")
    plies = len(played)
    figures = {
        "plies": plies, "empty_server_bytes": empty_size,
        "within_retention_bytes_per_ply": round((within - empty_size) / plies),
        "after_retention_bytes_per_ply": round((after - empty_size) / plies),
        "after_vs_within": round((after - empty_size) / (within - empty_size), 3),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:>32}: {value}")


if __name__ == "__main__":
    main()
