"""Damage, disk space and copies, through real `pbm deliver` and `pbm serve` processes: noise in
the middle of the database, a foreign file, the free-space reserve on a small filesystem, and a
backup taken while the server plays."""
from __future__ import annotations

import os
import random
import shutil
import smtplib
import sqlite3
import subprocess
from pathlib import Path

import pytest
from support.processes import PbmEnv, wait_until

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}


def play(env: PbmEnv, moves: int) -> None:
    """Sign alice and bob up, start a game and play `moves` moves (alternating cannon shuffles)."""
    env.mail(f"signup alice {PASSWORDS['alice']}")
    env.mail(f"signup bob {PASSWORDS['bob']}", sender="bob@example.org")
    env.mail("xiangqi challenge alice bob")
    shuffle = [("alice", "h3g3"), ("bob", "h8g8"), ("alice", "g3h3"), ("bob", "g8h8")]
    for ply in range(moves):
        user, move = shuffle[ply % 4]
        env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")


def damage_middle(path: Path) -> None:
    """40 KB of noise in the middle of the database file."""
    size = path.stat().st_size
    assert size > 200_000
    with open(path, "r+b") as f:
        f.seek(size // 2 - 20_000)
        f.write(random.Random(7).randbytes(40_000))     # the same noise every run


def test_noise_in_the_middle_stops_serve_at_start_with_a_clear_line(pbm_env: PbmEnv) -> None:
    play(pbm_env, 6)
    for n in range(40):                         # a bigger file, so that the noise falls inside it
        pbm_env.mail("help", f"a comment {n} " * 200)
    path = pbm_env.data_dir / "pbm.sqlite3"
    copy = pbm_env.root / "before.sqlite3"
    assert pbm_env.run("backup", str(copy)).returncode == 0
    damage_middle(path)
    started = pbm_env.run("serve", timeout=60)
    assert started.returncode == 65
    said = [line for line in started.stderr.decode().splitlines() if line.startswith("pbm:")]
    assert len(said) == 1 and "is damaged or not a pbm database" in said[0]
    assert "Traceback" not in started.stderr.decode()
    refused = pbm_env.deliver(pbm_env.message("help"))  # found damaged: no commit into it
    assert refused.returncode == 75 and b"is damaged or not a pbm database" in refused.stderr
    shutil.copyfile(copy, path)                 # restored from the backup, pbm serves again
    (pbm_env.data_dir / "pbm.sqlite3-wal").unlink(missing_ok=True)
    doctor = pbm_env.run("doctor")
    assert doctor.returncode == 1 and b"says the database was found damaged" in doctor.stdout
    pbm_env.start_server().stop()
    assert pbm_env.query("SELECT count(*) FROM moves") == [(6,)]
    assert not (pbm_env.data_dir / "damaged").exists()
    pbm_env.mail("help")


def test_a_foreign_file_makes_deliver_exit_75_with_one_line_and_serve_65(pbm_env: PbmEnv) -> None:
    pbm_env.data_dir.mkdir(mode=0o700)
    (pbm_env.data_dir / "pbm.sqlite3").write_bytes(os.urandom(64 * 1024))
    delivered = pbm_env.deliver(pbm_env.message("help"))
    assert delivered.returncode == 75
    errors = [line for line in delivered.stderr.decode().splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "is damaged or not a pbm database" in errors[0]
    assert "Traceback" not in delivered.stderr.decode()
    started = pbm_env.run("serve", timeout=60)
    assert started.returncode == 65 and "Traceback" not in started.stderr.decode()


def test_damage_while_serving_stops_taking_mail(pbm_env: PbmEnv) -> None:
    play(pbm_env, 2)
    pbm_env.configure(storage={"check_minutes": 0.01}, admins={"notify": ["root@example.org"]})
    server = pbm_env.start_server()
    server.send(pbm_env.message("help"))                # 250: taken
    for n in range(40):                                 # a bigger file, so that the noise falls inside it
        pbm_env.mail("help", f"a comment {n} " * 200)
    path = pbm_env.data_dir / "pbm.sqlite3"
    with sqlite3.connect(path) as db:                   # the pages in the file, not in the WAL
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage_middle(path)
    assert wait_until(lambda: "is damaged or not a pbm database" in server.log(), 30), server.log()
    with pytest.raises(smtplib.SMTPDataError) as refused:
        server.send(pbm_env.message("help"))
    assert refused.value.smtp_code == 451
    assert pbm_env.deliver(pbm_env.message("help")).returncode == 75     # pbm deliver too
    def told() -> bool:
        return any(str(m["To"]) == "root@example.org" and "database damaged" in str(m["Subject"])
                   for m in pbm_env.replies())
    assert wait_until(told, 30), server.log()
    server.stop()


def small_filesystem(root: Path) -> Path | None:
    """A 6 MB tmpfs under `root`, or None where mounting is not allowed."""
    mount = root / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True)
    return mount if done.returncode == 0 else None


def test_under_the_reserve_mail_is_refused_before_the_disk_is_full(pbm_env: PbmEnv) -> None:
    mount = small_filesystem(pbm_env.root)
    try:
        data_dir = pbm_env.data_dir = (mount or pbm_env.root) / "var"
        pbm_env.configure(storage={"data_dir": str(data_dir), "reserve_mb": 2 if mount else 0})
        play(pbm_env, 1)
        free = shutil.disk_usage(data_dir).free
        if mount:       # fill the small disk to 1 MB short of a 2 MB reserve
            (mount / "filler").write_bytes(b"\0" * (free - 1024 * 1024))
        else:           # no mounting here: a reserve just over the real disk's free space
            pbm_env.configure(storage={"reserve_mb": free / 1024 / 1024 + 1})
        refused = pbm_env.deliver(pbm_env.message(f"xiangqi move 101 bob {PASSWORDS['bob']} h8e8",
                                                  sender="bob@example.org"))
        assert refused.returncode == 75 and b"under the reserve" in refused.stderr
        server = pbm_env.start_server()
        with pytest.raises(smtplib.SMTPDataError) as answer:
            server.send(pbm_env.message("help"))
        assert answer.value.smtp_code == 452
        server.stop()
        assert pbm_env.query("SELECT count(*) FROM moves") == [(1,)]    # nothing half-taken
        if mount:
            (mount / "filler").unlink()
        else:
            pbm_env.configure(storage={"reserve_mb": 0})
        pbm_env.mail(f"xiangqi move 101 bob {PASSWORDS['bob']} h8e8", sender="bob@example.org")
        assert pbm_env.query("SELECT count(*) FROM moves") == [(2,)]
    finally:
        if mount:
            subprocess.run(["umount", "-l", str(mount)], check=True)


def test_a_backup_taken_while_serving_is_consistent_and_the_servers_alone(pbm_env: PbmEnv) -> None:
    play(pbm_env, 2)
    server = pbm_env.start_server()
    for ply in range(2, 8):                             # moves arriving while the copies are taken
        user, move = [("alice", "h3g3"), ("bob", "h8g8"), ("alice", "g3h3"), ("bob", "g8h8")][ply % 4]
        server.send(pbm_env.message(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}",
                                    sender=f"{user}@example.org"))
        copy = pbm_env.root / f"copy-{ply}.sqlite3"
        done = pbm_env.run("backup", str(copy))
        assert done.returncode == 0, done.stderr
        assert os.stat(copy).st_mode & 0o777 == 0o600
        with sqlite3.connect(copy) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert db.execute("SELECT count(*) FROM moves").fetchone()[0] == ply + 1
    server.stop()
