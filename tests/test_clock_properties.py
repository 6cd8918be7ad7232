"""Property tests (hypothesis) of the clock arithmetic over random schedules of moves, waits,
vacations and outages, with random banks, increments and caps, through the post office (real
bytes into pbm.intake, the real timers):

- a clock never goes below zero without a time-out: a running game's deadline is always ahead of
  the time, what a clock holds is never negative nor above its cap;
- an outage never costs a player time: across a credited gap the player to move has what they had;
- a leave day is never spent twice: autoleave's days start at distinct times, and never more than
  the year's allowance.
"""
from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.postoffice import PASSWORDS, PostOffice

from pbm.model.play import banks, games
from pbm.model.db import parse_timestamp

ALLOWANCE = 1.0         # vacation days a year
DAY = 86400.0
steps = st.lists(st.one_of(
    st.tuples(st.just("move"), st.floats(0.1, 40)),         # hours until the player to move moves
    st.tuples(st.just("wait"), st.floats(0.1, 60)),         # hours until the timers run
    st.tuples(st.just("outage"), st.floats(3, 40)),         # hours of an outage (over outage_after)
    st.tuples(st.just("vacation"), st.floats(0.5, 2)),      # days the player to move goes away
), min_size=1, max_size=7)


@pytest.fixture(scope="module")
def office(tmp_path_factory) -> PostOffice:
    post = PostOffice(tmp_path_factory.mktemp("clocks"))
    post.config = dataclasses.replace(
        post.config, clocks=dataclasses.replace(post.config.clocks, outage_after=2.0),
        server=dataclasses.replace(post.config.server, vacation_days=ALLOWANCE))
    post.signup("alice", "bob")
    for user in ("alice", "bob"):
        post.send(f"set {user} {PASSWORDS[user]} board=off autoleave=on", sender=f"{user}@example.org")
    post.year = 2030
    return post


def _left(post: PostOffice, board: games.Board) -> float:
    """Seconds the player to move has left now."""
    return (parse_timestamp(board.deadline) - post.now).total_seconds()


def _check(post: PostOffice, game_id: int, cap: float | None) -> None:
    board = games.get(post.db, game_id)
    for held in banks.left(post.db, board):
        assert held >= 0 and (cap is None or held <= cap * DAY + 1e-6)
    if board.status == games.ACTIVE and board.deadline:
        assert _left(post, board) > 0, "a running clock below zero without a time-out"
    if board.status == games.FINISHED and "time" in (board.reason or ""):
        assert post.db.execute("SELECT count(*) FROM events WHERE game_id = ? AND kind = 'timeout'",
                               [game_id]).fetchone()[0] == 1
    for user in board.players:
        starts = [row[0] for row in post.db.execute(
            "SELECT started_at FROM vacations WHERE user_id = ? AND automatic = 1 AND started_at >= ?",
            [user, f"{post.year}"])]
        assert len(starts) == len(set(starts)) <= ALLOWANCE, "a leave day spent twice"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schedule=steps, bank=st.integers(1, 4), increment=st.sampled_from([0, 0.25, 1]),
       headroom=st.sampled_from([None, 0, 0.5, 2]))
def test_clocks_keep_their_promises(office: PostOffice, schedule, bank, increment, headroom) -> None:
    post = office
    post.year += 1                                          # a fresh year: a fresh allowance
    post.now = datetime(post.year, 1, 1, 12, tzinfo=timezone.utc)
    post.tick(0)                                            # the heartbeat before the game
    cap = None if headroom is None else bank + headroom
    clock = f"{bank}+{increment:g}" + ("" if cap is None else f"/{cap:g}")
    number = post.challenge(extra=f"--clock={clock}")
    [(game_id,)] = post.db.execute("SELECT id FROM games WHERE board = ? AND variant = 'xiangqi'",
                                   [number]).fetchall()
    for user in ("alice", "bob"):                            # both clocks run
        board = games.get(post.db, game_id)
        post.move(number, user, board.replay().legal_moves()[0])
    for kind, amount in schedule:
        board = games.get(post.db, game_id)
        if board.status != games.ACTIVE:
            break
        if kind == "move":
            post.now += timedelta(hours=amount)
            post.move(number, board.to_move, board.replay().legal_moves()[0])
        elif kind == "wait":
            post.tick(amount / 24)
        elif kind == "outage":
            post.tick(0)
            board = games.get(post.db, game_id)
            before = _left(post, board) if board.status == games.ACTIVE and board.deadline else None
            post.now += timedelta(hours=amount)
            post.tick(0)
            board = games.get(post.db, game_id)
            if before is not None:
                assert board.status == games.ACTIVE, "lost on time during an outage"
                assert abs(_left(post, board) - before) < 1, "an outage cost a player time"
        else:
            user = board.to_move
            post.send(f"vacation {user} {PASSWORDS[user]} {max(amount, 1):g}", sender=f"{user}@example.org")
            post.tick(amount)
        _check(post, game_id, cap)
    if games.get(post.db, game_id).status == games.ACTIVE:
        post.send(f"xiangqi resign {number} alice {PASSWORDS['alice']}")
