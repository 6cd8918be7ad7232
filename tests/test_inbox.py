"""Mail that reaches the inbox, through real `pbm deliver`, `pbm timers` and `pbm serve` processes:
every mail signed twice (rsa-sha256 and ed25519-sha256, keys made by `pbm dkim new`) and verified
by dkimpy with the DNS answers of a stub server on loopback; the two streams (envelope sender,
Feedback-ID), RFC 8058's one-click unsubscribe on subscribed mail only -- taken by one POST to a
running `pbm serve` and by one mail to its mailto:, forged and spent tokens changing nothing --
and what comes back: a bounce and an ARF complaint, counted per stream."""
from __future__ import annotations

import re
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from email import message_from_bytes, policy
from email.message import EmailMessage

import dkim
import pytest
from support.dns_stub import StubDNS, dkim_record
from support.postoffice import plain
from support.processes import PbmEnv, free_port

pytestmark = pytest.mark.slow   # real processes and a server

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-pw"}
DOMAIN = "pbm.test"
# days ago at noon, so that every mail queued at a later game time is due now
NOW = (datetime.now(timezone.utc) - timedelta(days=4)).replace(hour=12, minute=0, second=0, microsecond=0)


class Site:
    """pbm_env set up as docs/operating.md's "Getting into the inbox" says, and its DNS."""

    def __init__(self, env: PbmEnv):
        self.env = env
        for selector, kind in (("s2026", []), ("e2026", ["--ed25519"])):
            made = env.run("dkim", "new", selector, *kind)
            assert made.returncode == 0, made.stderr
            assert f"{selector}._domainkey.{DOMAIN}. IN TXT" in made.stdout.decode()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env.configure(outbound={"dkim_selector": "s2026", "dkim_ed25519_selector": "e2026",
                                "bounce_address": f"bounces@{DOMAIN}"},
                      web={"listen": f"127.0.0.1:{self.port}", "base_url": self.base},
                      clocks={"digest_hour": 0})
        self.dns = StubDNS({(f"{selector}._domainkey.{DOMAIN}", "TXT"):
                            [dkim_record(env.data_dir / "dkim" / f"{selector}.pem")]
                            for selector in ("s2026", "e2026")})
        self.mails: list[tuple[bytes, EmailMessage]] = []

    def send(self, user: str, subject: str, day: int = 0, to: str | None = None) -> list[EmailMessage]:
        result = self.env.deliver(self.env.message(subject, sender=f"{user}@example.org", to=to),
                                  mail_from=f"{user}@example.org", rcpt_to=to or self.env.address,
                                  PBM_NOW=(NOW + timedelta(days=day)).isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return self.new()

    def timers(self, day: int) -> list[EmailMessage]:
        result = self.env.run("timers", PBM_NOW=(NOW + timedelta(days=day)).isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return self.new()

    def new(self) -> list[EmailMessage]:
        """The mails sent since the last look, each kept with its bytes as they left."""
        seen = {mail["Message-ID"] for _, mail in self.mails}
        found = []
        for path in self.env.outbox_files():
            raw = path.read_bytes()
            mail = message_from_bytes(raw, policy=policy.default)
            if mail["Message-ID"] not in seen:
                self.mails.append((raw, mail))
                found.append(mail)
        return found

    def signatures(self, raw: bytes) -> list[bytes]:
        """The algorithms of the mail's DKIM signatures that verify with the stub's answers."""
        wire = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        algorithms = re.findall(rb"^DKIM-Signature:.*?\ba=([\w-]+)", wire, re.MULTILINE | re.DOTALL)
        checked = dkim.DKIM(wire)
        return [algorithm for i, algorithm in enumerate(algorithms)
                if checked.verify(idx=i, dnsfunc=self.dns.txt)]

    def prefs(self, user: str) -> str:
        return self.env.query("SELECT preferences FROM users WHERE id = ?", (user,))[0][0]


def post(url: str) -> int:
    """RFC 8058's POST, as a mail provider makes it."""
    request = urllib.request.Request(url, data=b"List-Unsubscribe=One-Click", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def links(mail: EmailMessage) -> tuple[str, str]:
    """The HTTPS and mailto: URIs of a List-Unsubscribe."""
    found = re.findall(r"<([^>]+)>", str(mail["List-Unsubscribe"]))
    return next(u for u in found if u.startswith("http")), next(u for u in found if u.startswith("mailto:"))


@pytest.fixture
def site(pbm_env: PbmEnv):
    built = Site(pbm_env)
    yield built
    built.dns.close()


def test_every_mail_signed_subscribed_mail_unsubscribed_by_one_post_and_by_one_mail(site: Site) -> None:
    for user, password in PASSWORDS.items():
        site.send(user, f"signup {user} {password}")
    site.send("alice", "xiangqi challenge alice bob")
    site.send("carol", "xiangqi subscribe 101 carol c4rol-pw")
    site.send("bob", "set bob Hunter22 digest=daily")
    moved = site.send("alice", "xiangqi move 101 alice Sw0rdfish h3e3")
    [digest] = site.timers(0)
    assert digest["To"] == "bob@example.org" and "your move in 1 game" in digest["Subject"]
    [observed] = [mail for mail in moved if mail["To"] == "carol@example.org"]
    [board] = [mail for mail in moved if mail["To"] == "bob@example.org"]

    # every mail so far: signed twice, both signatures good; only subscribed mail can be unsubscribed
    subscribed = {digest["Message-ID"], observed["Message-ID"]}
    for raw, mail in site.mails:
        assert site.signatures(raw) == [b"rsa-sha256", b"ed25519-sha256"], mail["Subject"]
        stream = "subscribed" if mail["Message-ID"] in subscribed else "transactional"
        assert str(mail["Feedback-ID"]).startswith(f"{stream}:"), (mail["Subject"], mail["Feedback-ID"])
        if stream == "subscribed":
            assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            assert links(mail)[0].startswith(f"{site.base}/u/unsub-subscribed-")
        else:
            assert mail["List-Unsubscribe"] is None and mail["List-Unsubscribe-Post"] is None
    assert board["Feedback-ID"] == f"transactional:xiangqi:pbm:{DOMAIN}"
    assert digest["Feedback-ID"] == f"subscribed:server:pbm:{DOMAIN}"
    assert site.env.query("SELECT stream, count(*) FROM outbox GROUP BY stream") == [
        ("subscribed", 2), ("transactional", len(site.mails) - 2)]

    # one POST to the running server turns bob's subscribed mail off; forged and spent tokens do nothing
    url, _mailto = links(digest)
    server = site.env.start_server(PBM_NOW=NOW.isoformat())    # its timers: the day's digest is sent
    try:
        # the observer's mail links the game's public page, which needs no secret
        public = f"{site.base}/p/xiangqi-101"
        assert public in plain(observed) and "/g/" not in plain(observed)
        with urllib.request.urlopen(public, timeout=30) as page:
            assert page.status == 200 and "alice" in page.read().decode()
        assert post(url[:-1] + ("a" if url[-1] != "a" else "b")) == 404
        with urllib.request.urlopen(url, timeout=30) as page:     # a GET (a link scanner) changes nothing
            assert page.status == 200 and '<form method="post">' in page.read().decode()
        assert '"subscribed": "off"' not in site.prefs("bob")
        assert post(url) == 200 and '"subscribed": "off"' in site.prefs("bob")
        assert post(url) == 200         # idempotent
        assert site.env.query("SELECT kind, stream, user_id, detail FROM stream_reports") == [
            ("unsubscribe", "subscribed", "bob", "web")]
        assert site.timers(1) == []                             # the digest stops
        [answer] = site.send("bob", "help", day=1)              # the next mail says how to have it again
        assert "To have it again, send: set bob PASSWORD subscribed=on" in " ".join(plain(answer).split())
        site.send("bob", "set bob Hunter22 subscribed=on", day=1)
        assert post(url) == 200 and '"subscribed": "on"' in site.prefs("bob")   # replayed: spent
        [again] = site.timers(2)
        assert again["To"] == "bob@example.org" and links(again)[0] != url
        assert site.env.query("SELECT count(*) FROM stream_reports") == [(1,)]
    finally:
        assert server.stop() == 0

    # carol's observer mail: one mail to its mailto: (forged first) and she gets no more
    mailto = links(observed)[1]
    address = mailto.removeprefix("mailto:").partition("?")[0]
    forged = address.replace(address.split("-")[-1].partition("@")[0], "a" * 20)
    assert site.send("carol", "unsubscribe", day=2, to=forged) == []
    assert '"subscribed": "off"' not in site.prefs("carol")
    assert site.send("carol", "unsubscribe", day=2, to=address) == []     # never answered
    assert '"subscribed": "off"' in site.prefs("carol")
    # (end-of-game notices asked for only now: SQLite 3.40's quick_check, which pbm serve runs as it
    # starts, takes their WITHOUT ROWID table's rows for NULLs)
    site.send("bob", "xiangqi notify bob Hunter22", day=2)
    moved = site.send("bob", "xiangqi move 101 bob Hunter22 h10g8", day=2)
    assert "carol@example.org" not in [mail["To"] for mail in moved]     # an observer's mail is dropped
    ended = site.send("bob", "xiangqi resign 101 bob Hunter22", day=2)
    assert "carol@example.org" not in [mail["To"] for mail in ended]
    [notice] = [mail for mail in ended if mail["To"] == "bob@example.org" and "is over" in plain(mail)]
    assert notice["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"     # the end-of-game notice
    assert site.signatures(next(raw for raw, mail in site.mails if mail["Message-ID"] == notice["Message-ID"])) \
        == [b"rsa-sha256", b"ed25519-sha256"]


def returned(kind: str, original: bytes, recipient: str, to: str) -> bytes:
    """A report about a mail pbm sent, as a receiving MTA makes it: a bounce (RFC 3464) or a
    complaint (ARF, RFC 5965), with the original's header."""
    if kind == "bounce":
        report_type, part = "delivery-status", (
            "message/delivery-status", "Reporting-MTA: dns; mx.example.org\r\n\r\n"
            f"Final-Recipient: rfc822; {recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
            "Diagnostic-Code: smtp; 550 5.1.1 no such user\r\n")
    else:
        report_type, part = "feedback-report", (
            "message/feedback-report", "Feedback-Type: abuse\r\nUser-Agent: ExampleFBL/1.0\r\nVersion: 1\r\n")
    header = original.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].replace(b"\n", b"\r\n").decode()
    return (f"From: {'MAILER-DAEMON' if kind == 'bounce' else 'fbl'}@mx.example.org\r\nTo: {to}\r\n"
            f"Subject: report\r\nMessage-ID: <{kind}-{len(original)}-{recipient}@mx.example.org>\r\n"
            f"Date: Sat, 28 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: multipart/report; report-type={report_type}; boundary=\"b\"\r\n\r\n"
            f"--b\r\nContent-Type: text/plain\r\n\r\nA report.\r\n"
            f"--b\r\nContent-Type: {part[0]}\r\n\r\n{part[1]}\r\n"
            f"--b\r\nContent-Type: text/rfc822-headers\r\n\r\n{header}\r\n--b--\r\n").encode()


def test_bounces_and_complaints_mailed_back_are_counted_per_stream(pbm_env: PbmEnv) -> None:
    site = Site(pbm_env)
    try:
        for user, password in PASSWORDS.items():
            site.send(user, f"signup {user} {password}")
        site.send("alice", "xiangqi challenge alice bob")
        site.send("carol", "xiangqi subscribe 101 carol c4rol-pw")
        site.send("alice", "xiangqi move 101 alice Sw0rdfish h3e3")
        raw = {(mail["To"], i): raw for i, (raw, mail) in enumerate(site.mails)}
        observed = [value for (to, _), value in raw.items() if to == "carol@example.org"][-1]
        board = [value for (to, _), value in raw.items() if to == "bob@example.org"][-1]

        def deliver(data: bytes, mail_from: str, rcpt: str) -> None:
            result = pbm_env.deliver(data, mail_from=mail_from, rcpt_to=rcpt)
            assert result.returncode == 0, result.stderr
            assert site.new() == []                             # never answered

        # forged: about no mail of the server, or naming another recipient -- nothing counts
        deliver(returned("bounce", board.replace(b"Message-ID: <", b"Message-ID: <x"), "bob@example.org",
                         "bounces+transactional@pbm.test"), "", "bounces+transactional@pbm.test")
        deliver(returned("bounce", board, "alice@example.org", "bounces+transactional@pbm.test"), "",
                "bounces+transactional@pbm.test")
        assert pbm_env.query("SELECT count(*) FROM stream_reports") == [(0,)]
        deliver(returned("bounce", board, "bob@example.org", "bounces+transactional@pbm.test"), "",
                "bounces+transactional@pbm.test")
        deliver(returned("complaint", observed, "", pbm_env.address), "fbl@mx.example.org", pbm_env.address)
        assert pbm_env.query("SELECT kind, stream, address FROM stream_reports ORDER BY id") == [
            ("bounce", "transactional", "bob@example.org"), ("complaint", "subscribed", "carol@example.org")]
        assert pbm_env.query("SELECT address, failures FROM bounces") == [("bob@example.org", 1)]

        # the complaint turned carol's subscribed mail off, the hard bounce bob's
        site.send("bob", "set bob Hunter22 digest=daily")
        moved = site.send("bob", "xiangqi move 101 bob Hunter22 h10g8")
        assert "carol@example.org" not in [mail["To"] for mail in moved]
        assert site.timers(1) == []                             # no digest for a bouncing address
        [told] = site.send("carol", "help", day=1)
        assert "you unsubscribed, or marked one of our mails as spam" in " ".join(plain(told).split())

        listing = pbm_env.run("outbox").stdout.decode()
        assert "transactional: sent" in listing and "bounced 1, complaints 0" in listing
        assert re.search(r"subscribed: sent 1, bounced 0, complaints 1, unsubscribed 0", listing), listing
        doctor = " ".join(pbm_env.run("doctor").stdout.decode().split())
        assert "subscribed mail in 30 days: sent 1, bounced 0, complaints 1, unsubscribed 0: the complaint " \
               "rate 100.0% is past 0.3%" in doctor, doctor
    finally:
        site.dns.close()
