"""A move's time is bounded (issue 39, item 5), through real `pbm deliver`, `pbm timers` and `pbm
doctor` processes with `[security] authserv_id` set: the time is read only from the line the MX
wrote (its `by` after the `from (...)` part, whatever the HELO says), never before the mover's turn
began nor more than `[clocks] max_hold` before pbm took the mail; without the MX's line, pbm's own
arrival time, and `pbm doctor` says so."""
from __future__ import annotations

from datetime import datetime, timedelta
from email.utils import format_datetime

from support.processes import PbmEnv
from test_fair_clocks import MX, PASSWORDS, Table, flat, started

from pbm.mail.stamps import host

DAY = 86400.0


def forged(when: datetime) -> str:
    return f"from evil.example (evil.example [203.0.113.9]) by {MX} with ESMTP id 1; {format_datetime(when)}"


def move_with(table: Table, user: str, move: str, *received: str) -> dict:
    """A move whose `Received:` lines are `received`, the first on top."""
    message = table.env.message(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    for line in received:
        message["Received"] = line
    result = table.env.deliver(message, PBM_NOW=table.now.isoformat())
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return {m["To"]: m for m in table.env.replies()}


def played_at(env: PbmEnv, ply: int) -> datetime:
    [(at,)] = env.query("SELECT played_at FROM moves WHERE ply = ?", (ply,))
    return datetime.fromisoformat(at)


def test_the_host_of_a_line_is_its_by_after_the_from_part() -> None:
    assert host(f"from client.example.org (client.example.org [192.0.2.7]) by {MX} (Postfix); d") == MX
    assert host(f"from client by relay.evil.net (host [192.0.2.7]) by {MX} with ESMTP; d") == MX
    assert host(f"from unknown (HELO x) (192.0.2.7) by {MX} with SMTP; d") == MX        # qmail
    assert host(f"by {MX} (Postfix, from userid 0) id 4Xz; d") == MX                   # local pickup
    assert host(f"from x by {MX}; d") is None and host(f"from x (y by {MX}; d") is None


def test_a_helo_holding_by_does_not_hide_the_mx_line(pbm_env: PbmEnv) -> None:
    """The review's case B: the MX's own line on top, its HELO `client by relay.evil.net`; a forged
    line by the MX's name under it, dated before the deadline.  The late move is refused."""
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env)
    deadline = table.deadline()
    table.now = deadline + timedelta(hours=3)
    mx_line = (f"from client by relay.evil.net (client.example.org [192.0.2.7]) by {MX} (Postfix) "
               f"with ESMTP id 9Q; {format_datetime(table.now)}")
    mails = move_with(table, "alice", "h1g3", mx_line, forged(deadline - timedelta(hours=2)))
    assert "alice has lost on time" in flat(mails["bob@example.org"])


def test_a_forged_date_far_back_moves_a_move_at_most_max_hold_back(pbm_env: PbmEnv) -> None:
    """The review's case E: no line by the MX (its host is named otherwise), a forged one by the
    MX's name dated 400 days back, on a --clock=10+0 game after 9 days of thought.  The move counts
    6 hours back ([clocks] max_hold), the mover has 1.25 days left, not 401, and the opponent's
    clock runs on."""
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env, "--clock=10+0")
    table.later(days=9)
    other_mx = (f"from client.example.org (client.example.org [192.0.2.7]) by mx1.elsewhere.test "
                f"(Postfix) with ESMTP id 9Q; {format_datetime(table.now)}")
    move_with(table, "alice", "h1g3", other_mx, forged(table.now - timedelta(days=400)))
    assert played_at(pbm_env, 3) == table.now - timedelta(hours=6)
    [(left1, left2)] = pbm_env.query("SELECT left1, left2 FROM clocks")
    assert left1 == 10 * DAY - (9 * DAY - 6 * 3600) and left2 == 10 * DAY      # bob: not 0
    table.later(hours=1)
    assert not [m for m in table.timer_mails() if "ran out of time" in flat(m)]
    assert pbm_env.query("SELECT status FROM games") == [("active",)]


def test_a_move_is_never_timed_before_its_turn_began(pbm_env: PbmEnv) -> None:
    """An hour into alice's turn, a line by the MX dated 400 days back: the move is timed when the
    turn began, costing her nothing and giving her nothing."""
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env, "--clock=10+0")
    began = played_at(pbm_env, 2)
    table.later(hours=1)
    move_with(table, "alice", "h1g3", forged(table.now - timedelta(days=400)))
    assert played_at(pbm_env, 3) == began
    [(left1,)] = pbm_env.query("SELECT left1 FROM clocks")
    assert left1 == 10 * DAY


def test_doctor_says_when_the_mail_carries_no_line_by_the_mx(pbm_env: PbmEnv) -> None:
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env)                        # none of these mails has a line by the MX
    doctor = pbm_env.run("doctor")
    said = " ".join(doctor.stdout.decode().split())
    assert doctor.returncode == 1, said
    assert f"move times: 5 of the last 5 messages carry no Received: line written by {MX}" in said
    table.later(hours=1)
    table.send("alice", "help", received=(MX, table.now))
    said = " ".join(pbm_env.run("doctor").stdout.decode().split())
    assert f"move times: note: 5 of the last 6 messages carry no Received: line written by {MX}" in said
