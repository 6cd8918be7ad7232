"""A player always has a way back (issue 39, item 4): whatever strangers send, a code asked for
from the player's registered address comes within the day and works for a day.  The daily attack of
the review (15 forged wrong passwords and 4 forged `password reset bob` at 03:00, no `[security]
authserv_id`) runs for 7 simulated days through real `pbm deliver` processes (PBM_NOW, pbm.clock),
and bob resets his password and moves every day."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from support.postoffice import plain
from support.processes import PbmEnv

START = datetime(2026, 3, 2, 3, 0, tzinfo=timezone.utc)
BOB_MOVES = ["a10a9", "a9a8", "i10i9", "i9i8", "b10c8", "h10g8", "g7g6"]
ALICE_MOVES = ["a2a3", "i1i2", "i2i3", "b1c3", "h1g3", "c4c5", "e4e5"]


def flat(mail) -> str:
    return " ".join(plain(mail).split())


def code_in(mail) -> str:
    return re.search(r"password set bob (\w+) NEWPASSWORD", plain(mail)).group(1)


class Days:
    """Mail at a simulated time: every `pbm deliver` runs with PBM_NOW."""

    def __init__(self, env: PbmEnv):
        self.env, self.now = env, START

    def send(self, subject: str, body: str = "", sender: str = "bob@example.org") -> list:
        result = self.env.deliver(self.env.message(subject, body, sender=sender), PBM_NOW=self.now.isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return self.env.replies()


def test_a_week_of_daily_lockouts_leaves_bob_a_reset_and_a_move_every_day(pbm_env: PbmEnv) -> None:
    days = Days(pbm_env)
    days.send("signup alice Sw0rdfish", sender="alice@example.org")
    days.send("signup bob Hunter22")
    days.send("xiangqi challenge alice bob", sender="alice@example.org")
    days.send("xiangqi move 101 alice Sw0rdfish a1a2", sender="alice@example.org")
    password = "Hunter22"
    for day in range(7):
        days.now = START + timedelta(days=day)                          # 03:00: the stranger
        guesses = "\n".join(f"xiangqi move 101 bob Wrong-{day}-{k} {BOB_MOVES[day]}" for k in range(15))
        days.send("multiple", guesses, sender=f"guesser@evil{day}.example")
        resets = days.send("multiple", "\n".join(["password reset bob"] * 4),
                           sender=f"asker{day}@evil.example")
        codes = [m for m in resets if m["To"] == "bob@example.org"]
        assert len(codes) == 3                          # the strangers' share: no more
        assert any("has been mailed 3 reset codes" in flat(m) for m in resets
                   if m["To"] == f"asker{day}@evil.example")

        days.now += timedelta(hours=6)                                  # 09:00: bob wakes up
        if day in (0, 6):                               # locked out: his right password is not taken
            assert days.send(f"xiangqi move 101 bob {password} {BOB_MOVES[day]}") == []
        [mailed] = days.send("password reset bob")      # his own request: never used up by them
        assert mailed["To"] == "bob@example.org" and "works once" in flat(mailed)
        days.now += timedelta(minutes=1)
        password = f"Hunter-{day}x"
        changed = days.send(f"password set bob {code_in(mailed)} {password}")
        assert any("password changed for bob" in str(m["Subject"]) for m in changed)
        days.now += timedelta(minutes=1)
        moved = days.send(f"xiangqi move 101 bob {password} {BOB_MOVES[day]}")
        assert any(m["To"] == "alice@example.org" and f"bob played {BOB_MOVES[day]}" in flat(m)
                   for m in moved), [flat(m)[:200] for m in moved]
        days.now += timedelta(hours=1)
        days.send(f"xiangqi move 101 alice Sw0rdfish {ALICE_MOVES[day]}", sender="alice@example.org")
    assert pbm_env.query("SELECT ply FROM games") == [(15,)]


def test_codes_asked_for_in_bobs_name_still_work_when_his_own_share_is_used_up(pbm_env: PbmEnv) -> None:
    """Without an MTA that vouches for the From, a forger can ask from bob's own address; the codes
    then go to bob and work for a day, so the refusal of his own request leaves him one."""
    days = Days(pbm_env)
    days.send("signup bob Hunter22")
    forged = [days.send("password reset bob")[0] for _ in range(3)]       # at 03:00, forged as bob
    days.now += timedelta(hours=20)
    [refused] = days.send("password reset bob")
    assert "has been mailed 3 reset codes in the last day" in flat(refused)
    assert "each code mailed works for a day, once" in flat(refused)
    changed = days.send(f"password set bob {code_in(forged[0])} Fresh-pass-77")
    assert any("password changed for bob" in str(m["Subject"]) for m in changed)
    days.now += timedelta(hours=4, minutes=1)                           # a day and a minute old
    [late] = days.send(f"password set bob {code_in(forged[1])} Other-pass-77")
    assert "That is not the code mailed for bob, or it has expired" in flat(late)
