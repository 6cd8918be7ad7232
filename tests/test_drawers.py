"""The outbox's drawing processes (pbm.runners.drawers): each is kept busy with several views at
once, and a batch comes out the same as if the outbox process had drawn every picture itself."""
from __future__ import annotations

import pytest

from pbm.pictures import deferred
from pbm.runners import drawers

pytestmark = pytest.mark.post_office("alice", "bob", "carol", challenge=True)


def test_every_view_of_a_batch_is_drawn_by_the_pool_as_the_sender_would(post, monkeypatch):
    for user, move in [("alice", "h3e3"), ("bob", "h10g8"), ("alice", "h1g3"), ("bob", "i10h10"),
                       ("alice", "i1h1"), ("bob", "b10c8")]:
        post.move(101, user, move)
    raws = [raw for (raw,) in post.db.execute("SELECT raw FROM outbox_bodies ORDER BY id")]
    deferred._done.clear()
    tokens = deferred.undrawn(raws)
    assert len(tokens) > 6        # more than a queue of three for each of two drawers
    monkeypatch.setattr(drawers, "DEPTH", 3)             # a drawer's queue refilled as it answers
    pool = drawers.Drawers(2)
    try:
        pool(raws)
        assert all(process is not None and process.poll() is None for process in pool.processes)
    finally:
        pool.close()
    assert deferred.undrawn(raws) == []
    by_pool = [deferred.fill(raw) for raw in raws]
    deferred._done.clear()
    assert [deferred.fill(raw) for raw in raws] == by_pool     # drawn here, one by one
