"""pbm's Dutch system against bbpPairings (FIDE-endorsed, 2025 rules) on many random Swiss
tournaments: the figure behind tests/test_tournament_bbp.py, on seeds the test does not use.

    python bench/swiss_bbp.py [--first 1000] [--events 300] [--smallest 5] [--largest 60]

Each tournament (tests/support/swiss_events: byes, forfeits, withdrawals, half-point byes, late
entries, Baku acceleration) is paired round by round by pbm and, from pbm's TRF, by bbpPairings
(built by shared/refs/build.sh); then bbpPairings' checker reads pbm's TRF of the whole event.
Prints every round that differs and the totals.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

CHECKOUT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(CHECKOUT), str(CHECKOUT / "tests")]

from support import bbp, swiss_events  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--smallest", type=int, default=5)
    parser.add_argument("--largest", type=int, default=60)
    args = parser.parse_args()
    rounds = differ = files = accelerated = relaxed = 0
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.first, args.first + args.events):
            plan = swiss_events.event(seed, args.smallest, args.largest)
            found, whole, none = swiss_events.play(plan, pathlib.Path(folder))
            rounds += plan.rounds
            accelerated += bool(plan.virtual)
            differ += len(found)
            for line in found:
                print(line, flush=True)
            relaxed += len(none)
            checked = bbp.differences(bbp.check(whole, pathlib.Path(folder)))
            if checked != [f"Round #{n}" for n in none]:
                files += 1
                print(f"seed {seed}: the checker differs on pbm's TRF", flush=True)
    print(f"{args.events} tournaments ({accelerated} accelerated), {rounds} rounds: "
          f"{rounds - differ - relaxed} paired as bbpPairings pairs them, {relaxed} where neither "
          f"finds a pairing within the absolute criteria (pbm relaxes one), {differ} otherwise; "
          f"the checker differs on {files} TRFs; {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
