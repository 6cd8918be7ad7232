"""What a stranger can forge, tried through real `pbm deliver` processes: guesses with the victim's
own From (in separate mails and in one `multiple`), a move made with a password from another
address, a flood of challenges, and a dump of every value of every table looking for a password."""
from __future__ import annotations

import sqlite3

from support.postoffice import plain
from support.processes import PbmEnv

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-pw"}


def signed_up(env: PbmEnv, *users: str) -> None:
    for user in users:
        env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    env.replies()


def test_42_forged_from_guesses_get_5_answers_and_then_silence(pbm_env: PbmEnv) -> None:
    signed_up(pbm_env, "alice", "bob")
    for attempt in range(42):
        pbm_env.mail(f"change password bob guess{attempt}x N3w-secret", sender="bob@example.org")
    answers = pbm_env.replies()
    assert len(answers) == 5 and "refused, unanswered, until" in plain(answers[-1])
    pbm_env.mail(f"change address bob {PASSWORDS['bob']} mallory@evil.example", sender="bob@example.org")
    assert pbm_env.replies() == []                  # the right password too: locked for everyone
    assert pbm_env.query("SELECT address FROM addresses WHERE user_id = 'bob'") == [("bob@example.org",)]


def test_one_multiple_mail_of_50_guesses_takes_over_nothing(pbm_env: PbmEnv) -> None:
    signed_up(pbm_env, "alice", "bob")
    lines = [f"change address bob guess{i}x mallory@evil.example" for i in range(49)]
    lines.append(f"change address bob {PASSWORDS['bob']} mallory@evil.example")
    pbm_env.mail("multiple", "\n".join(lines), sender="bob@example.org")
    [answers] = pbm_env.replies()                   # one mail collects the answers
    assert answers["Subject"] == "pbm test: the answers to your 5 commands"
    assert pbm_env.query("SELECT address FROM addresses WHERE user_id = 'bob'") == [("bob@example.org",)]
    # the right password on line 50, sent during the lock, is refused but not counted
    assert pbm_env.query("SELECT count(*) FROM password_failures WHERE subject = 'user:bob'") == [(49,)]


def test_a_move_from_a_strangers_address_is_told_to_the_player(pbm_env: PbmEnv) -> None:
    signed_up(pbm_env, "alice", "bob")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
    pbm_env.replies()
    pbm_env.mail(f"xiangqi move 101 bob {PASSWORDS['bob']} h10g8", sender="mallory@evil.example")
    mails = {str(m["To"]): m for m in pbm_env.replies()}
    assert set(mails) == {"mallory@evil.example", "bob@example.org", "alice@example.org"}
    mallory = mails["mallory@evil.example"]
    assert mallory["Reply-To"] is None and "pbm+" not in mallory.as_string()
    assert "The game mail went to bob's registered address" in " ".join(plain(mallory).split())
    bob = mails["bob@example.org"]
    assert bob["Reply-To"].startswith("pbm+xiangqi-101-bob-")
    assert "sent from mallory@evil.example, which is not one of your registered" in " ".join(plain(bob).split())


def test_50_challenge_lines_make_3_games(pbm_env: PbmEnv) -> None:
    signed_up(pbm_env, "alice", "bob")
    pbm_env.mail("multiple", "\n".join(["xiangqi challenge alice bob"] * 50))
    mails = pbm_env.replies()
    assert pbm_env.query("SELECT count(*) FROM games") == [(3,)]
    assert sum(str(m["To"]) == "bob@example.org" for m in mails) == 3
    assert len(mails) == 3 + 1                      # 3 to bob; alice's answers, the refusal too, in one


def test_no_table_holds_a_password_whatever_the_messages_status(pbm_env: PbmEnv) -> None:
    signed_up(pbm_env, "alice", "bob", "carol")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3", f"by the way {PASSWORDS['alice']}")
    pbm_env.mail(f"change password bob {PASSWORDS['bob']} x", Auto_Submitted="auto-replied")
    pbm_env.mail(f"change password bob {PASSWORDS['bob']} x", Precedence="bulk")
    pbm_env.mail(f"change password carol {PASSWORDS['carol']} x", List_Id="<games.example.org>")
    pbm_env.configure(smtp={"max_message_size": 2048})
    pbm_env.mail(f"change password carol {PASSWORDS['carol']} x", "x" * 4000)
    pbm_env.configure(smtp={"max_message_size": 25 * 1024 * 1024})
    failed = pbm_env.deliver(pbm_env.message(f"xiangqi move 101 bob {PASSWORDS['bob']} h10g8",
                                             sender="bob@example.org"), PBM_FAULT="command-error")
    assert failed.returncode == 0
    statuses = {row[0] for row in pbm_env.query("SELECT status FROM inbound")}
    assert statuses == {"processed", "automatic", "too_large", "failed"}
    found = []
    with sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3") as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                    found += [(table, p) for p in PASSWORDS.values() if p in text]
    assert len(tables) > 10 and found == []
    retried = pbm_env.run("inbound", "retry", str(pbm_env.query(
        "SELECT id FROM inbound WHERE status = 'failed'")[0][0]))
    assert retried.returncode == 0, retried.stderr          # the sealed bytes are still there to run
    assert "bob played h10g8" in " ".join(plain(m) for m in pbm_env.replies())
