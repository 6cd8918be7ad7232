"""Rulings by mail, through real `pbm deliver` processes: the mail that ends a game by perpetual
chase shows the cycle, the verdict and the rule (and the cycle's strip picture in its HTML part);
`ruling` sends it again to anyone; `appeal` reaches the arbiters and the opponent, once per player;
an arbiter's adjudication changes the result, and a dismissal lets it stand; both players are told."""
from __future__ import annotations

import re

from support.postoffice import plain
from test_repetition import CYCLE, ROOK_FOLLOWS_CANNON

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-Arb"}


def body(mail) -> str:
    return plain(mail).replace("\r\n", "\n")


def flat(mail) -> str:
    return re.sub(r"\s+", " ", body(mail))


def by_to(mails) -> dict[str, object]:
    return {m["To"]: m for m in mails}


def html_of(mail) -> str:
    return next(p.get_content() for p in mail.walk() if p.get_content_type() == "text/html")


def images(mail) -> list[str]:
    return [p["Content-ID"] for p in mail.walk() if p.get_content_type() == "image/png"]


def play_the_chase(pbm_env) -> dict[str, object]:
    pbm_env.configure(admins={"users": ["carol"]})
    for user in PASSWORDS:
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.mail(f"xiangqi challenge -fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')} alice bob")
    pbm_env.replies()
    for ply, move in enumerate(CYCLE.split(), start=1):
        user = "alice" if ply % 2 else "bob"
        pbm_env.mail(f"xiangqi move 101 {user} {PASSWORDS[user]} {move}", "mine", sender=f"{user}@example.org")
        mails = by_to(pbm_env.replies())
    return mails


RULING = """\
The cycle that repeated, move by move:
5. c1b1  R7=8  chases the cannon on b7 (unprotected)
6. b7c7  C2=3  idle move
7. b1c1  R8=7  chases the cannon on c7 (unprotected)
8. c7b7  C3=2  idle move
Verdict: Red (alice) loses by perpetual chase of the cannon on b7.
Rule 4: A side that newly chased one and the same enemy piece with every one
of its moves chases perpetually, even with different pieces in turn."""


def test_a_ruling_is_explained_sent_again_and_appealed(pbm_env):
    mails = play_the_chase(pbm_env)
    for mail in mails.values():
        assert RULING in body(mail)
        assert "Game won by bob (perpetual chase of the cannon on b7 by Red)." in body(mail)
        assert any(cid.startswith("<cycle-") for cid in images(mail))
        assert re.search(r">5\. c1b1  R7=8</code>&nbsp; chases the cannon on b7 \(unprotected\)</p>",
                         html_of(mail))

    # the ruling again, to a stranger: no password, no comment of the players
    pbm_env.mail("xiangqi ruling 101", sender="dave@example.net")
    [again] = pbm_env.replies()
    assert again["To"] == "dave@example.net" and again["Subject"] == "Xiangqi Board 101 ruling"
    assert RULING in body(again) and "mine" not in body(again) and "writes:" not in body(again)
    assert again["Reply-To"] is None

    # an appeal: to the arbiter with the player's words and the record; the opponent told
    pbm_env.mail("xiangqi appeal 101 alice Sw0rdfish", "My rook only followed the cannon once.")
    mails = by_to(pbm_env.replies())
    assert set(mails) == {"alice@example.org", "bob@example.org", "carol@example.org"}
    arbiter = mails["carol@example.org"]
    assert arbiter["Subject"] == "Xiangqi Board 101: appeal by alice"
    text = body(arbiter)
    assert "alice writes:\n\nMy rook only followed the cannon once." in text
    assert RULING in text and "xiangqi adjudicate 101 carol PASSWORD WINNER|draw REASON" in text
    [record] = [p for p in arbiter.walk() if p.get_filename() == "xiangqi-101.pgn"]
    assert '[Result "0-1"]' in record.get_content()
    assert "alice has appealed against the ruling on Xiangqi Board 101" in body(mails["bob@example.org"])
    assert "went to the arbiters (carol)" in flat(mails["alice@example.org"])
    assert pbm_env.query("SELECT user_id, status FROM appeals") == [("alice", "open")]

    # once only
    pbm_env.mail("xiangqi appeal 101 alice Sw0rdfish", "Again.")
    [refused] = pbm_env.replies()
    assert "an appeal is made once" in flat(refused)

    # the arbiter decides: a draw; both players told, the appeal decided
    pbm_env.mail("xiangqi adjudicate 101 carol c4rol-Arb draw the rook was defending", sender="carol@example.org")
    mails = by_to(pbm_env.replies())
    assert {"alice@example.org", "bob@example.org"} <= set(mails)
    for to in ("alice@example.org", "bob@example.org"):
        assert "adjudicated Xiangqi Board 101: a draw" in flat(mails[to])
    assert pbm_env.query("SELECT status, result, winner FROM games") == [("finished", "1/2-1/2", None)]
    assert pbm_env.query("SELECT user_id, status, arbiter FROM appeals") == [("alice", "decided", "carol")]

    # bob appeals that in turn; the arbiter dismisses it: both told, the result stands
    pbm_env.mail("xiangqi appeal 101 bob Hunter22", "It was a perpetual chase.", sender="bob@example.org")
    pbm_env.replies()
    pbm_env.mail("xiangqi appeal 101 alice Sw0rdfish dismiss bob")
    [refused] = pbm_env.replies()
    assert "alice is not an arbiter" in flat(refused)
    pbm_env.mail("xiangqi appeal 101 carol c4rol-Arb dismiss bob", sender="carol@example.org")
    mails = by_to(pbm_env.replies())
    for to in ("alice@example.org", "bob@example.org"):
        assert "Arbiter carol dismissed the appeal of bob" in flat(mails[to])
    assert pbm_env.query("SELECT status, result FROM games") == [("finished", "1/2-1/2")]
    pbm_env.mail("xiangqi ruling 101", sender="dave@example.net")
    [again] = pbm_env.replies()
    assert "alice appealed on" in body(again) and "bob appealed on" in body(again)
    assert "carol dismissed the appeal" in body(again)


def test_a_game_without_a_ruling_has_none_to_send(pbm_env):
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.replies()
    pbm_env.mail("xiangqi ruling 101", sender="dave@example.net")
    [refused] = pbm_env.replies()
    assert "was not decided by a ruling" in flat(refused)
    pbm_env.mail("xiangqi appeal 101 alice Sw0rdfish", "Why?")
    [refused] = pbm_env.replies()
    assert "none to appeal against" in flat(refused)
