"""Nothing echoed beyond bounds (issue 29), through real `pbm deliver` processes: an overlong
Message-ID is not quoted, no header line passes 998 characters, an error quotes a huge word cut
short, a stranger's error mail carries nobody's reply address, and a repeated option is refused."""
from __future__ import annotations

import re
from email import message_from_bytes, policy

from support.postoffice import flat
from support.processes import PbmEnv, wire

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}


def game(env: PbmEnv) -> None:
    for user, password in PASSWORDS.items():
        env.mail(f"signup {user} {password}", sender=f"{user}@example.org")
    env.mail("xiangqi challenge alice bob")
    env.replies()


def test_a_20_kb_message_id_is_not_quoted_and_no_header_line_passes_998(pbm_env):
    message = pbm_env.message("help")
    del message["Message-ID"]
    message["Message-ID"] = "<" + "a" * 20000 + "@b>"
    result = pbm_env.deliver(wire(message))
    assert result.returncode == 0
    [raw] = [path.read_bytes() for path in pbm_env.outbox_files()]
    header = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]         # the Maildir keeps LF
    assert max(map(len, header.split(b"\n"))) <= 998
    reply = message_from_bytes(raw, policy=policy.default)
    assert reply["In-Reply-To"] is None and reply["References"] is None


def test_a_300_kb_word_is_answered_within_bounds(pbm_env):
    game(pbm_env)
    word = "x" * 300_000
    pbm_env.mail(f"xiangqi conditional 101 bob {PASSWORDS['bob']}", f"{word}\n", sender="bob@example.org")
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} {word}", sender="alice@example.org")
    [first, second] = [path.read_bytes() for path in pbm_env.outbox_files()[-2:]]
    for raw in (first, second):
        assert len(raw) < 10_000
        text = message_from_bytes(raw, policy=policy.default).get_body(("plain",)).get_content()
        runs = [len(run) for run in re.findall(r"x{20,}", text)]
        assert runs and max(runs) <= 200 and max(map(len, text.splitlines())) <= 4 + 200  # indented quote


def test_a_strangers_error_mail_carries_no_reply_address(pbm_env):
    game(pbm_env)
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} a1a9", sender="thief@evil.example")
    [error] = pbm_env.replies()
    assert error["To"] == "thief@evil.example" and error["Subject"] == "Xiangqi Board 101 Error"
    assert error["Reply-To"] is None and "pbm+" not in flat(error)
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} a1a9", sender="alice@example.org")
    [own] = pbm_env.replies()
    assert own["Reply-To"].startswith("pbm+xiangqi-101-alice-")     # the player's own: as before


def test_a_repeated_option_is_refused(pbm_env):
    game(pbm_env)
    pbm_env.mail("xiangqi challenge --clock=10+1 --clock=1+0 alice bob")
    [error] = pbm_env.replies()
    assert "--clock=1+0 repeats an option given before it in the command" in flat(error)
    assert pbm_env.query("SELECT count(*) FROM games")[0][0] == 1
