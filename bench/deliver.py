"""The MTA pipe path: one `pbm deliver` process per message, as Postfix's pipe(8) runs it.

    python bench/deliver.py [--messages 60] [--seed 1] [--json]

Two players play a game by answering their game mails' reply addresses (a token reply: the move on
the first line, no password), each message piped into a fresh `pbm deliver` process that records
it, plays the move, queues the board mails and writes them into the outbox Maildir before it exits.
The wall time of each process, from start to exit, is measured (with compiled modules, as pip
installs them; setup writes them where they are missing); in the same run, so is a bare
`python -c pass`, the floor any Python program pays on this machine, and the figures are printed
with their ratio.  Setup (signups, the challenge) is not timed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rules  # noqa: E402
from pbm import tokens  # noqa: E402

SECRET = "bench-secret"
SERVER = "pbm@bench.test"
PASSWORDS = {"alice": "Sw0rdfish-bench", "bob": "Hunter22-bench"}


def message(sender: str, subject: str, body: str, to: str, number: int) -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\n"
            f"Message-ID: <bench-{number}@example.org>\r\nDate: Wed, 25 Nov 2026 12:00:00 +0000\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n").encode()


# As installed: with the compiled modules (pip writes them at install time; an environment that says
# PYTHONDONTWRITEBYTECODE would have every process compile pbm from source again).
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def deliver(config: Path, raw: bytes) -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pbm", "--config", str(config), "deliver"],
                            input=raw, capture_output=True, cwd=config.parent, env=ENVIRONMENT)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"pbm deliver exited {result.returncode}:\n{result.stderr.decode()}")
    return elapsed


def moves(count: int, seed: int) -> list[str]:
    """A random game that does not end within `count` moves."""
    rng = random.Random(seed)
    while True:
        game = rules.Game.new("xiangqi")
        for _ in range(count):
            choices = game.legal_moves()
            if not choices:
                break
            game.play(rng.choice(choices))
        if game.result == "*" and game.ply == count:
            return list(game.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pbm-deliver-") as folder:
        config = Path(folder) / "pbm.toml"
        config.write_text(f'[server]\naddress = "{SERVER}"\nsecret = "{SECRET}"\nlog_level = "WARNING"\n'
                          f'[storage]\ndata_dir = "var"\n')
        number = 0
        for user, password in PASSWORDS.items():
            number += 1
            deliver(config, message(f"{user}@example.org", f"signup {user} {password}", "", SERVER, number))
        number += 1
        deliver(config, message("alice@example.org", "xiangqi challenge alice bob", "", SERVER, number))

        bare = []
        for _ in range(args.messages):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True, env=ENVIRONMENT)
            bare.append(time.perf_counter() - start)
        timed = []
        for ply, move in enumerate(moves(args.messages, args.seed)):
            user = "alice" if ply % 2 == 0 else "bob"
            token = tokens.make(SECRET.encode(), "xiangqi", 101, user, 0)
            number += 1
            timed.append(deliver(config, message(f"{user}@example.org", "Re: Xiangqi Board 101",
                                                 f"{move}\n", tokens.reply_address(SERVER, token), number)))
        mails = len(list((Path(folder) / "var" / "outbox" / "new").iterdir()))

    def ms(values: list[float], q: float) -> float:
        return round(1000 * sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)

    figures = {"messages": args.messages, "replies_written": mails,
               "deliver_median_ms": round(1000 * statistics.median(timed), 1), "deliver_p90_ms": ms(timed, 0.9),
               "python_c_pass_median_ms": round(1000 * statistics.median(bare), 1),
               "ratio_to_bare_python": round(statistics.median(timed) / statistics.median(bare), 2)}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:<26}{value}")


if __name__ == "__main__":
    main()
