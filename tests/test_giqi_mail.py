"""Gi-Qi-Game by mail, end to end through real `pbm deliver` processes: a whole game with drops and one
with -nodrops, each with a teleport, a castling and a promotion (and the first a mating drop); refusals
that explain; the help page.  Every mail is scanned for the passwords."""
from __future__ import annotations

import json
import re

from support.postoffice import by_recipient, flat, text

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}
# White (alice): d1f2 teleports the bodyguard beside the king, e1c1 castles with the a-file lance,
# e6g7+ takes a foot soldier and promotes the knight; with drops, F*f9 drops that soldier to mate.
OPENING = ["d1f2", "a7a6", "c1d2", "i7i6", "a3a4", "a6a5", "b1a3", "i6i5", "e1c1", "a9a8", "e2d4", "i9i8",
           "d4e6", "a8a7", "e6g7+"]
WITH_DROPS = OPENING + ["f9d8", "F*f9"]
WITHOUT_DROPS = OPENING + ["c9d8", "g7f7"]


def player(name: str) -> str:
    return f"{name}@example.org"


def play_game(pbm_env, params: str, moves: list[str]) -> dict:
    for user, password in PASSWORDS.items():
        pbm_env.mail(f"signup {user} {password}", sender=player(user))
    pbm_env.mail(f"giqi challenge {params} alice bob")
    pbm_env.replies()
    players = ["alice", "bob"]
    mails = {}
    for ply, move in enumerate(moves, start=1):
        mover = players[(ply - 1) % 2]
        pbm_env.mail(f"giqi move 101 {mover} {PASSWORDS[mover]} {move}#{ply}", sender=player(mover))
        mails = by_recipient(pbm_env.replies())
        assert set(mails) == {player("alice"), player("bob")}, (move, [m["Subject"] for m in mails.values()])
        if move == "e1c1":
            assert " 1 |    |    | wK | wL |" in text(mails[player("alice")])
        if move == "e6g7+":
            assert "| wN+|" in text(mails[player("alice")])
    return mails


def _assert_no_password(pbm_env) -> None:
    for path in pbm_env.outbox_files():
        for password in PASSWORDS.values():
            assert password.encode() not in path.read_bytes(), path


def test_a_whole_giqi_game_with_a_mating_drop_through_pbm_deliver(pbm_env):
    mails = play_game(pbm_env, "", WITH_DROPS[:-1])
    assert "In White's hand: F\nIn Black's hand: -" in text(mails[player("alice")])
    pbm_env.mail(f"giqi move 101 alice {PASSWORDS['alice']} F*f9")
    final = by_recipient(pbm_env.replies())[player("bob")]
    assert "Game won by alice (checkmate)." in flat(final)
    assert re.search(r"17\. F\*f9\n", text(final))
    [(status, result, reason, params)] = pbm_env.query("SELECT status, result, reason, params FROM games")
    assert (status, result, reason, json.loads(params)) == ("finished", "1-0", "checkmate", {})
    _assert_no_password(pbm_env)


def test_a_whole_giqi_game_without_drops_through_pbm_deliver(pbm_env):
    mails = play_game(pbm_env, "-nodrops", WITHOUT_DROPS)
    final = mails[player("bob")]
    assert "Game won by alice (checkmate)." in flat(final)
    assert "In White's hand" not in text(final)
    [(result, params)] = pbm_env.query("SELECT result, params FROM games")
    assert (result, json.loads(params)) == ("1-0", {"nodrops": True})
    _assert_no_password(pbm_env)


def test_giqi_refusals_explain_and_the_help_page_teaches(pbm_env):
    for user, password in PASSWORDS.items():
        pbm_env.mail(f"signup {user} {password}", sender=player(user))
    pbm_env.mail("giqi challenge alice bob")
    pbm_env.replies()
    pbm_env.mail(f"giqi move 101 alice {PASSWORDS['alice']} P*e5")
    [error] = pbm_env.replies()
    assert "P*e5 is not a legal move: you have no peasant in hand" in flat(error)
    pbm_env.mail(f"giqi move 101 alice {PASSWORDS['alice']} e1e2")
    [error] = pbm_env.replies()
    assert "e2 holds your own knight" in flat(error)
    pbm_env.mail("giqi help")
    [help_mail] = pbm_env.replies()
    body = text(help_mail)
    assert "THIS SERVER'S RECONSTRUCTION" in body
    assert "    . x . x .        . x . x .\n    . . . . .        x . . . x\n" in body  # the horse
    assert re.search(r"\n    -nodrops +no drops", body)
    assert all(len(line) <= 78 for line in body.splitlines())
    _assert_no_password(pbm_env)
