"""An in-process post office for the command tests: real RFC 5322 bytes in, real bytes out.

Each mail is built with `email`, serialised, and handed to `pbm.intake.accept` -- the same function
`pbm deliver` and `pbm serve` call -- against a real SQLite file; the replies are read back as the
bytes the outbox queued and parsed again.  Only the process boundary is skipped (the subprocess and
SMTP tests cover it), so hundreds of mails stay fast.  The clock is the post office's own, so
timers can be tested by moving it on.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from pbm import intake
from pbm.commands.timing import timers
from pbm.config import load_config
from pbm.model.db import transaction
from pbm.model.store import open_db
from pbm.outbox import queue
from pbm.pictures import deferred

SERVER = "pbm@pbm.test"
# The post office's clock jumps by days between timer runs, which a server's heartbeat never does:
# outage credit (pbm.commands.timing.outages) stays off but for the tests that set their own.
NO_OUTAGES = 1e6        # hours
PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-pw", "root": "R00t-admin"}


class PostOffice:
    def __init__(self, root: Path, admins: tuple[str, ...] = ("root",), **server: object):
        """`server`: more [server] keys, e.g. challenge_needs_password=True."""
        config_path = root / "pbm.toml"
        admins_list = ", ".join(f'"{a}"' for a in admins)
        extra = "".join(f"{key} = {str(value).lower() if isinstance(value, bool) else value}\n"
                        for key, value in server.items())
        config_path.write_text(f'[server]\naddress = "{SERVER}"\nname = "pbm test"\nsecret = "test-secret"\n{extra}'
                               f'[storage]\ndata_dir = "{root / "var"}"\n'
                               f'[admins]\nusers = [{admins_list}]\n'
                               f'[clocks]\noutage_after = {NO_OUTAGES}\n')
        self.config = load_config(config_path)
        self.db = open_db(self.config)
        self.now = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)
        self.sent: list[bytes] = []         # every mail the server queued, as bytes
        self._last_outbox = 0

    def message(self, subject: str, body: str = "", sender: str = "alice@example.org",
                to: str = SERVER, **headers: str) -> EmailMessage:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = sender, to, subject
        msg["Date"] = formatdate()
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content(body)
        for name, value in headers.items():     # after set_content, which sets the Content-* ones
            msg[name.replace("_", "-")] = value
        return msg

    def send(self, subject: str, body: str = "", sender: str = "alice@example.org",
             to: str = SERVER, **headers: str) -> list[EmailMessage]:
        """Deliver one mail; returns the replies it caused."""
        msg = self.message(subject, body, sender, to, **headers)
        result = intake.accept(self.db, self.config, msg.as_bytes(policy=policy.SMTP), sender, [to],
                               now=self.now)
        assert result.status == "processed", result
        self.now += timedelta(seconds=1)
        return self._new_mail()

    def reply(self, mail: EmailMessage, body: str, sender: str | None = None,
              subject: str | None = None) -> list[EmailMessage]:
        """Answer a server mail the way a mail client does: to its Reply-To, with "Re:"."""
        return self.send(subject if subject is not None else f"Re: {mail['Subject']}",
                         body, sender or mail["To"], to=mail["Reply-To"] or mail["From"],
                         In_Reply_To=mail["Message-ID"], References=mail["Message-ID"])

    def tick(self, days: float) -> list[EmailMessage]:
        """Move the clock on and run the timers, as `pbm serve` does; returns the mail they sent."""
        self.now += timedelta(days=days)
        with transaction(self.db):
            queue.queue(self.db, self.config, timers.mails(self.db, self.config, self.now), self.now)
        return self._new_mail()

    def _new_mail(self) -> list[EmailMessage]:
        """The mails queued since the last look, as the sender hands them over (pictures drawn)."""
        rows = self.db.execute("SELECT id, raw FROM outbox_messages WHERE id > ? ORDER BY id",
                               [self._last_outbox]).fetchall()
        if rows:
            self._last_outbox = rows[-1][0]
        sent = [deferred.fill(raw) for _, raw in rows]
        self.sent += sent
        return [message_from_bytes(raw, policy=policy.default) for raw in sent]

    # --- shortcuts ------------------------------------------------------------------------------

    def signup(self, *users: str) -> None:
        for user in users:
            [welcome] = self.send(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
            assert welcome["Subject"] == f"Welcome to pbm test, {user}"

    def challenge(self, first: str = "alice", second: str = "bob", extra: str = "") -> int:
        mails = self.send(f"xiangqi challenge {extra} {first} {second}".replace("  ", " "),
                          sender=f"{first}@example.org")
        assert mails[0]["Subject"].startswith("New Xiangqi Board "), text(mails[0])
        return int(mails[0]["Subject"].split()[3])

    def move(self, board: int, user: str, move: str, body: str = "") -> list[EmailMessage]:
        return self.send(f"xiangqi move {board} {user} {PASSWORDS[user]} {move}", body,
                         sender=f"{user}@example.org")

    def assert_no_password_sent(self) -> None:
        """No mail the server queued holds any password used in the tests, in any encoding."""
        for raw in self.sent:
            decoded = message_from_bytes(raw, policy=policy.default)
            bodies = [part.get_content() for part in decoded.walk() if part.get_content_maintype() == "text"]
            everything = raw.decode("utf-8", "replace") + "".join(bodies) + str(decoded["Subject"])
            for password in PASSWORDS.values():
                assert password not in everything, f"password {password!r} in a mail:\n{everything}"


def opened(root: Path, *users: str, challenge: bool = False, **server: object) -> Iterator[PostOffice]:
    """A post office with `users` signed up (and alice's challenge of bob), and more `[server]`
    keys: the body of a fixture, which checks at the end that no mail held a password."""
    office = PostOffice(root, **server)
    office.signup(*users)
    if challenge:
        office.challenge()
    yield office
    office.assert_no_password_sent()


def plain(mail: EmailMessage) -> str:
    """The text/plain body (of a multipart mail: the part a text mail client shows)."""
    return mail.get_body(preferencelist=("plain",)).get_content()


def text(mail: EmailMessage) -> str:
    """The plain body, with the CRLF of the wire turned back into newlines."""
    return plain(mail).replace("\r\n", "\n")


def flat(mail: EmailMessage) -> str:
    """The body with all white space (line breaks of wrapped prose too) as single blanks."""
    return " ".join(text(mail).split())


def by_recipient(mails: list[EmailMessage]) -> dict[str, EmailMessage]:
    found = {}
    for mail in mails:
        assert mail["To"] not in found, f"two mails to {mail['To']}"
        found[mail["To"]] = mail
    return found
