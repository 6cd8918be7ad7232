"""`pbm deliver`: real messages piped into a real subprocess, recorded in a real SQLite file."""
from __future__ import annotations

import sqlite3
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from support.postoffice import plain
from support.processes import PbmEnv, wire

EX_TEMPFAIL = 75


def inbound_rows(env: PbmEnv) -> list[tuple]:
    return env.query("SELECT status, detail FROM inbound ORDER BY id")


def test_a_command_is_answered_and_recorded(pbm_env: PbmEnv) -> None:
    pbm_env.mail("help")

    replies = pbm_env.replies()
    assert replies and all(r["To"] == "alice@example.org" for r in replies)
    reply = replies[0]
    assert reply["From"].addresses[0].addr_spec == pbm_env.address
    assert reply["From"].addresses[0].display_name == "pbm test"
    assert reply["Auto-Submitted"] in ("auto-replied", "auto-generated")
    assert reply["Message-ID"] and reply["Date"]
    assert inbound_rows(pbm_env) == [("processed", None)]
    assert {s for (s,) in pbm_env.query("SELECT status FROM outbox")} == {"sent"}


def test_same_message_twice_is_answered_once(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")
    assert pbm_env.deliver(msg).returncode == 0
    first = pbm_env.replies()

    again = pbm_env.deliver(msg)

    assert again.returncode == 0
    assert first and pbm_env.replies() == []
    assert pbm_env.query("SELECT count(*) FROM inbound") == [(1,)]


def test_without_message_id_the_bytes_are_the_key(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help")
    del msg["Message-ID"]
    pbm_env.deliver(msg)
    assert pbm_env.replies()

    pbm_env.deliver(msg)
    assert pbm_env.replies() == []
    [(key,)] = pbm_env.query("SELECT dedup_key FROM inbound")
    assert key.startswith("sha256:")

    msg.replace_header("Subject", "help ")   # other bytes: another message
    pbm_env.deliver(msg)
    assert pbm_env.replies()


def _report() -> EmailMessage:
    """A delivery status notification, as an MTA sends it."""
    report = MIMEMultipart("report", report_type="delivery-status")
    report["From"] = "Mail Delivery System <bounces@mx.example.org>"
    report.attach(MIMEText("Your message could not be delivered."))
    status = EmailMessage()
    status.set_content("Reporting-MTA: dns; mx.example.org\n", subtype="delivery-status")
    report.attach(status)
    return report


AUTOMATIC = {
    "auto-submitted auto-replied": dict(headers={"Auto_Submitted": "auto-replied"}),
    "auto-submitted auto-generated": dict(headers={"Auto_Submitted": "auto-generated; type=vacation"}),
    "precedence bulk": dict(headers={"Precedence": "bulk"}),
    "precedence list": dict(headers={"Precedence": "list"}),
    "precedence junk": dict(headers={"Precedence": "Junk"}),
    "list-id": dict(headers={"List_Id": "Players <players.lists.example.org>"}),
    "list-unsubscribe": dict(headers={"List_Unsubscribe": "<mailto:leave@lists.example.org>"}),
    "precedence auto_reply": dict(headers={"Precedence": "auto_reply"}),
    "x-autoreply": dict(headers={"X_Autoreply": "yes"}),
    "x-autorespond": dict(headers={"X_Autorespond": "Out of office"}),
    "empty auto-submitted": dict(headers={"Auto_Submitted": ""}),
    "mailer-daemon": dict(sender="MAILER-DAEMON@mx.example.org"),
    "postmaster": dict(sender="postmaster@example.org"),
    "own address": dict(sender="pbm@pbm.test"),
    "own token address": dict(sender="pbm+xiangqi-101-alice-x@PBM.test"),
    "null envelope sender": dict(mail_from=""),
    "null return-path header": dict(headers={"Return_Path": "<>"}),
    "mailer-daemon envelope": dict(mail_from="MAILER-DAEMON@mx.example.org"),
    "postfix pipe's null sender": dict(mail_from="MAILER-DAEMON"),    # pipe(8) without null_sender=
    "angle brackets null sender": dict(mail_from="<>"),
}


@pytest.mark.parametrize("kind", AUTOMATIC)
def test_automatic_mail_is_recorded_and_never_answered(pbm_env: PbmEnv, kind: str) -> None:
    case = AUTOMATIC[kind]
    msg = pbm_env.message("help", sender=case.get("sender", "alice@example.org"),
                          **case.get("headers", {}))

    result = pbm_env.deliver(msg, mail_from=case.get("mail_from"))

    assert result.returncode == 0
    assert pbm_env.replies() == []
    [(status, detail)] = inbound_rows(pbm_env)
    assert status == "automatic" and detail


@pytest.mark.parametrize("sender", ["MAILER-DAEMON", "<>", ""])
def test_every_spelling_of_the_null_sender_is_stored_as_empty(pbm_env: PbmEnv, sender: str) -> None:
    assert pbm_env.deliver(pbm_env.message("help"), mail_from=sender).returncode == 0
    assert pbm_env.query("SELECT envelope_from, status, detail FROM inbound") == [
        ("", "automatic", "null return path")]
    assert pbm_env.replies() == []


@pytest.mark.parametrize("form", ["--recipient A B", "--recipient=A --recipient=B"])
def test_two_recipients_in_either_form_are_recorded_once(pbm_env: PbmEnv, form: str) -> None:
    """Postfix's pipe expands `--recipient ${recipient}` to `--recipient A B`, and
    `--recipient=${recipient}` to `--recipient=A --recipient=B`, when a message has two."""
    second = "pbm+help@pbm.test"
    args = {"--recipient A B": ["--recipient", pbm_env.address, second],
            "--recipient=A --recipient=B": [f"--recipient={pbm_env.address}", f"--recipient={second}"]}
    result = pbm_env.run("deliver", "--sender", "alice@example.org", *args[form],
                         input=wire(pbm_env.message("help")))
    assert result.returncode == 0, result.stderr
    assert pbm_env.query("SELECT count(*), envelope_to, status FROM inbound") == [
        (1, f"{pbm_env.address},{second}", "processed")]
    assert len(pbm_env.replies()) == 1


@pytest.mark.parametrize("args", [["--bogus"], ["--recipient"], ["--sender"]])
def test_wrong_usage_of_deliver_defers_instead_of_bouncing(pbm_env: PbmEnv, args: list[str]) -> None:
    """Postfix bounces on argparse's 2 (and on 64): a move must wait for the operator instead."""
    result = pbm_env.run("deliver", *args, input=wire(pbm_env.message("help")))
    assert result.returncode == EX_TEMPFAIL
    assert b"exit 75 so that the MTA retries" in result.stderr
    assert not (pbm_env.data_dir / "pbm.sqlite3").exists()


def test_wrong_usage_of_other_commands_exits_64(pbm_env: PbmEnv) -> None:
    assert pbm_env.run("outbox", "--limit", "many").returncode == 64
    assert pbm_env.run("no-such-command").returncode == 64


def test_delivery_report_is_never_answered(pbm_env: PbmEnv) -> None:
    assert pbm_env.deliver(_report().as_bytes()).returncode == 0
    assert pbm_env.replies() == []
    assert inbound_rows(pbm_env) == [("automatic", "delivery report (multipart/report)")]


def test_auto_submitted_no_is_a_person(pbm_env: PbmEnv) -> None:
    pbm_env.mail("help", Auto_Submitted="no")
    assert pbm_env.replies()


def test_odd_encodings_and_broken_mime_are_answered(pbm_env: PbmEnv) -> None:
    unknown_charset = (b"From: alice@example.org\r\nTo: pbm@pbm.test\r\nSubject: help\r\n"
                       b"Message-ID: <c1@example.org>\r\nContent-Type: text/plain; charset=x-martian\r\n"
                       b"\r\nGr\xfc\xdfe\r\n")
    broken = (b"From: alice@example.org\r\nTo: pbm@pbm.test\r\nSubject: help\r\n"
              b"Message-ID: <c2@example.org>\r\nContent-Type: multipart/mixed; boundary=\"never\"\r\n"
              b"\r\n--never\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!\r\n")
    html = EmailMessage()
    html["From"], html["To"], html["Subject"] = "alice@example.org", "pbm@pbm.test", "help"
    html.set_content("<p>only <b>html</b></p>", subtype="html", charset="latin-1")

    for raw in (unknown_charset, broken, bytes(html)):
        result = pbm_env.deliver(raw)
        assert result.returncode == 0, result.stderr
        assert pbm_env.replies()
    assert [s for s, _ in inbound_rows(pbm_env)] == ["processed"] * 3


def test_ten_megabyte_attachment(pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("help", "see the attached photo")
    msg.add_attachment(bytes(range(256)) * (10 * 4096), maintype="image", subtype="jpeg",
                       filename="board.jpg")
    raw = bytes(msg)
    assert len(raw) > 13_000_000

    result = pbm_env.deliver(raw)

    assert result.returncode == 0, result.stderr
    assert pbm_env.replies()
    [(status, size, kept)] = pbm_env.query("SELECT status, size, length(raw) FROM inbound")
    assert (status, size) == ("processed", len(raw)) and kept < 2000     # the attachment is not kept


def test_over_the_size_limit_the_sender_is_told(pbm_env: PbmEnv) -> None:
    """deliver's decision: keep the header, tell the sender in words, exit 0 (nothing for the MTA
    to retry or bounce; the sender still has the message)."""
    pbm_env.configure(smtp={"max_message_size": 65536})
    msg = pbm_env.message("help", "x" * 70000)
    raw = bytes(msg)

    result = pbm_env.deliver(raw)

    assert result.returncode == 0
    [reply] = pbm_env.replies()
    assert reply["To"] == "alice@example.org"
    assert reply["In-Reply-To"] == msg["Message-ID"]
    text = plain(reply)
    assert f"{len(raw)} bytes" in text and "65536" in text and "was not read" in text
    [(status, size, kept)] = pbm_env.query("SELECT status, size, raw FROM inbound")
    assert (status, size) == ("too_large", len(raw))
    assert kept.startswith(b"From: alice@example.org") and b"xxxx" not in kept

    assert pbm_env.deliver(raw).returncode == 0      # delivered again: told once
    assert pbm_env.replies() == []


def test_database_locked_exits_75_and_keeps_nothing(pbm_env: PbmEnv) -> None:
    pbm_env.configure(storage={"busy_timeout": 0.2})
    pbm_env.mail("help")                # creates the database
    pbm_env.replies()
    lock = sqlite3.connect(pbm_env.data_dir / "pbm.sqlite3", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")     # another writer holds the lock
    msg = pbm_env.message("help")
    try:
        result = pbm_env.deliver(msg)
    finally:
        lock.execute("ROLLBACK")
        lock.close()

    assert result.returncode == EX_TEMPFAIL
    assert b"database is locked" in result.stderr
    assert pbm_env.replies() == []
    assert pbm_env.deliver(msg).returncode == 0         # the MTA's retry
    assert pbm_env.replies()


def test_unwritable_data_dir_exits_75(pbm_env: PbmEnv, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    pbm_env.configure(storage={"data_dir": str(blocker / "var")})
    assert pbm_env.deliver(pbm_env.message("help")).returncode == EX_TEMPFAIL


def test_bad_config_exits_75_for_the_mta(pbm_env: PbmEnv) -> None:
    pbm_env.configure(smtp={"max_mesage_size": 1})
    result = pbm_env.deliver(pbm_env.message("help"))
    assert result.returncode == EX_TEMPFAIL
    assert b"unknown key 'max_mesage_size' in [smtp]" in result.stderr


def test_a_bug_in_a_command_keeps_the_message_and_tells_everyone(pbm_env: PbmEnv) -> None:
    pbm_env.configure(admins={"users": ["root"], "notify": ["ops@example.org"]})
    msg = pbm_env.message("signup alice Sw0rdfish-secret", "body words")

    result = pbm_env.deliver(msg, PBM_FAULT="command-error")

    assert result.returncode == 0       # durably recorded: nothing for the MTA to retry
    player, admin = pbm_env.replies()
    assert player["To"] == "alice@example.org" and player["In-Reply-To"] == msg["Message-ID"]
    assert "internal error" in plain(player) and "kept" in plain(player)
    assert admin["To"] == "ops@example.org" and "InjectedFault" in plain(admin)
    [(status, detail)] = inbound_rows(pbm_env)
    assert status == "failed" and "pbm.faults.InjectedFault" in detail and "intake.py" in detail
    for text in (result.stderr, detail.encode(), bytes(player), bytes(admin)):
        assert b"Sw0rdfish" not in text and b"body words" not in text
    assert pbm_env.query("SELECT count(*) FROM outbox WHERE inbound_id = 1") == [(2,)]



def test_without_admin_addresses_the_error_mail_says_nobody_was_mailed_and_retry_answers(
        pbm_env: PbmEnv) -> None:
    msg = pbm_env.message("signup alice Sw0rdfish-secret")
    assert pbm_env.deliver(msg, PBM_FAULT="command-error").returncode == 0
    [player] = pbm_env.replies()
    text = " ".join(plain(player).split())
    assert "administrators were told" not in text and "no address to tell its administrators" in text

    listing = pbm_env.run("inbound", "failed")
    assert listing.returncode == 0 and msg["Message-ID"].encode() in listing.stdout
    assert b"InjectedFault" in listing.stdout and b"Sw0rdfish" not in listing.stdout
    retried = pbm_env.run("inbound", "retry", "1")            # the fault is gone now
    assert retried.returncode == 0, retried.stderr
    [welcome] = pbm_env.replies()
    assert welcome["To"] == "alice@example.org" and "alice" in plain(welcome)
    assert inbound_rows(pbm_env) == [("processed", None)]
    assert pbm_env.run("inbound", "failed").stdout == b"none: no message has failed with an internal error\n"
    again = pbm_env.run("inbound", "retry", "1")
    assert again.returncode == 64 and b"did not fail (it is processed)" in again.stderr
    assert pbm_env.replies() == []

def _raw(header: str, value: str, message_id: str) -> bytes:
    lines = {"From": "alice@example.org", "To": "pbm@pbm.test", "Subject": "help",
             "Message-ID": message_id}
    lines[header] = value
    return "".join(f"{name}: {text}\r\n" for name, text in lines.items()).encode() + b"\r\nhello\r\n"


@pytest.mark.parametrize("charset", ["idna", "punycode", "x-no-such-charset"])
@pytest.mark.parametrize(("header", "value", "automatic"), [
    ("From", "=?{cs}?q?al=C3=A9=FF?= <alice@example.org>", False),
    ("Subject", "=?{cs}?q?help=FF?=", False),
    ("Auto-Submitted", "=?{cs}?q?auto-replied=FF?=", True),
    ("List-Id", "=?{cs}?q?players=FF?= <players.example.org>", True),
])
def test_undecodable_header_words_are_accepted_once(pbm_env: PbmEnv, charset: str, header: str,
                                                    value: str, automatic: bool) -> None:
    """RFC 2047 words in charsets Python cannot use for mail text (idna and punycode raise whatever
    the error handler says; an unknown name has no codec) are read as unknown charsets: the message
    is recorded and answered once (never, when automatic), and `pbm deliver` exits 0 -- a message
    that cannot be decoded is a permanent condition, and 75 would only make the MTA retry it."""
    raw = _raw(header, value.format(cs=charset), f"<{charset}-{header}@example.org>")
    for _ in range(2):
        result = pbm_env.deliver(raw)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert len(pbm_env.replies()) == (0 if automatic else 1)
    [(status, _)] = inbound_rows(pbm_env)
    assert status == ("automatic" if automatic else "processed")


def test_any_auto_submitted_header_but_no_counts(pbm_env: PbmEnv) -> None:
    """RFC 3834: a message may carry several Auto-Submitted headers; one that is not "no" is enough."""
    raw = _raw("Auto-Submitted", "no", "<two-auto@example.org>").replace(
        b"Auto-Submitted: no\r\n", b"Auto-Submitted: no\r\nAuto-Submitted: auto-generated\r\n")
    assert pbm_env.deliver(raw).returncode == 0
    assert pbm_env.replies() == []
    assert inbound_rows(pbm_env)[0][0] == "automatic"


def test_mime_nested_a_thousand_levels_deep_is_read_as_its_header(pbm_env: PbmEnv) -> None:
    """The `email` parser runs out of stack on such a message; its header is still read, so the
    subject's command is answered, once, and nothing is left for the MTA to retry."""
    depth = 1000
    lines = ["From: alice@example.org", "To: pbm@pbm.test", "Subject: help",
             "Message-ID: <deep@example.org>", "MIME-Version: 1.0"]
    for level in range(depth):
        lines += [f'Content-Type: multipart/mixed; boundary="b{level}"', "", f"--b{level}"]
    lines += ["Content-Type: text/plain", "", "hello"] + [f"--b{level}--" for level in reversed(range(depth))]
    raw = "\r\n".join(lines).encode() + b"\r\n"
    for _ in range(2):
        result = pbm_env.deliver(raw)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert len(pbm_env.replies()) == 1
    assert inbound_rows(pbm_env) == [("processed", None)]
