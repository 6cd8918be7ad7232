"""Padwar qi by mail, end to end: a whole standard game to checkmate through real `pbm deliver`
processes, a whole `-korean` game to checkmate over SMTP to a real `pbm serve` (the loser answering
by reply token), the refusal of an illegal walk, and the help page.  Every mail is scanned for the
passwords."""
from __future__ import annotations

import json
import re

from support.postoffice import by_recipient, flat, text

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}

# Found by a seeded random search for short mates; each replayed by the rules core in the test.
STANDARD_MATE = ["b3a3", "g10e8", "f1f3", "h10f9", "c4c5", "h8i6", "e1d3", "i6g5", "h3g5", "b8c6",
                 "c5c6", "e10e9", "c6c7", "i10h10", "c7b7", "c10e10", "g5f7"]
KOREAN_MATE = ["h3g5", "c7d7", "i4h4", "e10d8", "f1d2", "e7f6", "e4e5", "a7b7", "e5f6", "g7f6",
               "g1e4", "d8f9", "g5f7", "f9f8", "e4f6", "c10e9", "f6d5"]


def player(name: str) -> str:
    return f"{name}@example.org"


def _assert_no_password(pbm_env) -> None:
    for path in pbm_env.outbox_files():
        for password in PASSWORDS.values():
            assert password.encode() not in path.read_bytes(), path


def test_a_whole_padwarqi_game_to_checkmate_through_pbm_deliver(pbm_env):
    for user, password in PASSWORDS.items():
        pbm_env.mail(f"signup {user} {password}", sender=player(user))
    pbm_env.mail("padwarqi challenge alice bob")
    mails = by_recipient(pbm_env.replies()[-2:])
    assert mails[player("bob")]["Subject"] == "New Padwar qi Board 101 alice"
    board = text(mails[player("bob")])
    assert " 1  rD--rT--rP--rW--rC--rW--rP--rT--rD  1   Red" in board
    assert "C chief, W warrior, P padwar, T thoat," in board
    assert "D dwar, M Martian cannon, N pathan." in board

    # The dwar on a1 reaches a2 only by the U-walk a1-b1-b2-a2, and the thoat stands on b1.
    pbm_env.mail(f"padwarqi move 101 alice {PASSWORDS['alice']} a1a2")
    [error] = pbm_env.replies()
    assert error["Subject"] == "Padwar qi Board 101 Error"
    assert "a1a2 is not a legal move: the dwar on a1 is blocked at b1; the dwar on a1 can go to c2" \
        in flat(error)

    players = ["alice", "bob"]
    for ply, move in enumerate(STANDARD_MATE, start=1):
        mover = players[(ply - 1) % 2]
        pbm_env.mail(f"padwarqi move 101 {mover} {PASSWORDS[mover]} {move}#{ply}", sender=player(mover))
        mails = by_recipient(pbm_env.replies())
        assert set(mails) == {player("alice"), player("bob")}
    final = mails[player("bob")]
    assert final["Subject"] == "Padwar qi Board 101 over: alice won (checkmate)"
    assert "Game won by alice (checkmate)." in flat(final)
    assert "alice played g5f7." in text(final)
    assert re.search(r" 17\. g5f7\n", text(final))
    [(status, result, reason, params)] = pbm_env.query("SELECT status, result, reason, params FROM games")
    assert (status, result, reason, json.loads(params)) == ("finished", "1-0", "checkmate", {})
    _assert_no_password(pbm_env)


def test_a_whole_korean_padwarqi_game_over_smtp_with_reply_tokens(pbm_env, pbm_server):
    def send(user: str, subject: str, count: int) -> dict:
        return pbm_server.command(player(user), subject, count)

    for user, password in PASSWORDS.items():
        send(user, f"signup {user} {password}", 1)
    mails = send("alice", "padwarqi challenge -korean alice bob", 2)
    assert "Parameters: -korean." in flat(mails[player("bob")])

    # Under -korean the cannon on h3 must jump: h3-h4-h5-h6 passes no piece.
    [error] = send("alice", f"padwarqi move 101 alice {PASSWORDS['alice']} h3h6", 1).values()
    assert ("the Martian cannon on h3 moves and captures only by walking over exactly one piece, and "
            "no walk to h6 does (h3-h4-h5-h6 passes 0)") in flat(error)

    latest = mails
    for ply, move in enumerate(KOREAN_MATE, start=1):
        if ply % 2:
            latest = send("alice", f"padwarqi move 101 alice {PASSWORDS['alice']} {move}", 2)
        else:
            latest = pbm_server.answer(latest[player("bob")], move, 2)
    final = latest[player("bob")]
    assert "Game won by alice (checkmate)." in flat(final)
    [(result, reason, params)] = pbm_env.query("SELECT result, reason, params FROM games")
    assert (result, reason, json.loads(params)) == ("1-0", "checkmate", {"korean": True})
    _assert_no_password(pbm_env)


def test_padwarqi_help_explains_the_walks_and_names_the_korean_switch(pbm_env):
    pbm_env.mail("padwarqi help")
    [help_mail] = pbm_env.replies()
    body = text(help_mail)
    assert help_mail["Subject"] == "Padwar qi help"
    # The thoat's diagram: the knight's points and the four neighbours of E5.
    assert "    6   x   .   x   .   x\n    5   .   x   T   x   .\n" in body
    assert "    5   x   .   x   D   x   .   x\n" in body
    assert "The cannon on E2 takes the Black piece on E5" in body
    assert re.search(r"\n    -korean +the Korean variant", body)
    assert all(len(line) <= 78 for line in body.splitlines()), [l for l in body.splitlines() if len(l) > 78]
