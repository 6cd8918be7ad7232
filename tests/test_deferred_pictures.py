"""Board pictures are drawn when their mail is sent, not in the write transaction that queues it:
the queued bytes hold a placeholder, the sent ones the PNG -- the same bytes on every sending --
and a picture that cannot be drawn leaves the mail readable (its text board, its FEN)."""
from __future__ import annotations

import io
from email import message_from_bytes, policy

import pytest
from PIL import Image
from support.postoffice import PostOffice

from pbm import intake
from pbm.pictures import deferred, drawing

pytestmark = pytest.mark.post_office("alice", "bob", challenge=True)


def png_of(raw: bytes) -> bytes:
    mail = message_from_bytes(raw, policy=policy.default)
    [part] = [p for p in mail.walk() if p.get_content_type() == "image/png"]
    return part.get_content()


def test_the_writer_queues_a_placeholder_and_the_sender_draws_it_once_per_view(post: PostOffice,
                                                                              monkeypatch):
    drawn = []
    real = drawing.render
    monkeypatch.setattr(drawing, "render", lambda view: drawn.append(view) or real(view))
    monkeypatch.setattr(deferred, "DRAW", drawing.draw)                            # count each
    monkeypatch.setattr(deferred, "_done", deferred.OrderedDict())                  # none kept yet
    committed = []
    real_accept = intake.accept

    def accept(*args, **kwargs):
        result = real_accept(*args, **kwargs)
        committed.append(len(drawn))
        return result
    monkeypatch.setattr(intake, "accept", accept)
    post.move(101, "alice", "h3e3")                 # committed, then sent (drawn) by the post office
    assert committed == [0]                         # nothing drawn while the move was committed
    assert len(drawn) == 2 and {view.turned for view in drawn} == {False, True}
    queued = [raw for (raw,) in post.db.execute("SELECT raw FROM outbox_bodies ORDER BY id DESC LIMIT 2")]
    assert all(deferred.MARK in raw for raw in queued)
    drawn.clear()
    sent = [deferred.fill(raw) for raw in queued]
    assert drawn == []                              # a view's picture is made once, for every reader
    assert all(deferred.MARK not in raw for raw in sent)
    for raw in sent:
        image = Image.open(io.BytesIO(png_of(raw)))
        assert image.size[0] >= 300 and image.size[1] >= 300
    assert [deferred.fill(raw) for raw in queued] == sent          # the same bytes when sent again


def test_a_picture_that_cannot_be_drawn_leaves_the_mail_readable(post: PostOffice, monkeypatch):
    post.move(101, "alice", "h3e3")
    [(raw,)] = post.db.execute("SELECT raw FROM outbox_bodies ORDER BY id DESC LIMIT 1").fetchall()

    def broken(view):
        raise RuntimeError("no font")
    monkeypatch.setattr(deferred, "DRAW", broken)
    monkeypatch.setattr(deferred, "_done", deferred.OrderedDict())
    sent = deferred.fill(raw)
    assert png_of(sent) == deferred.BLANK
    mail = message_from_bytes(sent, policy=policy.default)
    text = mail.get_body(("plain",)).get_content()
    assert "rR" in text and "bK" in text                        # the ASCII board is there
    html = mail.get_body(("html",)).get_content()
    alt = html.split('alt="')[1].split('"')[0]
    assert alt.startswith("Red: king e1;") and "Black: king e10;" in alt     # the position in words


def test_the_pictures_kept_on_disk_stay_few_and_are_read_back(tmp_path, monkeypatch):
    folder = tmp_path / "pictures"
    monkeypatch.setattr(deferred, "kept_on_disk", folder)
    monkeypatch.setattr(deferred, "ON_DISK", 4)
    for n in range(9):
        deferred._to_disk(b"view-%d" % n, b"lines of view %d" % n)
    assert 0 < len(list(folder.iterdir())) <= 4                     # the older half went, twice
    assert deferred._from_disk(b"view-8") == b"lines of view 8"     # the newest stays
    assert deferred._from_disk(b"never drawn") is None
    assert not [p for p in folder.iterdir() if p.name.endswith(".part")]
