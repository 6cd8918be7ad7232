"""The guessing limit hurts only the guesser (issue 29): through real `pbm deliver` processes, a
stranger's forged guesses and junk reset codes lock bob out of password commands, yet bob's reset
goes through at once, lifts the lock, hands him his games' new reply addresses, and his new
password moves at once."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from support.postoffice import flat
from support.processes import PbmEnv

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}
START = datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc)


class Mailer:
    """Mail through `pbm deliver` on a clock that moves only when told (PBM_NOW)."""

    def __init__(self, env: PbmEnv) -> None:
        self.env, self.now = env, START

    def send(self, subject: str, sender: str, body: str = "", **headers: str):
        result = self.env.deliver(self.env.message(subject, body, sender=sender, **headers),
                                  PBM_NOW=self.now.isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        self.now += timedelta(seconds=1)
        return self.env.replies()

    def players(self, *users: str) -> None:
        for user in users:
            self.send(f"signup {user} {PASSWORDS[user]}", f"{user}@example.org")


def failures(env: PbmEnv, subject: str) -> int:
    return env.query("SELECT count(*) FROM password_failures WHERE subject = ?", (subject,))[0][0]


def test_forged_guesses_and_junk_codes_do_not_keep_bob_from_his_reset_and_his_move(pbm_env):
    mail = Mailer(pbm_env)
    mail.players("alice", "bob")
    mail.send("xiangqi challenge alice bob", "alice@example.org")
    mail.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3", "alice@example.org")
    for i in range(8):                                      # forged From: bob's own address
        mail.send(f"xiangqi move 101 bob Guess{i:04d}xx h10g8", "bob@example.org")
    for i in range(6):                                      # junk codes from anyone, before any code
        mail.send(f"password set bob abcdefgh{i:08d} Evil1234x", f"x{i}@evil.org")
    assert mail.send(f"xiangqi move 101 bob {PASSWORDS['bob']} h10g8", "bob@example.org") == []
    assert failures(pbm_env, "user:bob") == 8               # the right password was not counted

    [coded] = mail.send("password reset bob", "bob@example.org")
    code = re.search(r"password set bob (\S+)", flat(coded)).group(1)
    [done] = mail.send(f"password set bob {code} NewPass99", "bob@example.org")
    assert "The password of bob has been changed." in flat(done)     # answered at once
    assert re.search(r"Xiangqi Board 101 \(alice - bob\) pbm\+xiangqi-101-bob-\w+@pbm.test", flat(done))
    assert failures(pbm_env, "user:bob") == failures(pbm_env, "sender:bob@example.org") == 0

    moved = {m["To"]: m for m in mail.send("xiangqi move 101 bob NewPass99 h10g8", "bob@example.org")}
    assert set(moved) == {"alice@example.org", "bob@example.org"}
    assert moved["alice@example.org"]["Subject"] == "Xiangqi Board 101 alice"
    assert pbm_env.query("SELECT count(*) FROM moves")[0][0] == 2

    # the reply address the password change listed works at once, without a password
    address = re.search(r"(pbm\+xiangqi-101-bob-\w+@pbm.test)", flat(done)).group(1)
    mail.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h1g3", "alice@example.org")
    reply = pbm_env.message("Re: Xiangqi Board 101 bob", "i10h10\n", sender="bob@example.org", to=address)
    assert pbm_env.deliver(reply, rcpt_to=address, PBM_NOW=mail.now.isoformat()).returncode == 0
    assert pbm_env.query("SELECT count(*) FROM moves")[0][0] == 4


def test_wrong_codes_count_against_the_code_mailed_never_the_user(pbm_env):
    mail = Mailer(pbm_env)
    mail.players("bob")
    [coded] = mail.send("password reset bob", "bob@example.org")
    code = re.search(r"password set bob (\S+)", flat(coded)).group(1)
    answers = [mail.send(f"password set bob junk{i:012d} Evil1234x", f"x{i}@evil.org") for i in range(8)]
    assert [len(a) for a in answers] == [1] * 5 + [0] * 3   # the code's failures: answers stop
    assert failures(pbm_env, "user:bob") == 0
    [done] = mail.send(f"password set bob {code} NewPass99", "bob@example.org")
    assert "has been changed" in flat(done)                 # the code mailed still works


def test_at_most_three_codes_a_day_however_many_ask(pbm_env):
    mail = Mailer(pbm_env)
    mail.players("bob")
    codes, told = 0, []
    for i in range(12):                                     # strangers every 15 minutes
        for reply in mail.send("password reset bob", f"s{i}@evil.org"):
            if reply["To"] == "bob@example.org":
                codes += 1
            else:
                told.append(flat(reply))
        mail.now += timedelta(minutes=15)
    assert codes == 3
    assert "the most this server sends in a day" in told[-1]
    assert "The next one can be asked for from 2026-11-03 12:00 UTC" in told[-1]
    mail.now = START + timedelta(days=1, minutes=1)
    assert [r["To"] for r in mail.send("password reset bob", "late@evil.org")][0] == "bob@example.org"


def test_a_vouched_registered_address_is_not_held_by_the_user_lock(pbm_env):
    pbm_env.configure(security={"authserv_id": "mx.pbm.test"})
    mail = Mailer(pbm_env)
    mail.players("alice", "bob")
    mail.send("xiangqi challenge alice bob", "alice@example.org")
    for i in range(8):
        mail.send(f"xiangqi resign 101 bob Guess{i:04d}xx", "bob@example.org")
    assert mail.send(f"xiangqi resign 101 bob {PASSWORDS['bob']}", "bob@example.org") == []
    vouched = "mx.pbm.test; dmarc=pass header.from=example.org"
    done = mail.send(f"xiangqi resign 101 bob {PASSWORDS['bob']}", "bob@example.org",
                     Authentication_Results=vouched)
    assert done and pbm_env.query("SELECT status FROM games")[0][0] == "declined"
