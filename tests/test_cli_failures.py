"""The command line answers bad conditions with one line and the right exit status (issue 39,
item 7): `pbm timers` on a locked database exits 75 (cron runs it again); `pbm tournament check`
reads UTF-8, UTF-16 and CP1252 files, and exits 65 on a file it cannot read, 1 only when a round
differs.  Real processes, and the command's own function under hypothesis."""
from __future__ import annotations

import argparse
import contextlib
import io
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.processes import PbmEnv

from pbm.upkeep import commands

EX_DATAERR, EX_TEMPFAIL = 65, 75


def player(number: int, name: str, points: float, *cells: tuple[int, str, str]) -> str:
    rounds = "".join(f"  {opponent:>4} {colour} {result}" for opponent, colour, result in cells)
    return f"001 {number:>4}      {name:<33} {'':4} {'':3} {'':>11} {'':10} {points:4.1f} {number:>4}{rounds}"


VALID = "\n".join(["012 Cup", "092 Swiss Dutch system", player(1, "Élodie", 1, (2, "w", "1")),
                   player(2, "Bob", 0, (1, "b", "0")), "XXR 3", ""])


def check(env: PbmEnv, data: bytes) -> tuple[int, str, str]:
    path = env.root / "t.trf"
    path.write_bytes(data)
    result = env.run("tournament", "check", str(path))
    return result.returncode, result.stdout.decode(), result.stderr.decode()


def test_timers_on_a_locked_database_exit_75_with_one_line(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.configure(storage={"busy_timeout": 0.5})
    holder = sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")           # another process writing, for longer than 0.5 s
        result = pbm_env.run("timers")
    finally:
        holder.close()
    assert result.returncode == EX_TEMPFAIL, result.stderr.decode()
    said = [line for line in result.stderr.decode().splitlines() if line.startswith("pbm:")]
    assert "Traceback" not in result.stderr.decode()
    assert len(said) == 1 and "the database is busy (database is locked)" in said[0]
    assert pbm_env.run("timers").returncode == 0    # once the lock is gone


def test_tournament_check_reads_what_windows_programs_write(pbm_env: PbmEnv) -> None:
    for data in (VALID.encode(), VALID.encode("utf-8-sig"), VALID.encode("utf-16"), VALID.encode("cp1252")):
        status, out, err = check(pbm_env, data)
        assert status == 0 and "Cup, 2 players, 1 rounds paired again" in out, err


def test_tournament_check_exits_65_on_a_file_it_cannot_read(pbm_env: PbmEnv) -> None:
    cases = {
        "a letter for a number": VALID + "001 abcd      x\n",
        "an unknown opponent": "092 Swiss Dutch system\n" + player(1, "a", 1, (9999, "w", "1")),
        "a result Q": "\n".join(["092 Swiss Dutch system", player(1, "a", 1, (2, "w", "Q")),
                                 player(2, "b", 0, (1, "b", "Q"))]),
        "fewer rounds": "\n".join(["092 Swiss Dutch system", player(1, "a", 1, (2, "w", "1"), (2, "w", "1")),
                                   player(2, "b", 0, (1, "b", "0"))]),
    }
    for case, text in cases.items():
        status, out, err = check(pbm_env, text.encode())
        said = [line for line in err.splitlines() if line.startswith("pbm:")]
        assert status == EX_DATAERR and "Traceback" not in err, (case, err)
        assert len(said) == 1 and "not a TRF-16 file pbm can read" in said[0], (case, err)
    status, _, err = check(pbm_env, b"\x81\x8d" + VALID.encode("cp1252"))     # no text encoding
    assert status == EX_DATAERR and "not text in UTF-8, UTF-16 or CP1252" in err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_tournament_check_answers_any_damage_to_a_file_with_0_1_or_65(tmp_path, data) -> None:
    """A valid file with bytes changed, cut or added: a verdict or one line, never a traceback."""
    raw = bytearray((VALID + player(3, "Carol", 0) + "\n").encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        how = data.draw(st.sampled_from(["replace", "cut", "insert"]))
        chunk = data.draw(st.binary(min_size=1, max_size=3))
        raw[at:at + (0 if how == "insert" else len(chunk) if how == "replace" else 1)] = \
            b"" if how == "cut" else chunk
    (tmp_path / "t.trf").write_bytes(bytes(raw))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):   # the command, no config
        status = commands.tournament(None, argparse.Namespace(file=str(tmp_path / "t.trf")))
    assert status in (0, 1, EX_DATAERR), err.getvalue()
    if status == EX_DATAERR:
        assert err.getvalue().count("\n") == 1 and "pbm can read" in err.getvalue()
