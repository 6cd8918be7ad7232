"""Mail load benchmark: simulated players play random legal Xiangqi games, concurrently, through a
real `pbm serve` over SMTP on loopback.

    python bench/mail_load.py [--games 8] [--plies 40] [--prefill 100000] [--smtp-processes 1]
                              [--observers 0] [--long-games] [--reviews] [--seed 1] [--json]

Each game is one client thread with its own SMTP connection; its two players take turns mailing
`xiangqi move BOARD USER PASSWORD MOVE` with a random legal move (rules.Game.legal_moves, drawn
before the clock starts).
Latency is measured from the end of the SMTP DATA to the server's 250, which `pbm serve` only
sends once the command, its game update and its replies are committed (synchronous=FULL);
`accepted_commands_per_second` counts commands answered 250, `delivered_commands_per_second`
commands whose every reply has left the outbox (its clock stops when the outbox has drained).  At
the end every command's replies are read back from the outbox Maildir and checked: exactly one to
each player, none an error; `outbox_drained_ms_after` says how long after the last answer every
reply had been sent (an outbox that keeps up needs little more than its polling interval).  With
--prefill N the database first holds N finished games (copies of a real one, with every row that
refers to it), to compare the per-command cost on a big database.
The server runs with `[smtp] processes = 1` unless --smtp-processes says otherwise; its CPU time
includes its child processes (SMTP, outbox), also shown by part (pbm-intake is the one thread that
writes the database, and so bounds the throughput: a command costs it that much of one core), and
the load generator's own CPU time is shown too (it shares the machine with the server).
With --long-games every game goes on to move 320 (no move that would end it, where another will
do), and the server's CPU per command is measured over moves 3-32 and over moves 289-320 apart:
their ratio says how much a long game's record costs each move.
With --observers N, N more players subscribe to every game first, so that each move mails 2 + N.
With --reviews the server's review worker (`[review] workers`, niced) searches engine reviews of the
prefilled games all through the run, to compare the figures with an idle worker.
After the run, with the server stopped, the limits it is measured against are measured on the same
machine (bench/limits.py): the whole necessary work of a command -- the replies' (a move's two board
mails, pictures drawn, MIME bytes), the intake's own (the run's command mails taken again by
pbm.intake, one at a time, on a copy of the database made before them), a bare aiosmtpd receive --
in CPU milliseconds, over the cores; and durable commits of a command's size.
`limit_commands_per_second` is the tighter, and `ratio_to_limit` how close the delivered figure came
to it; `ratio_to_limit_on_cores_left` the same against the limit on the cores the machine's other
processes left the server during the run (`other_processes_cores` they used, from /proc/stat).
Loopback only; every loop is bounded by --games and --plies.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import signal
import smtplib
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import limits  # noqa: E402
from prefill import prefill  # noqa: E402

import rules  # noqa: E402

DOMAIN = "bench.test"
SERVER = f"pbm@{DOMAIN}"
WAIT = 120.0        # seconds to wait for the server or its outbox: a bound, not a measurement


def queue_reviews(db_path: Path) -> None:
    """Queue an engine review of every finished game, for nobody (no mail): the server's review
    worker searches them, one after the other, at 1 M nodes a position, all through the run."""
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO reviews (game_id, status, nodes, queued_at, next_attempt_at) SELECT id, "
                   "'queued', 1000000, '2000-01-01', '2000-01-01' FROM games WHERE status = 'finished'")


def address(user: str) -> str:
    return f"{user}@{DOMAIN}"


def password(user: str) -> str:
    return f"Pw-{user}-bench"


class Server:
    """`pbm serve` in a fresh data directory."""

    def __init__(self, root: Path, smtp_processes: int):
        self.root = root
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.config = root / "pbm.toml"
        self.config.write_text(
            f'[server]\naddress = "{SERVER}"\nlog_level = "WARNING"\n'
            f'[storage]\ndata_dir = "var"\n'
            f'[smtp]\nlisten = "127.0.0.1:{self.port}"\nprocesses = {smtp_processes}\n')
        self.maildir = root / "var" / "outbox"
        self.db_path = root / "var" / "pbm.sqlite3"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path)
        env.pop("PBM_FAULT", None)
        with open(self.root / "serve.log", "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "pbm", "--config", str(self.config),
                                             "serve"], stdout=log, stderr=log, env=env, cwd=self.root)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        raise SystemExit(f"pbm serve did not start; see {self.root / 'serve.log'}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(WAIT)

    def cpu_seconds(self) -> collections.Counter:
        """User + system CPU time so far of the server and its child processes (Linux /proc), by
        the name each thread shows in ps (pbm names its parts: pbm-intake, the one thread that
        writes the database; pbm-smtp-N; pbm-outbox; pbm-drawer, its processes that draw the
        pictures; the main process's event loop is python)."""
        ticks: collections.Counter = collections.Counter()
        for pid in _process_tree(self.process.pid):
            for task in Path(f"/proc/{pid}/task").glob("*"):
                ticks[_read(task / "comm").strip()] += _cpu_ticks(task / "stat")
        return collections.Counter({name: n / os.sysconf("SC_CLK_TCK") for name, n in ticks.items()})

    def smtp(self) -> smtplib.SMTP:
        smtp = smtplib.SMTP("127.0.0.1", self.port, timeout=WAIT)
        smtp.ehlo("bench.test")
        return smtp

    def wait_outbox_drained(self) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            with sqlite3.connect(self.db_path) as db:
                if not db.execute("SELECT count(*) FROM outbox WHERE status != 'sent'").fetchone()[0]:
                    return
            time.sleep(0.01)
        raise SystemExit("the outbox did not drain")


@dataclass(frozen=True)
class Command:
    """One command mail, serialised when it is made."""
    sender: str
    message_id: str
    raw: bytes


def _process_tree(pid: int) -> list[int]:
    """`pid` and its descendants that are alive now."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [pid, *(descendant for child in children for descendant in _process_tree(int(child)))]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:                     # the thread or process has just ended
        return ""


def _cpu_ticks(stat: Path) -> int:
    fields = _read(stat).rsplit(")", 1)[-1].split()
    return int(fields[11]) + int(fields[12]) if len(fields) > 12 else 0


def command(user: str, subject: str) -> Command:
    """The mail a player sends, written out directly: building it with EmailMessage cost the load
    generator about a millisecond per command, of CPU it shares with the server."""
    message_id = make_msgid("bench", domain=DOMAIN)
    header = (f"From: {address(user)}\r\nTo: {SERVER}\r\nSubject: {subject}\r\n"
              f"Message-ID: {message_id}\r\nMIME-Version: 1.0\r\n"
              'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: 7bit\r\n')
    return Command(address(user), message_id, f"{header}\r\n\r\n".encode())


def send(smtp: smtplib.SMTP, mail: Command) -> float:
    """Send one command; returns seconds from the end of DATA to the 250."""
    smtp.mail(mail.sender)
    smtp.rcpt(SERVER)
    start = time.perf_counter()
    code, text = smtp.data(mail.raw)
    elapsed = time.perf_counter() - start
    if code != 250:
        raise SystemExit(f"server answered {code} {text!r}")
    return elapsed


class Replies:
    """The outbox Maildir, read back: replies grouped by the Message-ID they answer."""

    def __init__(self, maildir: Path):
        self.maildir = maildir
        self.seen: set[str] = set()
        self.by_command: dict[str, list[EmailMessage]] = collections.defaultdict(list)

    def read(self) -> None:
        for sub in ("new", "cur"):
            folder = self.maildir / sub
            for name in os.listdir(folder) if folder.exists() else ():
                if name not in self.seen:
                    self.seen.add(name)
                    reply = message_from_bytes((folder / name).read_bytes(), policy=policy.default)
                    self.by_command[str(reply["In-Reply-To"])].append(reply)

    def wait_for(self, message_id: str, count: int) -> list[EmailMessage]:
        deadline = time.monotonic() + WAIT
        while len(self.by_command[message_id]) < count:
            if time.monotonic() > deadline:
                raise SystemExit(f"no {count} replies to {message_id}")
            time.sleep(0.02)
            self.read()
        return self.by_command[message_id]


def setup_observers(server: Server, replies: Replies, boards: list[int], count: int) -> list[str]:
    """Sign up `count` observers and subscribe each to every board; returns their addresses."""
    last = None
    with server.smtp() as smtp:
        for n in range(count):
            user = f"o{n}"
            send(smtp, command(user, f"signup {user} {password(user)} {address(user)}"))
            for board in boards:
                last = command(user, f"xiangqi subscribe {board} {user} {password(user)}")
                send(smtp, last)
    if last is not None:
        replies.wait_for(last.message_id, 1)
    return [address(f"o{n}") for n in range(count)]


def setup_games(server: Server, replies: Replies, games: int) -> list[tuple[int, str, str]]:
    """Sign up two players per game and start the games; returns (board, red, black)."""
    boards = []
    with server.smtp() as smtp:
        for g in range(games):
            red, black = f"r{g}", f"b{g}"
            for user in (red, black):
                signup = command(user, f"signup {user} {password(user)} {address(user)}")
                send(smtp, signup)
                replies.wait_for(signup.message_id, 1)
            challenge = command(red, f"xiangqi challenge {red} {black}")
            send(smtp, challenge)
            subjects = [str(r["Subject"]) for r in replies.wait_for(challenge.message_id, 1)]
            found = re.search(r"Board (\d+)", subjects[0])
            if not found or "Error" in subjects[0]:
                raise SystemExit(f"challenge failed: {subjects}")
            boards.append((int(found.group(1)), red, black))
    return boards


class Table:
    """One game: the board number, its players, and its moves: a random legal game, played out by
    the rules core before the clock starts, so that while it runs the load generator's CPU (which
    the server shares) goes to SMTP alone."""

    def __init__(self, board: int, red: str, black: str, seed: float, plies: int, endless: bool = False):
        self.board, self.red, self.black = board, red, black
        game = rules.Game.new("xiangqi", params=None, fen=None)
        rng = random.Random(seed)
        self.mails: list[Command] = []
        while game.result == "*" and game.ply < plies:
            user = red if game.turn == "w" else black
            moves = game.legal_moves()
            rng.shuffle(moves)
            for move in moves:          # `endless`: a move that ends the game only if all do
                game.play(move)
                if not endless or game.result == "*":
                    break
                game.undo()
            else:
                game.play(move)
            self.mails.append(command(user, f"xiangqi move {board} {user} {password(user)} {move}"))
        self.played = 0
        self.audience = {address(red), address(black)}     # and the observers, once subscribed

    def play(self, server: Server, upto: int, latencies: list[float] | None,
             sent: list[tuple[str, set[str]]]) -> None:
        """Send the game's moves, up to move `upto`."""
        with server.smtp() as smtp:
            for mail in self.mails[self.played:upto]:
                latency = send(smtp, mail)
                if latencies is not None:
                    latencies.append(latency)
                sent.append((mail.message_id, self.audience))
                self.played += 1


