"""A move costs at most 20 SQL statements, in one write transaction; messages committed
together share one, each still all or nothing.

Counted with SQLite's trace callback on the connection that does all the work here (as in `pbm
deliver`): the password's pre-check, the record of the message, the command, its replies and the
redaction of the stored message.  The moves are the third and later of a game, whose players'
passwords were checked before: the steady state of a game, as a player sees it.
"""
from __future__ import annotations

from email import policy

import pytest
from support.postoffice import PASSWORDS, PostOffice, text

from pbm import intake
from pbm.model.db import timestamp, transaction
from pbm.model.play import games
from pbm.model.players import accounts
from pbm.outbox import claims, sending

LIMIT = 20              # one of them the guessing limit, which holds for every sender; one the
                        # outage credits to tell in the board mail (pbm.commands.timing.outages);
                        # one the count of commits that tells a lost -wal file (pbm.model.db.Witness);
                        # one the players' private notes (pbm.model.play.notes, all in one); one the
                        # readers not yet told they unsubscribed (pbm.model.players.subscriptions)
SUBSCRIBED = 2          # with observers, whose mail is subscribed: their bounces and their choice of
                        # the stream, each one statement however many observers there are


pytestmark = pytest.mark.post_office("alice", "bob", "carol", challenge=True)


def statements(post: PostOffice, raw: bytes, sender: str, to: str = "pbm@pbm.test") -> list[str]:
    """The statements `intake.accept` ran for one message (which must have been processed)."""
    seen: list[str] = []
    post.db.conn.set_trace_callback(seen.append)
    try:
        result = intake.accept(post.db, post.config, raw, sender, [to], now=post.now)
    finally:
        post.db.conn.set_trace_callback(None)
    assert result.status == "processed" and len(result.outbox_ids) >= 2, result
    post._new_mail()
    return [" ".join(statement.split()) for statement in seen]


