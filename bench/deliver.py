"""The MTA pipe path: one `pbm deliver` process per message, as Postfix's pipe(8) runs it.

    python bench/deliver.py [--messages 60] [--seed 1] [--json]

Two players play a game by answering their game mails' reply addresses (a token reply: the move on
the first line, no password), each message piped into a fresh `pbm deliver` process that records
it, plays the move, queues the board mails and writes them into the outbox Maildir before it exits.
The wall time of each process, from start to exit, is measured (with compiled modules, as pip
installs them; setup writes them where they are missing); in the same run, so is a bare
`python -c pass`, the floor any Python program pays on this machine, and the figures are printed
with their ratio.  Setup (signups, the challenge) is not timed.  Then one more move shows where the
time goes: what importing the modules a `pbm deliver` imports costs, by origin (`import_costs`).
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
from pbm.model import tokens  # noqa: E402

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


def import_costs(config: Path, raw: bytes) -> dict[str, float]:
    """Milliseconds that importing what one `pbm deliver` imports costs, by where it comes from.

    The modules come from a real run (`-X importtime`, whose own bookkeeping inflates its figures),
    in the order it imported them; a fresh interpreter then imports them in that order, timing each
    group with the clock: the standard library, Jinja2 (with MarkupSafe), the rules core, pbm."""
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "pbm", "--config", str(config),
                             "deliver"], input=raw, capture_output=True, cwd=config.parent, env=ENVIRONMENT)
    names = [line.rsplit("|", 1)[1].strip() for line in traced.stderr.decode().splitlines()
             if line.startswith("import time:") and not line.rstrip().endswith("package")]
    timer = ("import importlib, json, sys, time\n"
             "costs = {}\n"
             "for name in json.loads(sys.argv[1]):\n"
             "    if name in sys.modules or name.startswith('__editable__'): continue\n"
             "    group = name.split('.')[0]\n"
             "    group = group if group in ('jinja2', 'rules', 'pbm') else 'markupsafe' "
             "if group == 'markupsafe' else 'stdlib'\n"
             "    start = time.perf_counter()\n"
             "    try: importlib.import_module(name)\n"
             "    except Exception: continue\n"
             "    costs[group] = costs.get(group, 0) + time.perf_counter() - start\n"
             "print(json.dumps(costs))\n")
    timed = subprocess.run([sys.executable, "-c", timer, json.dumps(names)], capture_output=True,
                           check=True, cwd=config.parent, env=ENVIRONMENT)
    costs = json.loads(timed.stdout)
    return {"stdlib": round(1000 * costs.get("stdlib", 0), 1),
            "jinja2": round(1000 * (costs.get("jinja2", 0) + costs.get("markupsafe", 0)), 1),
            "rules": round(1000 * costs.get("rules", 0), 1), "pbm": round(1000 * costs.get("pbm", 0), 1)}


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
        replies = []
        for ply, move in enumerate(moves(args.messages + 1, args.seed)):
            user = "alice" if ply % 2 == 0 else "bob"
            token = tokens.make(SECRET.encode(), "xiangqi", 101, user, 0)
            number += 1
            replies.append(message(f"{user}@example.org", "Re: Xiangqi Board 101", f"{move}\n",
                                   tokens.reply_address(SERVER, token), number))
        for raw in replies[:-1]:
            timed.append(deliver(config, raw))
        mails = len(list((Path(folder) / "var" / "outbox" / "new").iterdir()))
        imports = import_costs(config, replies[-1])     # the last move: a reply like the others

    def ms(values: list[float], q: float) -> float:
        return round(1000 * sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)

    figures = {"messages": args.messages, "replies_written": mails,
               "deliver_median_ms": round(1000 * statistics.median(timed), 1), "deliver_p90_ms": ms(timed, 0.9),
               "python_c_pass_median_ms": round(1000 * statistics.median(bare), 1),
               "ratio_to_bare_python": round(statistics.median(timed) / statistics.median(bare), 2),
               "import_ms_by_origin": imports}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:<26}{value}")


if __name__ == "__main__":
    main()
