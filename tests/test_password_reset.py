"""A forgotten password: a one-time code by mail to the registered addresses, or from an
administrator's command line; `password set` with it.  Through `pbm deliver` with real bytes."""
from __future__ import annotations

import re

from support.postoffice import plain
from support.processes import PbmEnv


def flat(mail) -> str:
    return " ".join(plain(mail).split())


def code_in(mail) -> str:
    return re.search(r"password set alice (\w+) NEWPASSWORD", plain(mail)).group(1)


def test_a_code_goes_to_the_registered_addresses_only_once_and_sets_a_new_password(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish alice@example.org alice@work.example.org")
    [ask] = [m for m in pbm_env.replies() if m["To"] == "alice@work.example.org"]
    pbm_env.reply(ask, "yes, mine")                     # confirmed: it gets mail from now on
    pbm_env.replies()
    pbm_env.mail("password reset alice", sender="mallory@example.org")
    mails = {m["To"]: m for m in pbm_env.replies()}
    assert set(mails) == {"alice@example.org", "alice@work.example.org", "mallory@example.org"}
    assert "password set" not in plain(mails["mallory@example.org"])
    code = code_in(mails["alice@example.org"])
    for _ in range(2):                  # more codes: each works alone, the first one too
        pbm_env.mail("password reset alice", sender="mallory@example.org")
        assert len(pbm_env.replies()) == 3
    pbm_env.mail("password reset alice", sender="mallory@example.org")      # no mail bomb
    [refused] = pbm_env.replies()
    assert refused["To"] == "mallory@example.org"
    assert "alice has been mailed 3 reset codes in the last day, the most this server sends" in flat(refused)

    pbm_env.mail("password set alice wrongcode N3w-secret", sender="mallory@example.org")
    [error] = pbm_env.replies()
    assert "That is not the code mailed for alice, or it has expired" in flat(error)
    pbm_env.mail(f"password set alice {code} short")
    [error] = pbm_env.replies()
    assert "a password is 8 to 64 characters" in flat(error) and code not in plain(error)
    pbm_env.mail(f"password set alice {code} N3w-secret")
    mails = {m["To"]: m for m in pbm_env.replies()}
    assert "The password of alice has been changed." in flat(mails["alice@example.org"])
    assert "The password of alice has been changed." in flat(mails["alice@work.example.org"])
    for mail in mails.values():
        assert "N3w-secret" not in plain(mail) and code not in plain(mail)
    pbm_env.mail(f"password set alice {code} An0ther-secret")              # used up
    [error] = pbm_env.replies()
    assert "That is not the code mailed for alice" in flat(error)
    pbm_env.mail("change password alice N3w-secret Th1rd-secret")
    done = {m["To"]: m for m in pbm_env.replies()}     # both addresses are told
    assert set(done) == {"alice@example.org", "alice@work.example.org"}


def test_an_administrator_prints_a_code(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    printed = pbm_env.run("user", "reset-password", "alice")
    assert printed.returncode == 0
    code = re.search(rb"password set alice (\w+) NEWPASSWORD", printed.stdout).group(1).decode()
    pbm_env.replies()
    pbm_env.mail(f"password set alice {code} N3w-secret")
    [done] = pbm_env.replies()
    assert "The password of alice has been changed." in flat(done)
    assert pbm_env.run("user", "reset-password", "nobody").returncode == 64
