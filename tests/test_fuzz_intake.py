"""Hostile mail: whatever arrives is recorded exactly once, answered at most once (never
when it is automatic), never crashes intake, and no answer holds a password (but the lines a
player wrote, quoted back to their own address with their own password masked), nor does the
stored message.

The property test builds messages from every category of trouble seen in the wild -- RFC 2047 words
in charsets Python cannot decode, broken MIME, unknown charsets, bad transfer encodings, automatic
mail of every RFC 3834 kind, passwords of registered players in subjects, bodies and token replies,
forged From lines -- and hands their bytes to `pbm.intake.accept`, the function `pbm deliver`
runs, on a real SQLite file.  A few fixed messages go through the real `pbm deliver` too.
"""
from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.postoffice import PASSWORDS, SERVER, PostOffice

from pbm import intake
from pbm.mail import reading
from pbm.model.players import tokens

USERS = ("alice", "bob", "carol")
CHARSETS = ("utf-8", "idna", "punycode", "x-no-such-charset", "iso-8859-1", "utf-7", "")
AUTOMATIC = ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-generated",
             "Auto-Submitted: auto-notified; owner-email=x@example.org", "Precedence: bulk",
             "Precedence: auto_reply", "Precedence: list", "Precedence: junk", "List-Id: <players.example.org>",
             "List-Unsubscribe: <mailto:leave@example.org>", "X-Autoreply: yes", "X-Autorespond: yes",
             "Auto-Submitted: =?idna?q?auto=FF?=", "List-Id: =?x-no-such-charset?q?l=FF?= <l.example.org>")

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def encoded_word(text: str, charset: str) -> str:
    if not charset:
        return text
    return f"=?{charset}?b?{base64.b64encode(text.encode('utf-8', 'surrogatepass')).decode()}?="


words = st.sampled_from(["xiangqi", "janggi", "move", "101", "102", "show", "signup", "help", "resign",
                         "h3e3", "C2=5", "multiple", "Re:", "**", "-fen=x", "--timeout=0.0001",
                         "challenge", "queue", "status", "password", "reset", "set", "chat",
                         *USERS, *PASSWORDS.values(), "31415926", "Secret99", "ünïcödé", "\u202e",
                         "=?", "?=", "<", ">", "\\", '"'])
line = st.lists(words, max_size=8).map(" ".join)
charset = st.sampled_from(CHARSETS)


@st.composite
def hostile(draw) -> tuple[bytes, bool]:
    """(message bytes, whether it is automatic mail)."""
    user = draw(st.sampled_from(USERS + ("mallory",)))
    sender = f"{user}@example.org"
    headers = [f"From: {encoded_word(draw(st.sampled_from(['Al', 'Ünï', 'x'])), draw(charset))} <{sender}>"
               if draw(st.booleans()) else f"From: {sender}"]
    token = tokens.make(b"test-secret", "xiangqi", 101, user) if draw(st.booleans()) else None
    headers.append(f"To: {tokens.reply_address(SERVER, token) if token else SERVER}")
    if draw(st.booleans()):
        headers.append(f"Message-ID: <{draw(st.integers(0, 10**9))}.{draw(st.integers(0, 99))}@example.org>")
    elif draw(st.booleans()):
        headers.append(f"Message-ID: {encoded_word('<x@y>', draw(charset))}")
    subject = draw(line)
    headers.append(f"Subject: {encoded_word(subject, draw(charset)) if draw(st.booleans()) else subject}")
    automatic = draw(st.booleans()) and draw(st.booleans())
    if automatic:
        headers += draw(st.lists(st.sampled_from(AUTOMATIC), min_size=1, max_size=3))
    body = "\n".join(draw(st.lists(line, max_size=4)))
    kind = draw(st.sampled_from(["plain", "base64", "qp-broken", "multipart", "broken-multipart",
                                 "nested", "binary"]))
    body_charset = draw(charset) or "utf-8"
    if kind == "plain":
        headers.append(f"Content-Type: text/plain; charset={body_charset}")
        payload = body.encode("utf-8", "surrogatepass")
    elif kind == "base64":
        headers += [f"Content-Type: text/plain; charset={body_charset}", "Content-Transfer-Encoding: base64"]
        payload = base64.b64encode(body.encode("utf-8", "surrogatepass"))[:draw(st.integers(0, 200))]
    elif kind == "qp-broken":
        headers += ["Content-Type: text/plain", "Content-Transfer-Encoding: quoted-printable"]
        payload = (body + "=Z9=\n=").encode("utf-8", "surrogatepass")
    elif kind == "multipart":
        headers.append('Content-Type: multipart/mixed; boundary="b1"')
        payload = (f"--b1\nContent-Type: text/plain; charset={body_charset}\n\n{body}\n--b1\n"
                   "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n"
                   f"{base64.b64encode(bytes(range(256)) * draw(st.integers(0, 50))).decode()}\n--b1--\n"
                   ).encode("utf-8", "surrogatepass")
    elif kind == "broken-multipart":
        headers.append('Content-Type: multipart/alternative; boundary="never"')
        payload = body.encode("utf-8", "surrogatepass")
    elif kind == "nested":
        depth = draw(st.sampled_from([2, 30, 1100]))
        headers.append('Content-Type: multipart/mixed; boundary="n0"')
        payload = "".join(f"--n{i}\nContent-Type: multipart/mixed; boundary=\"n{i + 1}\"\n\n"
                          for i in range(depth)).encode() + body.encode("utf-8", "surrogatepass")
    else:
        headers.append("Content-Type: text/plain; charset=utf-8")
        payload = bytes(draw(st.lists(st.integers(0, 255), max_size=100)))
    raw = ("\r\n".join(headers) + "\r\n\r\n").encode("utf-8", "surrogatepass") + payload
    return raw, automatic