def verify(server: Server, sent: list[tuple[str, set[str]]]) -> list[str]:
    """Each command was processed once and answered to both players (and every observer), and each
    reply is in the Maildir exactly once.  (The opponent's copy of a board answers the game thread, not the
    command, so replies are matched to commands through the outbox's inbound_id.)"""
    problems = []
    with sqlite3.connect(server.db_path) as db:
        answered: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
        for message_id, recipient, subject in db.execute(
                "SELECT inbound.message_id, outbox.recipient, outbox.subject FROM inbound "
                "JOIN outbox ON outbox.inbound_id = inbound.id"):
            answered[message_id].append((recipient, subject))
        queued = [row[0] for row in db.execute("SELECT message_id FROM outbox")]
    for message_id, players in sent:
        got = answered.get(message_id, [])
        if sorted(r for r, _ in got) != sorted(players):
            problems.append(f"{message_id}: replies to {sorted(r for r, _ in got)}, "
                            f"expected {sorted(players)}")
        problems += [f"{message_id}: {subject}" for _, subject in got if "rror" in subject]
    in_maildir = collections.Counter()
    headers = BytesHeaderParser()
    for sub in ("new", "cur"):
        for path in (server.maildir / sub).iterdir():
            with open(path, "rb") as f:
                in_maildir[headers.parse(f)["Message-ID"]] += 1
    if in_maildir != collections.Counter(queued):
        problems.append(f"Maildir holds {sum(in_maildir.values())} mails for {len(queued)} outbox rows")
    return problems


