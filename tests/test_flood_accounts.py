"""No floods through new accounts (issue 29), through real `pbm deliver` processes: signups per
sender and day, addresses confirmed before they get mail, and a cap on the challenges waiting for
one player from all challengers together."""
from __future__ import annotations

from collections import Counter

from support.postoffice import flat
from support.processes import PbmEnv


def send(env: PbmEnv, subject: str, sender: str):
    env.mail(subject, sender=sender)
    return env.replies()


def test_twelve_throwaway_challengers_reach_one_player_at_most_five_times(pbm_env):
    send(pbm_env, "signup bob Hunter22", "bob@example.org")
    to_bob = []
    for i in range(12):
        send(pbm_env, f"signup thrw{i:02d} Passw0rd{i:02d}", f"t{i}@throwaway.example")
        to_bob += [m for m in send(pbm_env, f"xiangqi challenge thrw{i:02d} bob", f"t{i}@throwaway.example")
                   if m["To"] == "bob@example.org"]
    subjects = Counter("new game" if m["Subject"].startswith("New Xiangqi Board") else m["Subject"]
                       for m in to_bob)
    assert subjects == {"new game": 5, "pbm test: challenges to you refused": 1}
    [told] = [m for m in to_bob if "refused" in m["Subject"]]
    assert "A challenge to you from thrw05 was refused: 5 challenges are already waiting" in flat(told)
    assert pbm_env.query("SELECT count(*) FROM games")[0][0] == 5


def test_ten_signups_from_one_sender_make_at_most_three_accounts(pbm_env):
    answers = [send(pbm_env, f"signup many{i:02d} Passw0rd{i:02d}", "flood@example.org") for i in range(10)]
    assert pbm_env.query("SELECT count(*) FROM users")[0][0] == 3
    assert [len(a) for a in answers] == [1, 1, 1, 1] + [0] * 6      # one refusal, then silence
    assert "3 accounts have been made from flood@example.org in the last day" in flat(answers[3][0])


def test_an_address_nobody_confirmed_gets_only_its_confirmation(pbm_env):
    send(pbm_env, "signup alice Sw0rdfish", "alice@example.org")
    [ask, welcome] = send(pbm_env, "signup mallory3 Passw0rd12 <victim@elsewhere.example>", "alice@example.org")
    assert ask["To"] == "victim@elsewhere.example" and welcome["To"] == "alice@example.org"
    assert "answer the mail asking it to" in flat(welcome)
    later = []
    for subject in ("xiangqi challenge alice mallory3", "password reset mallory3",
                    "signup mallory4 Passw0rd13 victim@elsewhere.example"):
        later += send(pbm_env, subject, "alice@example.org")
    assert "victim@elsewhere.example" not in [m["To"] for m in later]   # a day's one confirmation sent
    assert ask["Reply-To"].startswith("pbm+confirm-mallory3-")
