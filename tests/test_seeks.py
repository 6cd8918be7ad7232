"""Finding an opponent: GAME seek posts an open challenge, GAME seeks lists them,
GAME accept-seek N takes one and the game starts at once, counting from its start; a seek nobody
takes expires (timers with an injected clock); new players hear of it in the welcome mail."""
from __future__ import annotations

from support.postoffice import PASSWORDS, PostOffice, text

from pbm.model.play import games


def by_to(mails):
    return {m["To"]: m for m in mails}


def test_seek_list_take(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob", "carol")
    [posted] = post.send(f"xiangqi seek alice {PASSWORDS['alice']} --timeout=3")
    assert posted["Subject"] == "Xiangqi seek 1"
    assert "xiangqi accept-seek 1 USERID PASSWORD" in text(posted) and PASSWORDS["alice"] not in text(posted)
    [listed] = post.send("xiangqi seeks", sender="bob@example.org")
    assert "    1  alice            --timeout=3 rated" in text(listed)
    [none] = post.send("janggi seeks")
    assert "No open Janggi seeks" in text(none)

    mails = by_to(post.send(f"xiangqi accept-seek 1 bob {PASSWORDS['bob']}", sender="bob@example.org"))
    assert set(mails) == {"alice@example.org", "bob@example.org"}
    assert mails["alice@example.org"]["Subject"].startswith("New Xiangqi Board 101")
    assert "bob has taken alice's seek 1" in text(mails["bob@example.org"])
    board = games.load(post.db, "xiangqi", 101)
    assert (board.player1, board.player2, board.rated) == ("alice", "bob", True)
    assert board.accepted and board.deadline is not None and board.options == {"timeout": 3.0}

    [gone] = post.send(f"xiangqi accept-seek 1 carol {PASSWORDS['carol']}", sender="carol@example.org")
    assert "There is no open Xiangqi seek 1" in text(gone)
    [listed] = post.send("xiangqi seeks")
    assert "No open Xiangqi seeks" in text(listed)


def test_own_seek_replacement_errors_and_expiry(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send(f"janggi seek alice {PASSWORDS['alice']} -points unrated")
    [again] = post.send(f"janggi seek alice {PASSWORDS['alice']} -points")
    assert "It replaces your earlier one" in " ".join(text(again).split())
    [listed] = post.send("janggi seeks")
    assert "    2  alice            -points rated" in text(listed) and "    1  " not in text(listed)
    [own] = post.send(f"janggi accept-seek 2 alice {PASSWORDS['alice']}")
    assert "That is your own seek" in text(own)
    [bad] = post.send(f"janggi seek alice {PASSWORDS['alice']} -nonsense")
    assert "error" in bad["Subject"].lower()
    [bad] = post.send(f"janggi seek alice {PASSWORDS['alice']} maybe")
    assert "rated or unrated" in text(bad)
    expired = post.tick(8)
    [notice] = [m for m in expired if m["Subject"] == "Janggi seek 2 expired"]
    assert notice["To"] == "alice@example.org"
    [late] = post.send(f"janggi accept-seek 2 bob {PASSWORDS['bob']}", sender="bob@example.org")
    assert "There is no open Janggi seek 2" in text(late)


def test_seek_through_pbm_deliver_and_the_welcome_mail(pbm_env):
    pbm_env.mail(f"signup alice {PASSWORDS['alice']}")
    [welcome] = pbm_env.replies()
    assert "accept-seek N alice PASSWORD" in text(welcome)
    pbm_env.mail(f"signup bob {PASSWORDS['bob']}", sender="bob@example.org")
    pbm_env.mail(f"xiangqi seek alice {PASSWORDS['alice']}")
    pbm_env.replies()
    pbm_env.mail("xiangqi seeks", sender="bob@example.org")
    [listed] = pbm_env.replies()
    assert "    1  alice            rated" in text(listed)
    pbm_env.mail(f"xiangqi accept-seek 1 bob {PASSWORDS['bob']}", sender="bob@example.org")
    subjects = {m["To"]: m["Subject"] for m in pbm_env.replies()[-2:]}
    assert subjects == {"alice@example.org": "New Xiangqi Board 101 alice",
                        "bob@example.org": "New Xiangqi Board 101 alice"}
