"""Perpetual chase over mail: the warning after the second occurrence goes to the player about to
repeat, and the move completing the third occurrence ends the game for both players."""
from __future__ import annotations

from support.postoffice import plain
from test_repetition import CYCLE, ROOK_FOLLOWS_CANNON


def body(mail) -> str:
    return plain(mail).replace("\r\n", "\n")


def test_perpetual_chase_is_warned_then_ruled_by_mail(pbm_env):
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail(f"xiangqi challenge -fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')} alice bob")
    pbm_env.replies()
    players = {"alice": "Sw0rdfish", "bob": "Hunter22"}
    moves = CYCLE.split()
    for ply, move in enumerate(moves, start=1):
        user = "alice" if ply % 2 else "bob"
        pbm_env.mail(f"xiangqi move 101 {user} {players[user]} {move}", sender=f"{user}@example.org")
        mails = {m["To"]: body(m) for m in pbm_env.replies()}
        warned = [to for to, text in mails.items() if "would lose by perpetual chase" in " ".join(text.split())]
        if ply == 4:
            assert warned == ["alice@example.org"]
            assert ("Repeating the cycle once more, from c1b1 on, would lose by perpetual chase of the cannon on b7."
                    in " ".join(mails["alice@example.org"].split()))
        elif ply < len(moves):
            assert warned == ([] if ply < 4 else ["alice@example.org"])
            assert "Game won" not in mails["bob@example.org"]
    for text in mails.values():
        assert "Game won by bob (perpetual chase of the cannon on b7 by Red)." in text
    assert pbm_env.query("SELECT status, result, winner, reason FROM games") == [
        ("finished", "0-1", "bob", "perpetual chase of the cannon on b7 by Red")]

