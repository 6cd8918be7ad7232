"""pbm behind a real Postfix, set up as docs/operating.md says: the pipe transport (`pbm deliver`
as the system user of the pipe's `user=`) and LMTP to a running `pbm serve` on a socket in
Postfix's queue folder; the replies go back into Postfix by SMTP and land in the players'
Maildirs.  Each case is judged by Postfix's own log lines (status=sent, deferred, bounced).

Needs root (Postfix is started, pbm runs as the user `pbmtest`: .ci/setup makes it) and Postfix
(.ci/setup installs it); without root the tests are skipped, saying so."""
from __future__ import annotations

import email.utils
import grp
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import dkim
import pytest
from support.dns_stub import StubDNS, dkim_record
from support.postfix import WAIT, Postfix, base_folder
from support.postoffice import PASSWORDS
from support.processes import free_port, toml, wait_until, wire
from support.users import system_user, user_python

from pbm.outbox import dkim_keys as keys

pytestmark = pytest.mark.slow   # a real Postfix, real processes

PIPE_ADDRESS = "pbm@pbm.test"
LMTP_ADDRESS = "pbm@lmtp.test"
OLD_ADDRESSES = ["pbm+old@pbm.test", "pbm+older@pbm.test"]
MISPLACED_ADDRESS = "pbm+misplaced@pbm.test"
# The pipe as docs/operating.md gives it; as the README gave it before (no null_sender=: the null
# sender comes as MAILER-DAEMON; `--recipient ${recipient}`: `--recipient A B`); and the documented
# one for an installation whose data folder pbm cannot make.
PIPES = """\
pbm       unix  -       n       n       -       -       pipe
  flags=Rq null_sender= user={user} argv={pbm} --config {config}
  deliver --sender ${{sender}} --recipient=${{recipient}}
pbmold    unix  -       n       n       -       -       pipe
  flags=Rq user={user} argv={pbm} --config {config}
  deliver --sender ${{sender}} --recipient ${{recipient}}
pbmmisplaced unix  -    n       n       -       -       pipe
  flags=Rq null_sender= user={user} argv={pbm} --config {misplaced}
  deliver --sender ${{sender}} --recipient=${{recipient}}
"""


@dataclass
class Site:
    """The running Postfix and the pbm installations behind it."""
    postfix: Postfix
    pipe: Install               # pbm@pbm.test, by the pipe
    lmtp: Install               # pbm@lmtp.test, by LMTP to pbm serve
    misplaced: Install          # pbm+misplaced@pbm.test: its data folder in a folder of root's"""