def finish_one_game(server: Server, replies: Replies) -> None:
    """A finished game for --prefill to copy: challenge, a few moves, resign."""
    [(board, red, black)] = setup_games(server, replies, 1)
    game = rules.Game.new("xiangqi", params=None, fen=None)
    with server.smtp() as smtp:
        for _ in range(6):
            user = red if game.turn == "w" else black
            move = game.legal_moves()[0]
            send(smtp, command(user, f"xiangqi move {board} {user} {password(user)} {move}"))
            game.play(move)
        resign = command(red, f"xiangqi resign {board} {red} {password(red)}")
        send(smtp, resign)
        replies.wait_for(resign.message_id, 1)


LONG_PLIES, EARLY = 320, 32     # --long-games: moves per game; moves measured at each end


def run_phase(server: Server, tables: list[Table], upto: int, sent: list[tuple[str, set[str]]]
              ) -> tuple[list[float], float, collections.Counter, float, float, float]:
    """Every table plays on to move `upto` at once; (latencies, seconds, server CPU seconds by
    part, own CPU seconds, seconds until the outbox had sent every reply after the last answer,
    CPU seconds every other process of the machine used meanwhile)."""
    latencies: list[float] = []
    threads = [threading.Thread(target=table.play, args=(server, upto, latencies, sent)) for table in tables]
    busy = machine_busy_seconds()
    started, cpu, own_cpu = time.perf_counter(), server.cpu_seconds(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, sending = time.perf_counter() - started, time.process_time() - own_cpu
    server.wait_outbox_drained()
    drain = time.perf_counter() - started - elapsed
    used, own_cpu = server.cpu_seconds(), time.process_time() - own_cpu   # its polling too
    busy = machine_busy_seconds() - busy
    used.subtract(cpu)
    return latencies, elapsed, used, sending, drain, max(0.0, busy - used.total() - own_cpu)


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has been busy since it started (Linux /proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="concurrent games (client threads)")
    parser.add_argument("--plies", type=int, default=40, help="moves per game at most")
    parser.add_argument("--prefill", type=int, default=0, help="finished games in the database first")
    parser.add_argument("--smtp-processes", type=int, default=1,
                        help="[smtp] processes of the server (0: SMTP in its main process)")
    parser.add_argument("--observers", type=int, default=0,
                        help="players who subscribe to every game (each move mails 2 + N)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--long-games", action="store_true",
                        help=f"play {LONG_PLIES} moves a game; compare the cost of the first and last "
                             f"{EARLY}")
    parser.add_argument("--reviews", action="store_true",
                        help="keep the server's review worker (nice) busy all through the run: every "
                             "prefilled game queued for an engine review (needs --prefill)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.reviews and not args.prefill:
        parser.error("--reviews needs --prefill (the finished games to review)")

    with tempfile.TemporaryDirectory(prefix="pbm-bench-") as tmp:
        server = Server(Path(tmp), args.smtp_processes)
        server.start()
        try:
            replies = Replies(server.maildir)
            if args.prefill:
                finish_one_game(server, replies)
                started = time.perf_counter()
                prefill(server.db_path, args.prefill)
                prefill_seconds = time.perf_counter() - started
                database_mb = server.db_path.stat().st_size / 1e6
                print(f"prefilled {args.prefill} finished games in {prefill_seconds:.1f}s: "
                      f"{database_mb:.0f} MB", file=sys.stderr)
                if args.reviews:
                    queue_reviews(server.db_path)
            rng = random.Random(args.seed)
            plies = LONG_PLIES if args.long_games else args.plies
            tables = [Table(board, red, black, rng.random(), plies, endless=args.long_games)
                      for board, red, black in setup_games(server, replies, args.games)]
            observers = setup_observers(server, replies, [t.board for t in tables], args.observers)
            for table in tables:
                table.audience |= set(observers)
            sent: list[tuple[str, set[str]]] = []
            for table in tables:        # warm-up: each player's first move pays for scrypt once
                table.play(server, 2, None, sent)
            first = 2                   # the first move measured (after the warm-up), from 0
            if args.long_games:         # the cost of moves 3-32, and of moves 291-320, apart
                early = run_phase(server, tables, EARLY, sent)
                run_phase(server, tables, LONG_PLIES - EARLY, sent)
                first = LONG_PLIES - EARLY
            before = limits.snapshot(server.config, server.db_path, Path(tmp) / "intake")
            if args.long_games:
                late = run_phase(server, tables, LONG_PLIES, sent)
                latencies, elapsed, cpu, own_cpu, drain, others = late
            else:
                latencies, elapsed, cpu, own_cpu, drain, others = run_phase(
                    server, tables, plies, sent)
            problems = verify(server, sent)
        finally:
            server.stop()
        rates = limits.measure(server.config, server.db_path, tables[0].board, Path(tmp), SERVER, [
            [(mail.sender, mail.raw) for mail in table.mails[first:plies]] for table in tables], before)
    cps = len(latencies) / elapsed
    delivered = len(latencies) / (elapsed + drain)     # every reply of every command has left
    limit = limits.tightest(rates)
    # On a shared machine the server had only the cores other processes left it: the same limit on
    # those (the whole work's share scaled, the commits' not).
    cores_left = max(0.1, rates["cores"] - others / (elapsed + drain))
    limit_left = min(rates["whole_work_commands_per_second"] * cores_left / rates["cores"],
                     rates["durable_commits_per_second"])

    figures = {
        "games": args.games, "prefilled_games": args.prefill, "smtp_processes": args.smtp_processes,
        **({"prefill_seconds": round(prefill_seconds, 1), "database_mb": round(database_mb)}
           if args.prefill else {}),
        "commands": len(latencies),
        "observers": args.observers,
        "seconds": round(elapsed, 2), "accepted_commands_per_second": round(cps, 1),
        "delivered_commands_per_second": round(delivered, 1),
        "limits": {name: round(rate, 2) for name, rate in rates.items()},
        "limit_commands_per_second": round(limit, 1),
        "ratio_to_limit": round(delivered / limit, 2),
        "other_processes_cores": round(rates["cores"] - cores_left, 2),
        "ratio_to_limit_on_cores_left": round(delivered / limit_left, 2),
        "latency_ms_p50": round(statistics.median(latencies) * 1000, 1),
        "latency_ms_p99": round(percentile(latencies, 99) * 1000, 1),
        "latency_ms_max": round(max(latencies) * 1000, 1),
        "outbox_drained_ms_after": round(drain * 1000),
        "server_cpu_ms_per_command": round(cpu.total() / len(latencies) * 1000, 2),
        "server_cpu_ms_per_command_by_part": {name: round(seconds / len(latencies) * 1000, 2)
                                              for name, seconds in cpu.most_common() if seconds > 0},
        "client_cpu_ms_per_command": round(own_cpu / len(latencies) * 1000, 2),
        "replies_checked": sum(len(players) for _, players in sent), "problems": len(problems),
    }
    if args.long_games:
        figures = {"early_moves": f"3-{EARLY}", "late_moves": f"{LONG_PLIES - EARLY + 1}-{LONG_PLIES}",
                   "early_server_cpu_ms_per_command": round(early[2].total() / len(early[0]) * 1000, 2),
                   "late_server_cpu_ms_per_command": round(late[2].total() / len(late[0]) * 1000, 2),
                   "early_latency_ms_p50": round(statistics.median(early[0]) * 1000, 1),
                   "late_latency_ms_p50": round(statistics.median(late[0]) * 1000, 1),
                   "late_vs_early_cpu": round((late[2].total() / len(late[0]))
                                              / (early[2].total() / len(early[0])), 3),
                   **figures}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:>20}: {value}")
    for problem in problems[:20]:
        print("PROBLEM", problem, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