@pytest.fixture(scope="module")
def office(tmp_path_factory):
    post = PostOffice(tmp_path_factory.mktemp("fuzz"))
    post.signup(*USERS, "root")
    post.challenge()
    return post


@settings(max_examples=1100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(hostile())
@example((b"From: =?idna?q?al=C3=A9=FF?= <alice@example.org>\r\nMessage-ID: =?punycode?q?x=FF?=\r\n"
          b"Subject: xiangqi show 101 Sw0rdfish\r\n\r\nhello\r\n", False))
@example((b"From: alice@example.org\r\nSubject: signup John Smith Secret99\r\n\r\n", False))
@example((b"From: alice@example.org\r\nSubject: 31415926\r\n\r\n", False))
@example((b"From: alice@example.org\r\nSubject: help\r\nAuto-Submitted: auto-replied\r\n"
          b"Auto-Submitted: no\r\nList-Unsubscribe: =?x-bad?q?=FF?=\r\n\r\n", True))
def test_hostile_mail_is_recorded_once_answered_at_most_once_and_never_leaks(office, message) -> None:
    raw, automatic = message
    before = office.db.execute("SELECT max(id) FROM outbox").fetchone()[0] or 0
    result = intake.accept(office.db, office.config, raw, "envelope@example.org", [SERVER], now=office.now)
    office.now = office.now.replace(microsecond=(office.now.microsecond + 1) % 1_000_000)

    assert result.status in ("processed", "duplicate", "automatic", "too_large")
    assert office.db.execute("SELECT count(*) FROM inbound WHERE dedup_key = ?",
                             [result.key]).fetchone() == (1,)
    replies = office.db.execute("SELECT recipient, raw FROM outbox JOIN outbox_messages USING (id) "
                                "WHERE id > ? AND inbound_id = ?",
                                [before, result.inbound_id]).fetchall()
    if automatic or result.status in ("automatic", "duplicate"):
        assert result.status != "processed" or not automatic or replies == []
        assert replies == [] or result.status == "duplicate"
    sender = office.db.execute("SELECT sender FROM inbound WHERE id = ?", [result.inbound_id]).fetchone()[0]
    # "multiple" (in the subject, or first in a token reply's body) answers each of its commands
    parsed = reading.parse(raw)
    multiple = "multiple" in (reading.header_text(parsed, "Subject") + reading.body_text(parsed)).lower()
    assert multiple or sum(recipient == sender for recipient, _ in replies) <= 1
    # What the writer of a reply to a game mail wrote after their move is their comment: the other
    # players are shown it, and it is kept, as written -- a word in it that happens to be somebody's
    # password is the writer's to share (the server cannot know it is one); nothing else may be.
    commented = b"pbm+" in raw.partition(b"\r\n\r\n")[0] and reading.body_text(parsed)
    for recipient, data in replies:
        for owner, password in PASSWORDS.items():
            # the one answer that may hold a password: a token reply's lines, quoted back to the
            # writer's own address (their own password masked), when none reads as a move
            assert password.encode() not in data or (commented and password in commented) or (
                recipient == sender and sender != f"{owner}@example.org"
                and b"No line of your reply reads as a move" in data), (owner, data)
    stored = office.db.execute("SELECT raw, status FROM inbound WHERE id = ?", [result.inbound_id]).fetchone()
    if stored[1] == "processed":
        for password in PASSWORDS.values():
            assert password.encode() not in stored[0] or (commented and password in commented)


FIXED = [
    b"From: =?idna?q?al=C3=A9=FF?= <alice@example.org>\r\nTo: pbm@pbm.test\r\nSubject: help\r\n"
    b"Message-ID: =?x-no-such-charset?q?<a=FF@b>?=\r\n\r\nhello\r\n",
    b"From: alice@example.org\r\nTo: pbm@pbm.test\r\nSubject: help\r\nContent-Type: multipart/mixed; "
    b"boundary=\"n0\"\r\n\r\n" + b"".join(b"--n%d\r\nContent-Type: multipart/mixed; boundary=\"n%d\"\r\n\r\n"
                                          % (i, i + 1) for i in range(1000)),
    b"From: alice@example.org\r\nTo: pbm@pbm.test\r\nSubject: =?punycode?q?xiangqi_show_101_Sw0rdfish=FF?=\r\n"
    b"\r\nSw0rdfish\r\n",
]


@pytest.mark.parametrize("raw", FIXED)
def test_fixed_hostile_messages_through_pbm_deliver(pbm_env, raw: bytes) -> None:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.replies()
    result = pbm_env.deliver(raw)
    assert result.returncode == 0, result.stderr
    assert pbm_env.deliver(raw).returncode == 0             # again: a duplicate, not a new message
    answers = pbm_env.replies()
    assert len(answers) <= 1
    for answer in answers:
        assert b"Sw0rdfish" not in bytes(answer)
    assert len(pbm_env.query("SELECT id FROM inbound")) == 2
