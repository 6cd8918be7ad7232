"""The MTA pipe path: one `pbm deliver` process per message, as Postfix's pipe(8) runs it.

    python3 -m venv /tmp/pbm-venv && /tmp/pbm-venv/bin/pip install .
    /tmp/pbm-venv/bin/python bench/deliver.py [--messages 60] [--seed 1] [--show] [--json]

Measured as operators run it: the `pbm` command of a virtual environment made by `pip install .`
(not -e: an editable install adds its own import hook to every process, and the bench refuses
one), given the envelope Postfix's pipe passes (`--sender`, `--recipient`), the message on its
standard input.

Two players play a game by answering their game mails' reply addresses (a token reply: the move on
the first line, no password), each message piped into a fresh `pbm deliver` process; with --show,
every message is `xiangqi show 101` instead (one board mail: its picture is the same every time,
drawn by the first process and then taken from the data folder's cache).  Two ways, in
the same run, each with its own game and data folder:

- alone (`in_process`): no server runs; `pbm deliver` records the message, plays the move, queues
  the board mails and writes them into the outbox Maildir before it exits;
- with a running `pbm serve` on an LMTP socket (`handed_over`): `pbm deliver` passes the message to
  it (pbm.runners.handover) and exits with its answer, given once the server has committed the move.

The wall time of each process, from start to exit, is measured (with compiled modules, as pip
installs them; setup writes them where they are missing); in the same run, interleaved with them,
so is a bare `python -c pass`, the floor any Python program pays on this machine, and the figures
are printed with their ratio to it.  Setup (signups, the challenge) is not timed.  Then one more
move of each shows what the process imports: by origin, timed in a fresh interpreter
(`import_ms_by_origin`: a module that importlib loads, as a verb's handler is by pbm.Later, is
missing from `-X importtime`'s list, so its own time, not its imports', is left out), and for the
handover the modules beyond a bare interpreter's (`handed_over_imports`).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rules  # noqa: E402
from pbm.model.players import tokens  # noqa: E402

SECRET = "bench-secret"
SERVER = "pbm@bench.test"
PASSWORDS = {"alice": "Sw0rdfish-bench", "bob": "Hunter22-bench"}


def message(sender: str, subject: str, body: str, to: str, number: int) -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\n"
            f"Message-ID: <bench-{number}@example.org>\r\nDate: Wed, 25 Nov 2026 12:00:00 +0000\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n").encode()


# The `pbm` command pip installed next to this Python (what Postfix's pipe runs), else `python -m pbm`;
# and the same with its imports traced.
SCRIPT = Path(sys.executable).with_name("pbm")
COMMAND = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "pbm"]
TRACED = [sys.executable, "-X", "importtime", *([str(SCRIPT)] if SCRIPT.is_file() else ["-m", "pbm"])]

# As installed: with the compiled modules (pip writes them at install time; an environment that says
# PYTHONDONTWRITEBYTECODE would have every process compile pbm from source again).
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def deliver(config: Path, raw: bytes) -> float:
    start = time.perf_counter()
    result = subprocess.run([*COMMAND, "--config", str(config), "deliver", *envelope(raw)], input=raw,
                            capture_output=True, cwd=config.parent, env=ENVIRONMENT)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"pbm deliver exited {result.returncode}:\n{result.stderr.decode()}")
    return elapsed


def envelope(raw: bytes) -> list[str]:
    """`--sender` and `--recipient`, as Postfix's pipe passes them: the From and To of `message`."""
    sender, recipient = raw.decode().split("\r\n")[:2]
    return ["--sender", sender.removeprefix("From: "), "--recipient", recipient.removeprefix("To: ")]


def bare_imports() -> set[str]:
    """The modules a bare `python -c pass` imports."""
    traced = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True,
                            env=ENVIRONMENT)
    return set(_imported(traced.stderr))


def _imported(trace: bytes) -> list[str]:
    return [line.rsplit("|", 1)[1].strip() for line in trace.decode().splitlines()
            if line.startswith("import time:") and not line.rstrip().endswith("package")]


class Setting:
    """A data folder with its config, its game set up; with `serve`, a `pbm serve` listening on
    an LMTP socket there."""

    def __init__(self, folder: Path, serve: bool):
        self.folder = folder
        folder.mkdir()
        self.config = folder / "pbm.toml"
        text = (f'[server]\naddress = "{SERVER}"\nsecret = "{SECRET}"\nlog_level = "WARNING"\n'
                f'[storage]\ndata_dir = "var"\n')
        if serve:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            text += f'[smtp]\nlisten = "127.0.0.1:{port}"\n[lmtp]\nsocket = "var/lmtp.sock"\n'
        self.config.write_text(text)
        self.server = subprocess.Popen([sys.executable, "-m", "pbm", "--config", str(self.config),
                                        "serve"], cwd=folder, env=ENVIRONMENT) if serve else None
        if serve:
            self._wait_listening(folder / "var" / "lmtp.sock")

    def _wait_listening(self, path: Path) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket(socket.AF_UNIX) as s:
                try:
                    s.connect(str(path))
                    return
                except OSError:
                    time.sleep(0.05)
        raise SystemExit("pbm serve did not listen on its LMTP socket")

    def mails(self, expected: int) -> int:
        """The replies written into the outbox Maildir (the server's outbox: once they all are)."""
        folder = self.folder / "var" / "outbox" / "new"
        deadline = time.monotonic() + 60
        while len(list(folder.iterdir())) < expected and self.server and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(list(folder.iterdir()))

    def stop(self) -> None:
        if self.server:
            self.server.send_signal(signal.SIGTERM)
            self.server.wait(60)


