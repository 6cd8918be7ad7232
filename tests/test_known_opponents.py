"""Five throwaway challenges do not shut a player's door (issue 39, item 9), through real `pbm
deliver` processes: the cap on challenges waiting for bob counts only those from players who have
finished no game with him, and a player who has always gets through."""
from __future__ import annotations

from support.postoffice import plain
from support.processes import PbmEnv


def flat(mail) -> str:
    return " ".join(plain(mail).split())


def test_known_opponents_get_through_a_full_waiting_list(pbm_env: PbmEnv) -> None:
    for user in ("bob", "dave", "carol", *(f"throw{n}" for n in range(5))):
        pbm_env.mail(f"signup {user} Passw0rd-{user}", sender=f"{user}@example.org")
    pbm_env.mail("xiangqi challenge dave bob", sender="dave@example.org")     # a game they finish
    pbm_env.mail("xiangqi move 101 dave Passw0rd-dave h3e3", sender="dave@example.org")
    pbm_env.mail("xiangqi move 101 bob Passw0rd-bob h10g8", sender="bob@example.org")
    pbm_env.mail("xiangqi resign 101 dave Passw0rd-dave", sender="dave@example.org")
    for n in range(5):                                                      # the door is full
        pbm_env.mail(f"xiangqi challenge throw{n} bob", sender=f"throw{n}@example.org")
    pbm_env.replies()

    pbm_env.mail("xiangqi challenge carol bob", sender="carol@example.org")
    refused = {m["To"]: m for m in pbm_env.replies()}
    assert "bob has 5 challenges waiting to be taken up or declined from players they have not " \
           "finished a game with" in flat(refused["carol@example.org"])

    pbm_env.mail("xiangqi challenge dave bob", sender="dave@example.org")   # known: through
    mails = {m["To"]: m for m in pbm_env.replies()}
    assert str(mails["bob@example.org"]["Subject"]).startswith("New Xiangqi Board 107")
    pbm_env.mail("xiangqi challenge bob dave", sender="bob@example.org")    # and counted apart
    pbm_env.mail("xiangqi challenge carol bob", sender="carol@example.org")
    [again] = [m for m in pbm_env.replies() if m["To"] == "carol@example.org"]
    assert "bob has 5 challenges waiting" in flat(again)
    assert pbm_env.query("SELECT count(*) FROM games WHERE status = 'active' AND accepted_at IS NULL "
                         "AND 'bob' IN (player1, player2)") == [(7,)]
