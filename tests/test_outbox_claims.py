"""Claiming replies to send: what it costs does not grow with the replies sent before.  Counted in
SQLite's own steps (a progress handler), on a real database file and Maildir, in-process."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pbm.config import load_config
from pbm.mail.messages import Outgoing
from pbm.model.db import transaction
from pbm.model.store import open_db
from pbm.outbox import claims, maildir, queue, sending

SENT_BEFORE = 2000
STEPS = 100                     # SQLite virtual machine instructions per progress-handler call


def test_a_claim_does_not_walk_the_replies_sent_before(tmp_path: Path) -> None:
    """ANALYZE on an outbox of sent replies (statistics say "almost every row has one status") once
    led SQLite to find due replies by walking every row ever sent, reading its bytes."""
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    config = load_config(tmp_path / "pbm.toml")
    db = open_db(config)

    def fill(count: int) -> None:
        with transaction(db):
            queue.queue(db, config, [Outgoing(to=f"p{i}@example.org", subject="Xiangqi Board 101",
                                               body="a board\n" * 300) for i in range(count)],
                         datetime.now(timezone.utc))

    fill(SENT_BEFORE)
    assert sending.send_due(db, config).sent == SENT_BEFORE
    db.execute("ANALYZE")
    fill(1)
    calls: list[int] = []
    db.conn.set_progress_handler(lambda: calls.append(1), STEPS)
    assert sending.any_due(db)
    assert sending.send_due(db, config).sent == 1
    db.conn.set_progress_handler(None, 0)
    assert len(calls) * STEPS < SENT_BEFORE         # a walk takes several steps per row


def test_a_reply_claimed_as_it_was_queued_is_taken_up_once(tmp_path: Path, monkeypatch) -> None:
    """Replies claimed for this process as they were queued (queue with its claimant) are
    sent without a claim; one whose sending failed half-way is not tried again at once (a broken
    disk would make the outbox process spin), but once its claim lapses, like any claimed row."""
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    config = load_config(tmp_path / "pbm.toml")
    db = open_db(config)
    with transaction(db):
        ids = queue.queue(db, config, [Outgoing(to=f"p{i}@example.org", subject="Board", body="b\n")
                                        for i in range(2)], datetime.now(timezone.utc),
                           claimant=claims.claimant())
    assert sending.any_due(db, claims.claimant()) and not sending.any_due(db)

    def full_disk(self, row: dict) -> None:
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as patched:
        patched.setattr(maildir.Maildir, "send", full_disk)
        try:
            sending.send_due(db, config)
        except OSError:
            pass
    assert not sending.any_due(db, claims.claimant())
    assert sending.send_due(db, config, ids=ids).sent == 0              # still claimed: not yet
    db.execute("UPDATE outbox SET claimed_until = '2000-01-01 00:00:00.000000Z'")    # the claim lapses
    assert sending.send_due(db, config, ids=ids).sent == 2
    assert len(list((tmp_path / "var" / "outbox" / "new").iterdir())) == 2


def test_what_a_process_took_up_in_one_database_says_nothing_of_another(tmp_path: Path) -> None:
    """The rows taken up are remembered per database: ids start again at 1 in another one."""
    sent = []
    for name, count in (("first", 3), ("second", 1)):
        (tmp_path / f"{name}.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / name}"\n')
        config = load_config(tmp_path / f"{name}.toml")
        db = open_db(config)
        with transaction(db):
            queue.queue(db, config, [Outgoing(to=f"p{i}@example.org", subject="Board", body="b\n")
                                      for i in range(count)], datetime.now(timezone.utc),
                         claimant=claims.claimant())
        sent.append(sending.send_due(db, config).sent)
    assert sent == [3, 1]
