"""Paired knockouts played to the end through `pbm deliver`, one process per mail: a match goes to
the pair's total; a tied pair plays a decider pair (announced in the round mail, both games
named), or with `--decider=seed` lets the higher seed through; read in English and Korean; the
crosstable shows every game of a match, and the TRF a column a game, read back into its round."""
from __future__ import annotations

import re

from support.postoffice import text
from test_tournament_mail import assert_lines_fit, open_tournament, pairings, password, send, start
from test_tournament_paired_mail import play_round, record, to

from pbm.tournaments import trf


def test_a_paired_knockout_with_a_decider_pair(pbm_env):
    users = ["ann", "ben", "cat", "dan"]
    open_tournament(pbm_env, users, "--system=knockout --paired --timeout=3 unrated")
    send(pbm_env, "dan", f"set dan {password('dan')} lang=ko")
    mails = start(pbm_env)
    # seeds by user id: ann v dan, ben v cat; the higher seed White in game 1
    assert [r[1:4] for r in pairings(pbm_env, 1)] == [
        (1, "ann", "dan"), (2, "ben", "cat"), (3, "dan", "ann"), (4, "cat", "ben")]
    assert len([m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 1 "
                "of 2"]) == 1
    # ann v dan: each wins with White, 1-1; ben beats cat 1.5-0.5
    mails = play_round(pbm_env, lambda row: "white" if row[2] in ("ann", "dan") or row[1] == 2
                       else "draw")
    deciders = pairings(pbm_env, 1)[4:]
    assert [r[1:5] for r in deciders] == [(5, "ann", "dan", None), (6, "dan", "ann", None)]
    news = [m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 1 of 2 "
            "deciders"]
    assert len(news) == 1
    prose = " ".join(text(news[0]).split())
    assert "tied on points play a decider, a further pair of games" in prose
    assert re.search(rf"Your games against dan: Xiangqi Board {deciders[0][5]}, you play Red; "
                     rf"Xiangqi Board {deciders[1][5]}, you play Black\.", prose)
    korean = [m for m in to(mails, "dan") if "cup" in m["Subject"] and "Board" not in m["Subject"]]
    assert len(korean) == 1 and korean[0]["Subject"].endswith("결정전")
    said = " ".join(text(korean[0]).split())
    assert "쌍대국 토너먼트" in said and "ann 님과의 내 대국: " in said
    assert_lines_fit(korean[0])
    # dan wins the decider pair 1.5-0.5 and meets ben in the final
    mails = play_round(pbm_env, lambda row: "black" if row[2] == "ann" else "draw")
    assert [r[2:4] for r in pairings(pbm_env, 2)] == [("ben", "dan"), ("dan", "ben")]
    final = next(m for m in to(mails, "ann") if m["Subject"] == "Xiangqi tournament cup: round 2 "
                 "of 2")
    assert "Your pairing of round 1 against dan: 1.5-2.5." in " ".join(text(final).split())
    mails = play_round(pbm_env, lambda row: "black" if row[2] == "ben" else "draw")
    won = next(m for m in to(mails, "cat") if "won by" in m["Subject"])
    assert won["Subject"] == "Xiangqi tournament cup: won by dan"
    # the final's boards, then the pairing's score, the first game's White first
    assert f"     {'ben':<17} {'dan':<17} the pairing: 0.5-1.5" in text(won).splitlines()
    table = text(won).split("Final standings:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[1] for line in table[1:]] == ["dan", "ben", "ann", "cat"]
    cells = {line.split()[1]: line.split()[-2:] for line in table[1:]}
    assert cells["dan"] == ["3B0W1B1W=", "2B1W="]
    whole = record(pbm_env)
    back = trf.read(whole)
    # the TRF: a column a game, the pair and the decider pair read back into round 1
    assert sorted((g.round, g.white, g.black, g.result) for g in back.games
                  if "ann" in (g.white, g.black)) == [
        (1, "ann", "dan", "0-1"), (1, "ann", "dan", "1-0"), (1, "dan", "ann", "1-0"),
        (1, "dan", "ann", "1/2-1/2")]
    rows = [line for line in whole.splitlines() if line.startswith("001")]
    assert max(len(line) for line in rows) == 89 + 6 * 10      # 4 games in round 1, 2 in 2


def test_a_paired_knockout_decided_by_the_higher_seed(pbm_env):
    users = ["ann", "ben"]
    open_tournament(pbm_env, users, "--system=knockout --paired --decider=seed --timeout=3")
    send(pbm_env, "ben", f"set ben {password('ben')} lang=ko")
    [shown] = send(pbm_env, "ann", "xiangqi tournament show cup")
    assert "on a tie the higher seed goes through" in " ".join(text(shown).split())
    start(pbm_env)
    mails = play_round(pbm_env, lambda row: "draw")
    assert len(pairings(pbm_env)) == 2                      # no decider pair
    won = next(m for m in to(mails, "ann") if "won by" in m["Subject"])
    assert won["Subject"] == "Xiangqi tournament cup: won by ann"
    korean = next(m for m in to(mails, "ben") if "ann" in m["Subject"])
    assert "won by" not in korean["Subject"]
    [refused] = send(pbm_env, "ann", f"xiangqi tournament create cup2 ann {password('ann')} "
                                     "--system=swiss --rounds=3 --decider=seed")
    assert "--decider=seed: a paired knockout (--system=knockout --paired)" in \
        " ".join(text(refused).split())
    [refused] = send(pbm_env, "ann", f"xiangqi tournament create cup2 ann {password('ann')} "
                                     "--system=roundrobin --paired --double")
    assert "--paired does not go with --double" in " ".join(text(refused).split())
