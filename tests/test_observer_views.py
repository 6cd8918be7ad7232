"""Observers who see the same view of a move share one rendering of its board mail: a game
watched by many costs copies, not renderings; each observer's mail still names them."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat

from pbm.model.players import accounts
from pbm.outbox import compose

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


def test_one_rendering_per_view_and_each_observer_named(watched, monkeypatch):
    post = watched
    post.send(f"set {OBSERVERS[0]} {PASSWORDS[OBSERVERS[0]]} board=svg", sender=f"{OBSERVERS[0]}@example.org")
    rendered = []
    real = compose.render

    def counting(template, /, **values):
        if template == "board.j2":
            rendered.append(values["footer"])
        return real(template, **values)
    monkeypatch.setattr(compose, "render", counting)
    mails = post.move(101, "alice", "h3e3")
    assert len(rendered) == 2 + 2          # alice, bob, and the two views of the observers
    by_address = {m["To"]: m for m in mails}
    for name in OBSERVERS:
        text = flat(by_address[f"{name}@example.org"])
        assert f"xiangqi unsubscribe 101 {name} PASSWORD" in text
        assert all(f" {other} " not in text for other in OBSERVERS if other != name)
    svg_mail = by_address[f"{OBSERVERS[0]}@example.org"]
    assert "<svg" in svg_mail.get_body(("html",)).get_content()
    assert accounts.preferences(post.db, OBSERVERS[1])["board"] == "own"