def by_subject(post: PostOffice, user: str, move: str) -> bytes:
    msg = post.message(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    return msg.as_bytes(policy=policy.SMTP)


def assert_one_cheap_transaction(seen: list[str], limit: int = LIMIT) -> None:
    listing = "\n".join(seen)
    assert len(seen) <= limit, f"{len(seen)} statements:\n{listing}"
    assert sum(s.startswith("BEGIN") for s in seen) == 1 and seen.count("COMMIT") == 1, listing
    assert sum(s.startswith("SAVEPOINT") for s in seen) <= 1, listing     # the command's own
    assert any(s.startswith("INSERT INTO moves") for s in seen), listing


def test_a_move_by_subject_costs_at_most_20_statements(post):
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    for user, move in [("alice", "h1g3"), ("bob", "i10h10"), ("alice", "i1h1")]:
        assert_one_cheap_transaction(statements(post, by_subject(post, user, move), f"{user}@example.org"))


def test_a_move_by_token_reply_costs_at_most_20_statements(post):
    post.move(101, "alice", "h3e3")
    [_, to_alice] = post.move(101, "bob", "h10g8")
    reply = post.message(f"Re: {to_alice['Subject']}", "h1g3\n", sender="alice@example.org",
                         to=to_alice["Reply-To"], In_Reply_To=to_alice["Message-ID"])
    seen = statements(post, reply.as_bytes(policy=policy.SMTP), "alice@example.org", to_alice["Reply-To"])
    assert_one_cheap_transaction(seen)


def test_observers_cost_no_more_statements(post):
    """Every player and observer gets a mail; who they are, where their mail goes, how they like it
    and who is on vacation is read in one query however many they are."""
    post.send(f"xiangqi subscribe 101 carol {PASSWORDS['carol']}", sender="carol@example.org")
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    seen = statements(post, by_subject(post, "alice", "h1g3"), "alice@example.org")
    assert_one_cheap_transaction(seen, LIMIT + SUBSCRIBED)
    assert sum(s.startswith("INSERT INTO outbox ") for s in seen) == 1      # three replies, one insert
    assert len(post.db.execute("SELECT id FROM outbox WHERE inbound_id = "
                               "(SELECT max(id) FROM inbound)").fetchall()) == 3


def test_messages_committed_together_share_one_transaction(post):
    """`pbm serve` commits the messages that arrive together at once (group commit): each in its
    savepoint, one COMMIT."""
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    arrivals = [intake.prepare(post.db, post.config, intake.Delivery(by_subject(post, "alice", "h1g3"))),
                intake.prepare(post.db, post.config, intake.Delivery(by_subject(post, "bob", "i10h10")))]
    seen: list[str] = []
    post.db.conn.set_trace_callback(seen.append)
    results = intake.accept_many(post.db, post.config, arrivals, post.now)
    post.db.conn.set_trace_callback(None)
    post._new_mail()
    assert [r.status for r in results] == ["processed", "processed"]
    assert seen.count("COMMIT") == 1 and seen.count("SAVEPOINT message") == 2
    assert post.db.execute("SELECT ply FROM games").fetchone()[0] == 4


def test_a_command_that_fails_in_a_group_takes_back_only_its_own_work(post, monkeypatch):
    """A bug in one command of a group commit: its writes go (its record is made again, as failed,
    and its sender told), the messages before and after it keep theirs."""
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    handle = intake.dispatch.handle

    def buggy(db, config, message, now):
        handled = handle(db, config, message, now)
        if "i10h10" in message.subject:
            raise ZeroDivisionError("a bug, after the command wrote")
        return handled

    monkeypatch.setattr(intake.dispatch, "handle", buggy)
    moves = [("alice", "h1g3"), ("bob", "i10h10"), ("alice", "i1h1")]
    arrivals = [intake.prepare(post.db, post.config, intake.Delivery(by_subject(post, user, move)))
                for user, move in moves]
    results = intake.accept_many(post.db, post.config, arrivals, post.now)
    assert [r.status for r in results] == ["processed", "failed", "processed"]
    assert [m for (m,) in post.db.execute("SELECT move FROM moves ORDER BY ply")] == ["h3e3", "h10g8", "h1g3"]
    [(status, detail)] = post.db.execute("SELECT status, detail FROM inbound WHERE id = ?",
                                         [results[1].inbound_id]).fetchall()
    assert status == "failed" and "ZeroDivisionError" in detail
    mails = post._new_mail()
    assert any("internal error" in text(m) for m in mails if m["To"] == "bob@example.org")
    # bob's move was taken back with his message, so it was not alice's turn for i1h1
    assert any("It is not your move" in text(m) for m in mails if m["To"] == "alice@example.org")


def test_a_process_that_sends_its_own_replies_claims_them_as_it_queues_them(post):
    """`pbm deliver` (and `pbm poll`): the replies are claimed in the transaction that queues them,
    so sending them costs one more write transaction (marking them sent), not two."""
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    post.db.execute("UPDATE outbox SET status = 'sent'")     # as a server would have by now
    seen: list[str] = []
    post.db.conn.set_trace_callback(seen.append)
    result = intake.accept(post.db, post.config, by_subject(post, "alice", "h1g3"), "alice@example.org",
                           ["pbm@pbm.test"], now=post.now, claimant=claims.claimant())
    assert seen.count("COMMIT") == 1
    report = sending.send_due(post.db, post.config, ids=result.outbox_ids)
    post.db.conn.set_trace_callback(None)
    assert report.sent == 2 and report.claimed == 2
    assert sum(s.startswith("BEGIN") for s in seen) == seen.count("COMMIT") == 2, "\n".join(seen)
    assert not [s for s in seen if s.startswith("UPDATE outbox SET status = 'sending'")]
    assert post.db.execute("SELECT status, attempts FROM outbox WHERE id IN (?, ?)",
                           result.outbox_ids).fetchall() == [("sent", 1), ("sent", 1)]


def test_a_reply_claimed_as_it_was_queued_waits_for_an_older_one_to_its_reader(post):
    """Replies reach each reader in the order they were queued: one queued behind an unsent
    older reply to the same address is not claimed, and not sent before it."""
    post.move(101, "alice", "h3e3")
    post.db.execute("UPDATE outbox SET status = 'sent'")     # as a server would have by now
    older = post.db.execute("SELECT max(id) FROM outbox WHERE recipient = 'bob@example.org'").fetchone()[0]
    post.db.execute("UPDATE outbox SET status = 'queued', next_attempt_at = '2999-01-01' WHERE id = ?", [older])
    result = intake.accept(post.db, post.config, by_subject(post, "bob", "h10g8"), "bob@example.org",
                           ["pbm@pbm.test"], now=post.now, claimant=claims.claimant())
    statuses = dict(post.db.execute("SELECT recipient, status FROM outbox WHERE id IN (?, ?)",
                                    result.outbox_ids).fetchall())
    assert statuses == {"bob@example.org": "queued", "alice@example.org": "sending"}
    sending.send_due(post.db, post.config, ids=result.outbox_ids)
    assert dict(post.db.execute("SELECT recipient, status FROM outbox WHERE id IN (?, ?)",
                                result.outbox_ids).fetchall()) == {"bob@example.org": "queued",
                                                                    "alice@example.org": "sent"}


def test_a_move_watched_by_150_costs_the_same_statements_and_one_stored_body_for_them(post):
    """Past the 100 replies one INSERT once took (pbm.outbox.queue.QUEUED_AT_ONCE): the observers'
    mails are still rows written by one statement, and their one view one body."""
    hashed = accounts.hash_password("unused-Passw0rd")
    board = games.load(post.db, "xiangqi", 101)
    with transaction(post.db):
        for n in range(150):
            post.db.execute("INSERT INTO users (id, password, created_at) VALUES (?, ?, ?)",
                            [f"watcher{n}", hashed, timestamp(post.now)])
            accounts.set_addresses(post.db, f"watcher{n}", [f"watcher{n}@example.org"])
            games.add_observer(post.db, board, f"watcher{n}", post.now)
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    bodies = post.db.execute("SELECT count(*) FROM outbox_bodies").fetchone()[0]
    seen = statements(post, by_subject(post, "alice", "h1g3"), "alice@example.org")
    assert_one_cheap_transaction(seen, LIMIT + SUBSCRIBED)
    assert post.db.execute("SELECT count(*) FROM outbox_bodies").fetchone()[0] == bodies + 2 + 1
    assert post.db.execute("SELECT count(*) FROM outbox_messages").fetchone()[0] == \
        post.db.execute("SELECT count(*) FROM outbox").fetchone()[0]
