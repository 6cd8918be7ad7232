"""Observers who see the same view of a move share one mail: nothing in it is theirs (no name, no
secret link), so it is rendered once and its body stored once; each copy has only its own envelope
-- To, Message-ID and the one-click unsubscribe that names its reader.  Players keep their own."""
from __future__ import annotations

import re

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat

from pbm.model.db import transaction
from pbm.model.players import accounts
from pbm.outbox import compose, queue

OBSERVERS = [f"watcher{n}" for n in range(6)]
pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


@pytest.fixture
def watched(post: PostOffice) -> PostOffice:
    for name in OBSERVERS:
        PASSWORDS[name] = f"{name}-Pw7"
        post.signup(name)
        post.send(f"xiangqi subscribe 101 {name} {PASSWORDS[name]}", sender=f"{name}@example.org")
    yield post
    for name in OBSERVERS:
        del PASSWORDS[name]


def envelope_and_rest(raw: bytes) -> tuple[dict[str, str], bytes]:
    """A queued mail's own header fields (To, Message-ID, List-Unsubscribe...) and all the rest."""
    header, body = raw.split(b"\r\n\r\n", 1)
    fields = re.sub(rb"\r\n[ \t]", b" ", header).split(b"\r\n")         # unfolded
    own = [field for field in fields if re.match(rb"(To|Message-ID|List-Unsubscribe(-Post)?): ", field)]
    rest = b"\r\n".join(field for field in fields if field not in own) + b"\r\n\r\n" + body
    return dict(field.decode().split(": ", 1) for field in own), rest


def test_one_rendering_and_one_body_per_view_with_nothing_personal(watched, monkeypatch):
    post = watched
    post.send(f"set {OBSERVERS[0]} {PASSWORDS[OBSERVERS[0]]} board=svg", sender=f"{OBSERVERS[0]}@example.org")
    rendered = []
    real = compose.render

    def counting(template, /, **values):
        if template == "board.j2":
            rendered.append(values["footer"])
        return real(template, **values)
    monkeypatch.setattr(compose, "render", counting)
    bodies_before = post.db.execute("SELECT count(*) FROM outbox_bodies").fetchone()[0]
    mails = post.move(101, "alice", "h3e3")
    assert len(rendered) == 2 + 2          # alice, bob, and the two views of the observers
    # stored: alice's and bob's mails whole, and one body for each view of the observers
    assert post.db.execute("SELECT count(*) FROM outbox_bodies").fetchone()[0] == bodies_before + 2 + 2
    by_address = {m["To"]: m for m in mails}
    for name in OBSERVERS:
        text = flat(by_address[f"{name}@example.org"])
        assert "You observe this game; to stop, send: xiangqi unsubscribe 101 USERID PASSWORD" in text
        assert all(watcher not in text for watcher in OBSERVERS)        # no name, no own link
    svg_mail = by_address[f"{OBSERVERS[0]}@example.org"]
    assert "<svg" in svg_mail.get_body(("html",)).get_content()
    assert accounts.preferences(post.db, OBSERVERS[1])["board"] == "own"

    # the five who see the picture: the same bytes but for each one's own envelope
    raws = {envelope_and_rest(raw)[0]["To"]: raw for raw in post.sent[-len(mails):]}
    own = {name: envelope_and_rest(raws[f"{name}@example.org"]) for name in OBSERVERS[1:]}
    assert len({rest for _, rest in own.values()}) == 1
    assert len({headers["Message-ID"] for headers, _ in own.values()}) == len(OBSERVERS) - 1
    unsubscribes = {headers["List-Unsubscribe"] for headers, _ in own.values()}
    assert len(unsubscribes) == len(OBSERVERS) - 1          # each names its own reader
    assert all(f"unsub-subscribed-{name}-" in headers["List-Unsubscribe"] for name, (headers, _) in own.items())
    # a player's mail is still their own: their name in the command they would send
    assert "xiangqi move 101 bob PASSWORD" in flat(by_address["bob@example.org"])



def test_a_shared_body_is_purged_once_every_copy_has_gone(watched):
    """Retention drops a body that copies share only when the last of them was sent long enough
    ago: a copy still waiting (a relay that deferred it) keeps the whole of its message."""
    post = watched
    mails = post.move(101, "alice", "h3e3")
    rows = dict(post.db.execute("SELECT recipient, id FROM outbox ORDER BY id DESC LIMIT ?", [len(mails)]))
    waiting = rows[f"{OBSERVERS[3]}@example.org"]
    long_ago = "2024-01-01T00:00:00.000000Z"
    with transaction(post.db):
        post.db.execute("UPDATE outbox SET status = 'sent', sent_at = ? WHERE id != ?", [long_ago, waiting])
        post.db.execute("UPDATE outbox SET status = 'queued' WHERE id = ?", [waiting])
        queue.purge_sent(post.db, post.config, post.now)
    [(raw,)] = post.db.execute("SELECT raw FROM outbox_messages WHERE id = ?", [waiting]).fetchall()
    assert envelope_and_rest(raw)[0]["To"] == f"{OBSERVERS[3]}@example.org" and b"Content-Type" in raw
    shared = post.db.execute("SELECT count(*) FROM outbox_messages").fetchone()[0]
    with transaction(post.db):
        post.db.execute("UPDATE outbox SET status = 'sent', sent_at = ? WHERE id = ?", [long_ago, waiting])
        queue.purge_sent(post.db, post.config, post.now)
    assert post.db.execute("SELECT count(*) FROM outbox_messages").fetchone()[0] == 0 < shared
    assert post.db.execute("SELECT count(*) FROM outbox WHERE head IS NOT NULL").fetchone()[0] == len(OBSERVERS)
