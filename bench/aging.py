"""Does a command cost the server more as it ages?  Runs of bench/mail_load.py, interleaved in one
run so that the machine's load falls on both alike:

    python bench/aging.py [--rounds 3] [--prefill 1000000] [--games 8] [--plies 40]

Each round runs the load on an empty database and on one holding --prefill finished games (copied
in by bench/prefill.py), in turns, and one --long-games run (moves 3-32 against moves 289-320 of the
same games); it prints each run's server CPU per command, and the medians' ratios: at most 1.2 is
the target for both.  The machine's load average is shown before each run: on a shared machine, a
ratio is only as good as the load was even.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def run(*args: str) -> dict:
    """One bench/mail_load.py run's figures (it exits 1 if a reply was wrong: that stops this)."""
    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, str(BENCH / "mail_load.py"), "--json", *args],
                          stdout=subprocess.PIPE, text=True, check=True)
    figures = json.loads(done.stdout)
    figures["load_before"] = round(load, 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--prefill", type=int, default=1_000_000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--plies", type=int, default=40)
    args = parser.parse_args()
    size = ["--games", str(args.games), "--plies", str(args.plies)]
    empty, full, early, late = [], [], [], []
    for n in range(args.rounds):
        for prefill in ([], ["--prefill", str(args.prefill)]) if n % 2 == 0 else (
                ["--prefill", str(args.prefill)], []):
            figures = run(*size, *prefill)
            (full if prefill else empty).append(figures["server_cpu_ms_per_command"])
            print(json.dumps({key: figures.get(key) for key in (
                "load_before", "prefilled_games", "prefill_seconds", "database_mb", "commands",
                "server_cpu_ms_per_command", "delivered_commands_per_second",
                "limit_commands_per_second", "ratio_to_limit", "other_processes_cores",
                "ratio_to_limit_on_cores_left")}), flush=True)
        figures = run("--games", str(args.games), "--long-games")
        early.append(figures["early_server_cpu_ms_per_command"])
        late.append(figures["late_server_cpu_ms_per_command"])
        print(json.dumps({key: figures.get(key) for key in (
            "load_before", "early_server_cpu_ms_per_command", "late_server_cpu_ms_per_command",
            "late_vs_early_cpu", "ratio_to_limit", "ratio_to_limit_on_cores_left")}), flush=True)
    print(f"server CPU per command, median of {args.rounds}: empty {statistics.median(empty):.2f} ms, "
          f"{args.prefill} finished games {statistics.median(full):.2f} ms "
          f"({statistics.median(full) / statistics.median(empty):.2f} times); moves 3-32 "
          f"{statistics.median(early):.2f} ms, moves 289-320 {statistics.median(late):.2f} ms "
          f"({statistics.median(late) / statistics.median(early):.2f} times)")


if __name__ == "__main__":
    main()
