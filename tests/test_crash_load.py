"""`pbm serve` SIGKILLed again and again while players mail it real game commands.

Two players play four Xiangqi games over SMTP, command after command, as fast as the server
answers.  At random moments a timer SIGKILLs the server -- sometimes the main process alone, sometimes
it with all its children at once, as a power cut would -- while a command is in flight: before the
commit, between the commit and the 250, while replies are being written.  The client does what an
MTA does: a message that got no 250 is sent again, the same bytes, to the restarted server.

Afterwards: every message is recorded exactly once, every 250'd move is in its game exactly once
and in order (a move applied twice, or lost, would break the sequence), and every reply queued is
in the Maildir exactly once.
"""
from __future__ import annotations

import os
import random
import signal
import smtplib
import threading
import time
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from support.processes import PbmEnv, PbmServer, alive, wait_until, wire

import rules

BOARDS, PLIES, KILLS = 4, 10, 12
PLAYERS = {"alice": "Sw0rdfish", "bob": "Hunter22"}

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def scripted_game(rng: random.Random) -> list[str]:
    """PLIES random legal moves that neither capture nor end the game: any order of replies and
    retries must leave exactly this record."""
    game = rules.Game.new("xiangqi")
    for _ in range(PLIES):
        pieces = sum(c.isalpha() for c in game.fen().split()[0])
        moves = game.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            game.play(move)
            if game.result == "*" and sum(c.isalpha() for c in game.fen().split()[0]) == pieces:
                break
            game.undo()
        else:
            raise AssertionError("no quiet move")
    return list(game.moves)


def power_cut(server: PbmServer, everything: bool) -> None:
    """SIGKILL the server, and with `everything` its child processes in the same instant."""
    pid = server.process.pid
    children = []
    if everything:
        try:
            children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            pass
    for victim in [pid, *children]:
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_serve_killed_again_and_again_under_load(pbm_env: PbmEnv) -> None:
    rng = random.Random(20261125)
    scripts = [scripted_game(rng) for _ in range(BOARDS)]
    messages = [pbm_env.message(f"signup {user} {password}", sender=f"{user}@example.org")
                for user, password in PLAYERS.items()]
    messages += [pbm_env.message("xiangqi challenge alice bob") for _ in range(BOARDS)]
    for ply in range(PLIES):
        user = "alice" if ply % 2 == 0 else "bob"         # the challenger's first player is Red
        messages += [pbm_env.message(f"xiangqi move {101 + b} {user} {PLAYERS[user]} {scripts[b][ply]}",
                                     sender=f"{user}@example.org") for b in range(BOARDS)]
    doomed = set(rng.sample(range(len(messages)), KILLS))

    pbm_env.configure(server={"challenges_pending_per_player": BOARDS})    # all waiting at once
    server, kills, resent = pbm_env.start_server(), 0, 0
    for index, message in enumerate(messages):
        timer = None
        if index in doomed:
            timer = threading.Timer(rng.uniform(0, 0.08), power_cut, [server, rng.random() < 0.5])
            timer.start()
        while True:
            try:
                server.send(wire(message), mail_from=message["From"].addresses[0].addr_spec)
                accepted = True
            except (smtplib.SMTPException, OSError):
                accepted = False
            if timer is not None:               # the cut came, before or after the 250
                timer.join()
                timer = None
                server.process.wait(30)
            if server.process.poll() is not None:
                kills += 1
                server = pbm_env.start_server()
            if accepted:
                break
            resent += 1                         # no 250: the MTA sends the same bytes again
            time.sleep(0.05)
    assert server.stop() == 0
    assert kills == KILLS and resent > 0
    assert pbm_env.run("outbox", "flush").returncode == 0

    # every message recorded once, and processed
    recorded = pbm_env.query("SELECT message_id, status FROM inbound ORDER BY id")
    assert [m for m, _ in recorded] == [m["Message-ID"] for m in messages]
    assert {s for _, s in recorded} == {"processed"}
    # every move in its game once, in order
    for board, script in enumerate(scripts):
        played = pbm_env.query("SELECT m.move FROM moves m JOIN games g ON g.id = m.game_id "
                               "WHERE g.board = ? ORDER BY m.ply", (101 + board,))
        assert [m for (m,) in played] == script
    # every reply in the Maildir once (the Maildir file name comes from the outbox row)
    rows = pbm_env.query("SELECT message_id, status FROM outbox")
    assert {s for _, s in rows} == {"sent"}
    in_maildir = [message_from_bytes(p.read_bytes(), policy=policy.default)["Message-ID"]
                  for p in pbm_env.outbox_files()]
    assert sorted(in_maildir) == sorted(m for m, _ in rows)
    assert wait_until(lambda: all(not alive(s.process.pid) for s in pbm_env.servers))