def traced_imports(config: Path, raw: bytes) -> list[str]:
    """The modules one `pbm deliver` imports, in their order (`-X importtime`)."""
    traced = subprocess.run([*TRACED, "--config", str(config), "deliver", *envelope(raw)], input=raw,
                            capture_output=True, cwd=config.parent, env=ENVIRONMENT)
    if traced.returncode != 0:
        raise SystemExit(f"pbm deliver exited {traced.returncode}:\n{traced.stderr.decode()[-2000:]}")
    return _imported(traced.stderr)


def import_costs(names: list[str], folder: Path) -> dict[str, float]:
    """Milliseconds that importing what one `pbm deliver` imports costs, by where it comes from.

    The modules come from a real run (`-X importtime`, whose own bookkeeping inflates its figures),
    in the order it imported them; a fresh interpreter then imports them in that order, timing each
    group with the clock: the standard library, Jinja2 (with MarkupSafe), the rules core, pbm."""
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
                           check=True, cwd=folder, env=ENVIRONMENT)
    costs = json.loads(timed.stdout)
    return {"stdlib": round(1000 * costs.get("stdlib", 0), 1),
            "jinja2": round(1000 * (costs.get("jinja2", 0) + costs.get("markupsafe", 0)), 1),
            "rules": round(1000 * costs.get("rules", 0), 1), "pbm": round(1000 * costs.get("pbm", 0), 1)}


def installed() -> None:
    """Refuse an editable install, or a pbm found in this source folder rather than installed."""
    found = subprocess.run([sys.executable, "-c", "import sys, pbm; print(pbm.__file__); "
                            "print(any('__editable__' in type(f).__module__ for f in sys.meta_path))"],
                           capture_output=True, text=True, cwd=tempfile.gettempdir(), env=ENVIRONMENT)
    if found.returncode != 0:
        raise SystemExit(f"this Python has no pbm installed:\n{found.stderr}")
    where, editable = found.stdout.split()
    if editable == "True" or Path(where).resolve().is_relative_to(ROOT):
        raise SystemExit(f"pbm is installed editable ({where}): measure with `pip install .` in a fresh "
                         "virtual environment, as the docstring says")


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


def game_mails(count: int, seed: int, first_number: int) -> list[bytes]:
    """The players' token replies, one move each."""
    replies = []
    for ply, move in enumerate(moves(count, seed)):
        user = "alice" if ply % 2 == 0 else "bob"
        token = tokens.make(SECRET.encode(), "xiangqi", 101, user, 0)
        replies.append(message(f"{user}@example.org", "Re: Xiangqi Board 101", f"{move}\n",
                               tokens.reply_address(SERVER, token), first_number + ply))
    return replies


def show_mails(count: int, first_number: int) -> list[bytes]:
    """`xiangqi show 101` from alice, `count` times: one board mail each."""
    return [message("alice@example.org", "xiangqi show 101", "", SERVER, first_number + n)
            for n in range(count)]


def set_up(setting: Setting) -> None:
    """Sign the players up and start board 101 (not timed)."""
    number = 0
    for user, password in PASSWORDS.items():
        number += 1
        deliver(setting.config, message(f"{user}@example.org", f"signup {user} {password}", "", SERVER,
                                        number))
    deliver(setting.config, message("alice@example.org", "xiangqi challenge alice bob", "", SERVER, 3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", action="store_true", help="time `xiangqi show 101` instead of moves")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    installed()

    with tempfile.TemporaryDirectory(prefix="pbm-deliver-") as folder:
        settings = {"in_process": Setting(Path(folder) / "alone", serve=False),
                    "handed_over": Setting(Path(folder) / "served", serve=True)}
        try:
            for setting in settings.values():
                set_up(setting)
            replies = show_mails(args.messages + 1, 10) if args.show else \
                game_mails(args.messages + 1, args.seed, 10)
            bare: list[float] = []
            timed: dict[str, list[float]] = {name: [] for name in settings}
            for raw in replies[:-1]:        # interleaved: a busy machine slows all three alike
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", "pass"], check=True, env=ENVIRONMENT)
                bare.append(time.perf_counter() - start)
                for name, setting in settings.items():
                    timed[name].append(deliver(setting.config, raw))
            # two welcomes, the challenge to both, two board mails a move; then the last move: a reply
            mails = {name: setting.mails(4 + (1 if args.show else 2) * args.messages)
                     for name, setting in settings.items()}
            imports = {name: traced_imports(setting.config, replies[-1])
                       for name, setting in settings.items()}
            costs = {name: import_costs(names, Path(folder)) for name, names in imports.items()}
            floor = bare_imports()
        finally:
            for setting in settings.values():
                setting.stop()

    def ms(values: list[float], q: float) -> float:
        return round(1000 * sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)

    bare_median = statistics.median(bare)
    figures: dict[str, object] = {"messages": args.messages, "kind": "show" if args.show else "move",
                                  "python_c_pass_median_ms": round(1000 * bare_median, 1)}
    for name, values in timed.items():
        figures[name] = {"replies_written": mails[name],
                         "deliver_median_ms": round(1000 * statistics.median(values), 1),
                         "deliver_p90_ms": ms(values, 0.9),
                         "ratio_to_bare_python": round(statistics.median(values) / bare_median, 2),
                         "import_ms_by_origin": costs[name]}
    figures["handed_over_imports"] = [name for name in imports["handed_over"] if name not in floor]
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:<26}{value}")


if __name__ == "__main__":
    main()
