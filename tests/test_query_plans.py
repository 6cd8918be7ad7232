"""No statement a move, the timers or the outbox run reads a whole table that grows with every
game played (games, moves, events, rating changes): on a server that holds a million finished
games, a full scan per command would cost seconds.

Asked of SQLite itself (EXPLAIN QUERY PLAN) on the post office's real file, which holds a few
hundred finished games copied as bench/prefill.py copies them, its statistics made by ANALYZE (as
an operator may): the plans it would run with, not a timing.
"""
from __future__ import annotations

import re

import pytest
from support.postoffice import PASSWORDS, PostOffice, by_recipient

from pbm.outbox import sending

GROWING = ("games", "moves", "events", "rating_changes")     # a row (or more) every game, kept for good
FINISHED = 300          # copies of the finished game: enough for ANALYZE to see many


pytestmark = pytest.mark.post_office("alice", "bob", "carol")


def traced(post: PostOffice, work) -> list[str]:
    """The statements `work()` ran on the post office's connection, with their values."""
    seen: list[str] = []
    post.db.conn.set_trace_callback(seen.append)
    try:
        work()
    finally:
        post.db.conn.set_trace_callback(None)
    return seen


def full_scans(post: PostOffice, statement: str) -> list[str]:
    """The steps of `statement`'s plan that read a growing table whole (or one of its indexes
    whole: "SCAN games USING INDEX ..." is as long)."""
    if statement.split(None, 1)[0].upper() not in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH"):
        return []
    plan = [row[-1] for row in post.db.execute("EXPLAIN QUERY PLAN " + statement).fetchall()]
    names = set(GROWING) | {alias for table, alias in re.findall(
        rf"\b({'|'.join(GROWING)})\s+(?:AS\s+)?(\w+)", statement, re.IGNORECASE)}
    return [step for step in plan if step.startswith("SCAN ") and step.split()[1] in names]


def grown(post: PostOffice) -> None:
    """A finished game copied FINISHED times, with its moves, events and rating changes."""
    [finished] = post.db.execute("SELECT id FROM games WHERE status = 'finished'").fetchone()
    top, board = post.db.execute("SELECT max(id), max(board) FROM games").fetchone()
    for n in range(1, FINISHED + 1):
        columns = [c[1] for c in post.db.execute("PRAGMA table_info(games)")]
        values = [f"{top + n}" if c == "id" else f"{board + n}" if c == "board" else c for c in columns]
        post.db.execute(f"INSERT INTO games ({', '.join(columns)}) SELECT {', '.join(values)} FROM games "
                        "WHERE id = ?", [finished])
        for table in GROWING[1:]:
            columns = [c[1] for c in post.db.execute(f"PRAGMA table_info({table})") if c[1] != "id"]
            values = [f"{top + n}" if c == "game_id" else c for c in columns]
            post.db.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)} "
                            f"FROM {table} WHERE game_id = ?", [finished])
    post.db.execute("ANALYZE")


def test_a_move_the_timers_and_the_outbox_never_scan_a_growing_table(post):
    post.challenge("alice", "bob")
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")
    post.send(f"xiangqi resign 101 bob {PASSWORDS['bob']}", sender="bob@example.org")
    board = post.challenge("alice", "bob")
    grown(post)
    post.send(f"xiangqi subscribe {board} carol {PASSWORDS['carol']}", sender="carol@example.org")
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    seen = traced(post, lambda: post.move(board, "alice", "h1g3"))
    seen += traced(post, lambda: post.reply(
        by_recipient(post.move(board, "bob", "i10h10"))["alice@example.org"], "i1h1"))
    seen += traced(post, lambda: post.send(f"xiangqi show {board}", sender="carol@example.org"))
    seen += traced(post, lambda: post.tick(8))          # reminders, time-outs, digests
    seen += traced(post, lambda: sending.send_due(post.db, post.config, force=True))
    assert any(s.startswith("INSERT INTO moves") for s in seen)
    scans = {s[:300]: found for s in seen if (found := full_scans(post, s))}
    assert not scans, "\n".join(f"{s}\n    {found}" for s, found in scans.items())
