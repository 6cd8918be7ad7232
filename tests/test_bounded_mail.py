"""Bounded work per mail, outside the lock: a record a mail carries is read once,
before the write transaction begins, however many `multiple` lines use it, so that no mail holds
the write lock for long.  Real `pbm deliver` processes with the review's hostile bodies; the lock
hold is what `pbm deliver` logs of its transaction (log_level DEBUG), bounded generously."""
from __future__ import annotations

import re
import subprocess
import time

import pytest
from support.postoffice import PASSWORDS
from support.processes import PBM, pbm_environment, wire

LINES = 20
HOSTILE = {
    "unclosed-comments": "1. h3e3 " + "{" * 300_000,        # quadratic comment removal (review N1)
    "unclosed-dhtmlxq": "[DhtmlXQ_a]" * 50_000,             # quadratic DhtmlXQ fields (review N1)
}
LOCK_HOLD = 1.0         # seconds: the most a mail may hold the write lock (the bound)


def transactions(stderr: bytes) -> list[float]:
    """The write transactions `pbm deliver` logged, in seconds."""
    return [int(ms) / 1000 for ms in re.findall(rb"transaction: \d+ rows written in (\d+) ms", stderr)]


@pytest.mark.parametrize("record", HOSTILE)
def test_a_hostile_record_on_20_lines_never_holds_the_lock(pbm_env, record):
    for user in ("alice", "bob", "carol"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.mail("xiangqi challenge bob carol", sender="bob@example.org")
    pbm_env.replies()
    hostile = pbm_env.message("multiple", "\n".join(["xiangqi challenge -record alice bob"] * LINES)
                              + "\n\n" + HOSTILE[record])
    started = time.monotonic()
    log = pbm_env.root / "attack.log"
    with open(log, "wb") as stderr:
        attack = subprocess.Popen([*PBM, "--config", str(pbm_env.config_path), "deliver"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr,
                                  cwd=pbm_env.root, env=pbm_environment())
    try:
        attack.stdin.write(wire(hostile))
        attack.stdin.close()
        # another player's mail meanwhile: taken at once, never kept out (exit 75) by the lock
        other = pbm_env.deliver(pbm_env.message("xiangqi show 101", sender="carol@example.org"))
        assert other.returncode == 0, other.stderr.decode(errors="replace")
        attack.wait(timeout=900)
    finally:
        if attack.poll() is None:
            attack.kill()
            attack.wait()
    err = log.read_bytes()
    assert attack.returncode == 0, err.decode(errors="replace")
    held = transactions(err)
    assert held and max(held) < LOCK_HOLD, (held, time.monotonic() - started)
    mails = [mail for mail in pbm_env.replies() if mail["To"] == "alice@example.org"]
    assert len(mails) == 1                          # one answer, however many lines