class Install:
    """One pbm installation as the docs lay it out: a folder owned by the pbm user holding
    pbm.toml (0600) and the data folder pbm makes."""

    def __init__(self, root: Path, user, python: Path, data: Path | None = None):
        self.root, self.user, self.python = root, user, python
        root.mkdir(mode=0o750)
        os.chown(root, user.pw_uid, user.pw_gid)
        self.config = root / "pbm.toml"
        self.data = data or root / "var"        # made by pbm on first use

    def configure(self, address: str, outbound_port: int, outbound: dict | None = None, **sections: dict) -> None:
        """pbm.toml: the address, replies back to Postfix (with `outbound`'s keys too), a short
        busy_timeout (the locked case)."""
        self.config.write_text(toml({
            "server": {"address": address, "name": "pbm test"},
            "storage": {"data_dir": str(self.data), "busy_timeout": 2.0},
            "outbound": {"mode": "smtp", "host": "127.0.0.1", "port": outbound_port, **(outbound or {})},
            **sections}))
        self.config.chmod(0o600)
        os.chown(self.config, self.user.pw_uid, self.user.pw_gid)

    def as_user(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run([self.python, *args], capture_output=True, text=True, cwd=self.root,
                              user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[],
                              **kwargs)

    def query(self, sql: str) -> list:
        """Read the database as the pbm user (so that root never makes a file pbm cannot write)."""
        result = self.as_user("-c", "import json, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                                    "print(json.dumps(db.execute(sys.argv[2]).fetchall()))",
                              str(self.data / "pbm.sqlite3"), sql, check=True)
        return [tuple(row) for row in json.loads(result.stdout)]


@pytest.fixture(scope="module")
def mta() -> Iterator[Site]:
    user = system_user()
    python = user_python(user)
    base = base_folder()
    pipe = Install(base / "pipe", user, python)
    lmtp = Install(base / "lmtp", user, python)
    (base / "root-only").mkdir(mode=0o755)
    misplaced = Install(base / "misplaced", user, python, data=base / "root-only" / "var")
    postfix = None
    try:
        postfix = Postfix(base, PIPES.format(user=user.pw_name, pbm=python.parent / "pbm",
                                             config=pipe.config, misplaced=misplaced.config),
                          {PIPE_ADDRESS: "pbm:", LMTP_ADDRESS: "lmtp:unix:pbm/lmtp.sock",
                           MISPLACED_ADDRESS: "pbmmisplaced:",
                           **{address: "pbmold:" for address in OLD_ADDRESSES}},
                          ["pbm.test", "lmtp.test"])
        postfix.mailboxes("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
                          "judy", "kate")
        pipe.configure(PIPE_ADDRESS, postfix.port, outbound=dkim_keys(pipe), clocks={"digest_hour": 0})
        misplaced.configure(PIPE_ADDRESS, postfix.port)
        lmtp.configure(LMTP_ADDRESS, postfix.port, lmtp={"socket": str(postfix.queue / "pbm" / "lmtp.sock")},
                       smtp={"listen": f"127.0.0.1:{free_port()}"})
        # the socket's folder, as docs/operating.md says: pbm's, the MTA's group, setgid
        subprocess.run(["install", "-d", "-o", user.pw_name, "-g", "postfix", "-m", "2750",
                        str(postfix.queue / "pbm")], check=True)
        yield Site(postfix, pipe, lmtp, misplaced)
    finally:
        if postfix is not None:
            postfix.stop()
        shutil.rmtree(base, ignore_errors=True)


def dkim_keys(install: Install) -> dict[str, str]:
    """An RSA and an Ed25519 key in the installation's folder, its user's, and the keys that sign
    with them."""
    folder = install.root / "dkim"
    folder.mkdir(mode=0o700)
    for name, ed25519 in (("rsa", False), ("ed", True)):
        keys.new_key(folder / f"{name}.pem", ed25519)
    for path in (folder, *folder.iterdir()):
        os.chown(path, install.user.pw_uid, install.user.pw_gid)
    return {"dkim_selector": "pf2026", "dkim_key": str(folder / "rsa.pem"),
            "dkim_ed25519_selector": "pf2026e", "dkim_ed25519_key": str(folder / "ed.pem")}


def message(subject: str, sender: str, to: str, body: str = "", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Message-ID"] = email.utils.make_msgid(domain="example.org")
    msg["Date"] = email.utils.formatdate()
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body or "\n")
    return msg


def send(postfix: Postfix, msg: EmailMessage, rcpt_tos: list[str], mail_from: str | None = None) -> str:
    sender = msg["From"].addresses[0].addr_spec if mail_from is None else mail_from
    return postfix.send(wire(msg), sender, rcpt_tos)


def say(lines: list[str]) -> None:
    """The log lines the case turned on, for whoever reads the test's output (-s)."""
    for line in lines:
        print(line)


def test_a_game_through_the_pipe_transport(mta):
    postfix, pipe = mta.postfix, mta.pipe
    lines = play_game(postfix, PIPE_ADDRESS, "alice", "bob")
    assert all("relay=pbm," in line and "status=sent (delivered via pbm service" in line
               for line in lines), lines
    received = len(postfix.mails("alice", PIPE_ADDRESS) + postfix.mails("bob", PIPE_ADDRESS))

    def replies() -> list[str]:     # pbm's replies, delivered by Postfix into the Maildirs
        return re.findall(r"^.*: to=<(?:alice|bob)@example\.org>, relay=virtual, .*"
                          r"status=sent \(delivered to maildir\)$", postfix.log(), re.MULTILINE)
    assert wait_until(lambda: len(replies()) == received, timeout=WAIT), postfix.log()
    say(lines + replies()[-1:])
    assert pipe.query("SELECT count(*) FROM moves") == [(2,)]


def play_game(postfix: Postfix, server: str, red: str, black: str) -> list[str]:
    """Signups, a challenge, and a move each, played by answering the game mails: an answer
    reaches pbm by its `pbm+TOKEN@` envelope recipient alone, and every reply comes back through
    Postfix into the players' Maildirs.  The log lines of the deliveries to pbm."""
    lines = []
    for name in (red, black):
        queue_id = send(postfix, message(f"signup {name} {PASSWORDS.get(name, f'{name}-Passw0rd9')}",
                                         f"{name}@example.org", server), [server])
        lines += postfix.deliveries(queue_id)
        wait_mails(postfix, name, server, 1)
    send(postfix, message(f"xiangqi challenge {red} {black}", f"{red}@example.org", server), [server])
    board = wait_mails(postfix, red, server, 2)[-1]
    for name, move, other in ((red, "h3e3", black), (black, "h10g8", red)):
        token_address = str(board["Reply-To"])
        assert token_address.startswith("pbm+"), board["Subject"]
        answer = message(f"Re: {board['Subject']}", f"{name}@example.org", token_address, f"{move}\n")
        queue_id = send(postfix, answer, [token_address])
        [line] = postfix.deliveries(queue_id)
        assert f"to=<{token_address}>" in line, line
        lines.append(line)
        board = wait_mail_saying(postfix, other, server, f"{name} played {move}")
    return lines


def wait_mail_saying(postfix: Postfix, name: str, server: str, words: str) -> EmailMessage:
    """The game mail to name@example.org from that pbm that says `words`, once it is there."""
    def found() -> list[EmailMessage]:
        return [mail for mail in postfix.mails(name, server) if mail["Reply-To"]
                and words in mail.get_body(("plain",)).get_content()]
    if not wait_until(found, timeout=WAIT):
        pytest.fail(f"{name}@example.org got no mail saying {words!r} from {server}:\n{postfix.log()}")
    return found()[-1]


def wait_mails(postfix: Postfix, name: str, server: str, count: int) -> list[EmailMessage]:
    if not wait_until(lambda: len(postfix.mails(name, server)) >= count, timeout=WAIT):
        pytest.fail(f"{name}@example.org got no {count} mails from {server}:\n{postfix.log()}")
    return postfix.mails(name, server)


def test_two_pbm_addresses_are_one_message_recorded_once(mta):
    """`${recipient}` is both addresses: the pipe line's `--recipient=` form gives two options."""
    postfix, pipe = mta.postfix, mta.pipe
    msg = message("help", "erin@example.org", PIPE_ADDRESS, Cc="pbm+help@pbm.test")
    queue_id = send(postfix, msg, [PIPE_ADDRESS, "pbm+help@pbm.test"])
    lines = postfix.deliveries(queue_id, count=2)
    assert all("relay=pbm," in line and "status=sent" in line for line in lines), lines
    assert not re.search(rf"{queue_id}: .*status=bounced", postfix.log())
    say(lines)
    [(count, envelope_to)] = pipe.query(f"SELECT count(*), envelope_to FROM inbound "
                                        f"WHERE message_id = '{msg['Message-ID']}'")
    assert count == 1 and sorted(envelope_to.split(",")) == ["pbm+help@pbm.test", PIPE_ADDRESS]
    assert len({re.search(r"pbm\[\d+\]", line)[0] for line in lines}) == 1     # one pbm deliver
    [answer] = wait_mails(postfix, "erin", PIPE_ADDRESS, 1)       # one answer
    assert "help" in answer["Subject"].lower()


def test_a_null_sender_is_recorded_and_not_answered(mta):
    postfix, pipe = mta.postfix, mta.pipe
    msg = message("help", "frank@example.org", PIPE_ADDRESS)     # an auto-reply, no Auto-Submitted
    queue_id = send(postfix, msg, [PIPE_ADDRESS], mail_from="")
    [line] = postfix.deliveries(queue_id)
    assert "status=sent" in line, line
    say([line])
    assert pipe.query(f"SELECT envelope_from, status, detail FROM inbound WHERE message_id = "
                      f"'{msg['Message-ID']}'") == [("", "automatic", "null return path")]
    assert pipe.query("SELECT count(*) FROM outbox WHERE recipient = 'frank@example.org'") == [(0,)]
    assert postfix.maildir("frank") == []


def test_the_old_pipe_line_neither_bounces_two_recipients_nor_answers_mailer_daemon(mta):
    """What pbm deliver does itself, whatever the line: `--recipient A B` is two recipients (it
    exited 2 before, and Postfix bounced), and the sender MAILER-DAEMON is the null sender."""
    postfix, pipe = mta.postfix, mta.pipe
    msg = message("help", "grace@example.org", OLD_ADDRESSES[0], Cc=OLD_ADDRESSES[1])
    queue_id = send(postfix, msg, OLD_ADDRESSES, mail_from="")
    lines = postfix.deliveries(queue_id, count=2)
    say(lines)
    assert all("relay=pbmold," in line and "status=sent" in line for line in lines), lines
    [(envelope_from, envelope_to, status)] = pipe.query(
        f"SELECT envelope_from, envelope_to, status FROM inbound WHERE message_id = '{msg['Message-ID']}'")
    assert (envelope_from, sorted(envelope_to.split(",")), status) == ("", OLD_ADDRESSES, "automatic")
    assert pipe.query("SELECT count(*) FROM outbox WHERE recipient = 'grace@example.org'") == [(0,)]
    assert postfix.maildir("grace") == []


def test_a_data_folder_pbm_cannot_make_defers_with_one_sentence(mta):
    """Its log line names the folder and the user; once the folder is pbm's, `postqueue -f`."""
    postfix, misplaced = mta.postfix, mta.misplaced
    msg = message("help", "heidi@example.org", PIPE_ADDRESS)
    queue_id = send(postfix, msg, [MISPLACED_ADDRESS])
    [deferred] = postfix.deliveries(queue_id, status="deferred")
    assert (f"ERROR pbm: user {misplaced.user.pw_name} cannot create or write {misplaced.data} "
            f"(Permission denied), so the message is not recorded; exit 75 so that the MTA retries "
            f"(pbm doctor --user {misplaced.user.pw_name} says what to change)") in deferred, deferred
    os.chown(misplaced.data.parent, misplaced.user.pw_uid, misplaced.user.pw_gid)
    postfix.flush()
    [sent] = postfix.deliveries(queue_id, status="sent")
    say([deferred, sent])
    wait_mails(postfix, "heidi", PIPE_ADDRESS, 1)


def test_a_locked_database_defers_and_postqueue_f_delivers(mta):
    postfix, pipe = mta.postfix, mta.pipe
    locker = subprocess.Popen(
        [pipe.python, "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
                            "db.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.read()",
         str(pipe.data / "pbm.sqlite3")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=pipe.root,
        user=pipe.user.pw_uid, group=pipe.user.pw_gid, extra_groups=[])
    try:
        assert locker.stdout.readline() == "locked\n"
        msg = message("help", "alice@example.org", PIPE_ADDRESS)
        queue_id = send(postfix, msg, [PIPE_ADDRESS])
        [deferred] = postfix.deliveries(queue_id, status="deferred")
        assert "temporary failure" in deferred and "database is locked" in deferred, deferred
    finally:
        locker.communicate("")
    postfix.flush()
    [sent] = postfix.deliveries(queue_id, status="sent")
    say([deferred, sent])
    assert pipe.query(f"SELECT count(*) FROM inbound WHERE message_id = '{msg['Message-ID']}'") == [(1,)]


def test_a_game_over_lmtp_to_pbm_serve(mta):
    """The socket in the setgid folder gets Postfix's group; pbm doctor tries it as that group."""
    postfix, lmtp = mta.postfix, mta.lmtp
    with serving(lmtp, postfix.queue / "pbm" / "lmtp.sock") as socket_path:
        stat_ = socket_path.stat()
        assert (stat_.st_gid, stat_.st_mode & 0o777) == (grp.getgrnam("postfix").gr_gid, 0o660)
        as_pbm = lmtp.as_user("-m", "pbm", "--config", str(lmtp.config), "doctor").stdout
        assert "by its modes, user pbmtest and group postfix can connect" in as_pbm, as_pbm
        line = doctor_line(lmtp)
        assert "tried as group postfix ([lmtp] socket_group, else the folder's): pbm serve answers" in line
        print(line)
        lines = play_game(postfix, LMTP_ADDRESS, "carol", "dave")
        say(lines)
        assert all("relay=mx.pbm.test[pbm/lmtp.sock]" in line and
                   "status=sent (250 2.0.0 Message accepted (processed))" in line for line in lines), lines
        assert lmtp.query("SELECT count(*) FROM moves") == [(2,)]


def test_a_socket_postfix_cannot_open_defers_and_doctor_says_who_can(mta):
    """The socket as pbm made it before `socket_group`: the pbm user's own group.  Postfix defers
    (nothing is lost), pbm doctor names who can connect; fixed, `postqueue -f` delivers."""
    postfix, lmtp = mta.postfix, mta.lmtp
    socket_path = postfix.queue / "pbm" / "lmtp.sock"
    settings = {"socket": str(socket_path)}
    lmtp.configure(LMTP_ADDRESS, postfix.port, smtp={"listen": f"127.0.0.1:{free_port()}"},
                   lmtp={**settings, "socket_group": lmtp.user.pw_name})
    msg = message("help", "carol@example.org", LMTP_ADDRESS)
    with serving(lmtp, socket_path):
        line = doctor_line(lmtp)
        assert ("the MTA's group pbmtest cannot enter" in line and "(drwxr-s--- pbmtest:postfix)" in line
                and "if the MTA's group is postfix, leave [lmtp] socket_group unset" in line), line
        print(line)
        queue_id = send(postfix, msg, [LMTP_ADDRESS])
        [deferred] = postfix.deliveries(queue_id, status="deferred")
        assert "connect to mx.pbm.test[pbm/lmtp.sock]: Permission denied" in deferred, deferred
    lmtp.configure(LMTP_ADDRESS, postfix.port, smtp={"listen": f"127.0.0.1:{free_port()}"}, lmtp=settings)
    with serving(lmtp, socket_path):
        postfix.flush()
        [sent] = postfix.deliveries(queue_id, status="sent")
    say([deferred, sent])
    assert lmtp.query(f"SELECT count(*) FROM inbound WHERE message_id = '{msg['Message-ID']}'") == [(1,)]


@contextmanager
def serving(install: Install, socket_path: Path) -> Iterator[Path]:
    """`pbm serve` running as the pbm user, until the block ends (then stopped: exit 0)."""
    socket_path.unlink(missing_ok=True)
    server = subprocess.Popen([install.python, "-m", "pbm", "--config", str(install.config), "serve"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=install.root,
                              user=install.user.pw_uid, group=install.user.pw_gid, extra_groups=[])
    try:
        if not wait_until(lambda: socket_path.is_socket() or server.poll() is not None, timeout=WAIT) \
                or server.poll() is not None:
            pytest.fail(f"pbm serve made no socket at {socket_path}")
        yield socket_path
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0, server.stderr.read()


def doctor_line(install: Install) -> str:
    """What `pbm doctor --user pbmtest`, run as root, says of the LMTP socket."""
    result = subprocess.run([install.python, "-m", "pbm", "--config", str(install.config), "doctor",
                             "--user", install.user.pw_name], capture_output=True, text=True)
    return next(line for line in result.stdout.splitlines() if line.startswith("lmtp:"))


def test_every_kind_of_mail_arrives_through_postfix_with_good_dkim_signatures(mta):
    """Answers, board mails, an observer's mails, a digest, an end-of-game notice: each signed
    twice by pbm as it leaves, and both signatures still good in the Maildir Postfix wrote."""
    postfix, pipe = mta.postfix, mta.pipe
    play_game(postfix, PIPE_ADDRESS, "ivan", "judy")
    send(postfix, message(f"signup kate {PASSWORDS.get('kate', 'kate-Passw0rd9')}", "kate@example.org",
                          PIPE_ADDRESS), [PIPE_ADDRESS])
    wait_mails(postfix, "kate", PIPE_ADDRESS, 1)
    [(board,)] = pipe.query("SELECT max(board) FROM games")
    for sender, subject, told in (
            ("kate", f"xiangqi subscribe {board} kate kate-Passw0rd9", "kate"),
            ("judy", "set judy judy-Passw0rd9 digest=daily", "judy"),
            ("judy", "xiangqi notify judy judy-Passw0rd9", "judy"),
            ("ivan", f"xiangqi move {board} ivan ivan-Passw0rd9 h1g3", "kate")):
        before = len(postfix.mails(told, PIPE_ADDRESS))
        send(postfix, message(subject, f"{sender}@example.org", PIPE_ADDRESS), [PIPE_ADDRESS])
        wait_mails(postfix, told, PIPE_ADDRESS, before + 1)
    before = len(postfix.mails("judy", PIPE_ADDRESS))
    pipe.as_user("-m", "pbm", "--config", str(pipe.config), "timers", check=True)
    [*_, digest] = wait_mails(postfix, "judy", PIPE_ADDRESS, before + 1)
    assert "game is waiting for your move" in digest.get_body(("plain",)).get_content()
    before += 1
    send(postfix, message(f"xiangqi resign {board} judy judy-Passw0rd9", "judy@example.org", PIPE_ADDRESS),
         [PIPE_ADDRESS])
    wait_mails(postfix, "judy", PIPE_ADDRESS, before + 2)   # the game's end, and the notice
    dns = StubDNS({(f"{selector}._domainkey.pbm.test", "TXT"): [dkim_record(pipe.root / "dkim" / name)]
                   for selector, name in (("pf2026", "rsa.pem"), ("pf2026e", "ed.pem"))})
    try:
        kinds = set()
        for name in ("ivan", "judy", "kate"):
            for path in postfix.maildir(name):
                wire_bytes = path.read_bytes().replace(b"\n", b"\r\n")
                checked = dkim.DKIM(wire_bytes)
                assert checked.verify(idx=0, dnsfunc=dns.txt) and checked.verify(idx=1, dnsfunc=dns.txt), path
                mail = email.message_from_bytes(wire_bytes)
                kinds.add((str(mail["Feedback-ID"]).split(":")[0], bool(mail["List-Unsubscribe"])))
                assert b"Return-Path: <pbm+" in wire_bytes      # the stream's envelope sender
        assert kinds == {("transactional", False), ("subscribed", True)}
    finally:
        dns.close()
