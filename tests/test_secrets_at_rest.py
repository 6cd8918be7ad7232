"""Secrets at rest: files readable by the server alone, passwords masked in the stored
messages once processed, old bodies purged, reply tokens revoked by a password change.  Through
`pbm deliver` with real message bytes."""
from __future__ import annotations

import os
import stat

from support.postoffice import plain
from support.processes import PbmEnv


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_every_file_is_the_servers_alone_whatever_the_umask(pbm_env: PbmEnv) -> None:
    old = os.umask(0o022)                       # what a careless shell or MTA hands down
    try:
        pbm_env.mail("signup alice Sw0rdfish")
        pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
        pbm_env.mail("xiangqi challenge alice bob")     # a game mail: the secret is made
    finally:
        os.umask(old)
    files = list(pbm_env.data_dir.glob("*")) + list(pbm_env.maildir.glob("*/*"))
    assert {"pbm.sqlite3", "secret"} <= {path.name for path in files} and len(files) >= 6
    for path in files:
        expected = 0o700 if path.is_dir() else 0o600
        assert mode(path) == expected, (path, oct(mode(path)))
    assert mode(pbm_env.data_dir) == 0o700 and mode(pbm_env.maildir) == 0o700


def test_passwords_are_masked_in_the_stored_message_once_processed(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3", "My password Sw0rdfish, by the way.")
    pbm_env.mail("xiangqi move 101 bob Sw0rdfish h10g8", sender="bob@example.org")   # wrong one
    pbm_env.mail("multiple", "change password alice Sw0rdfish N3w-secret\nxiangqi show 101\n")
    rows = pbm_env.query("SELECT raw, redacted FROM inbound ORDER BY id")
    assert len(rows) == 6 and all(redacted == 1 for _, redacted in rows)
    everything = b"".join(raw for raw, _ in rows)
    for password in (b"Sw0rdfish", b"Hunter22", b"N3w-secret"):
        assert password not in everything
    move = rows[3][0].decode()
    assert "Subject: xiangqi move 101 alice ******** h3e3" in move
    assert "My password ********, by the way." in move and "Message-ID: <" in move
    # as its error quoted it: before a password is checked, only what is known to be harmless
    assert "Subject: xiangqi move 101 bob ******** ********" in rows[4][0].decode()
    assert "change password alice ******** ********" in rows[5][0].decode()


def test_bodies_are_purged_after_the_retention_but_failed_messages_stay_whole(pbm_env: PbmEnv) -> None:
    pbm_env.mail("help", "a long comment " * 100)
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3", "auto", Auto_Submitted="auto-replied")
    assert pbm_env.deliver(pbm_env.message("help", "failing"), PBM_FAULT="command-error").returncode == 0
    pbm_env.configure(server={"retention_days": 0})
    assert pbm_env.run("timers").returncode == 0
    rows = pbm_env.query("SELECT status, raw, redacted, sealed FROM inbound ORDER BY id")
    (_, help_raw, help_state, _), (auto_status, auto_raw, auto_state, _), \
        (fail_status, fail_raw, _, fail_sealed) = rows
    assert help_state == 2 and b"a long comment" not in help_raw and b"Message-ID: <" in help_raw
    assert b"Subject: help" in help_raw                 # redacted before, so the subject stays
    assert (auto_status, auto_state) == ("automatic", 2)
    assert b"Sw0rdfish" not in auto_raw and b"From: " in auto_raw
    assert b"Subject: xiangqi move ******** ******** ******** ********" in auto_raw
    # a failed message is redacted too; its bytes are kept sealed, for `pbm inbound retry`
    assert fail_status == "failed" and b"failing" not in fail_raw and b"failing" not in fail_sealed
    assert pbm_env.run("inbound", "retry", "3").returncode == 0
    assert pbm_env.query("SELECT status, sealed FROM inbound WHERE id = 3") == [("processed", None)]


def test_sent_replies_lose_their_bodies_after_the_retention(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("help")
    assert pbm_env.run("timers").returncode == 0        # within the retention: every body kept
    assert pbm_env.query("SELECT count(*) FROM outbox_bodies") == [(2,)]
    pbm_env.configure(server={"retention_days": 0})
    assert pbm_env.run("timers").returncode == 0
    assert pbm_env.query("SELECT count(*) FROM outbox_bodies") == [(0,)]
    rows = pbm_env.query("SELECT status, message_id, recipient, subject, sent_at FROM outbox ORDER BY id")
    assert len(rows) == 2 and all(row[0] == "sent" and all(row) for row in rows)
    shown = pbm_env.run("outbox", "show", "2")
    assert shown.returncode == 0 and "its body was dropped" in shown.stdout.decode()
    assert f"Subject: {rows[1][3]}" in shown.stdout.decode()


def test_a_password_change_revokes_the_reply_tokens(pbm_env: PbmEnv) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    turn = next(m for m in pbm_env.replies() if m["To"] == "alice@example.org" and m["Reply-To"])
    pbm_env.mail("change password alice Sw0rdfish N3w-secret")
    pbm_env.replies()
    pbm_env.reply(turn, "h3e3\n")
    [error] = pbm_env.replies()
    assert "no longer works" in " ".join(plain(error).split())
    assert pbm_env.query("SELECT count(*) FROM moves") == [(0,)]
    pbm_env.mail("xiangqi show 101")
    pbm_env.replies()
    pbm_env.mail("xiangqi move 101 alice N3w-secret h3e3")
    fresh = next(m for m in pbm_env.replies() if m["To"] == "bob@example.org")
    assert fresh["Reply-To"] != turn["Reply-To"]
    pbm_env.reply(fresh, "h10g8\n")                  # bob's tokens still work
    assert pbm_env.query("SELECT count(*) FROM moves") == [(2,)]
