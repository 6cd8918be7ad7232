"""A director's tools played through `pbm deliver`, one process per mail: a half-point bye asked
for in advance, a late entry, a corrected result, and a Baku-accelerated Swiss, each tournament to
its end; the round mails, the crosstable and the TRF show them, and bbpPairings' checker (FIDE's
endorsed program) pairs every round of the TRF as pbm did."""
from __future__ import annotations

from support import bbp
from support.postoffice import text
from test_tournament_mail import open_tournament, pairings, password, play_out, send, start


def test_bye_late_entry_and_correction_by_mail(pbm_env, tmp_path):
    users = ["ann", "ben", "cat", "dan", "eve"]
    open_tournament(pbm_env, users, "--system=swiss --rounds=3 --timeout=3 --late=2 --byes=1")
    [shown] = send(pbm_env, "cat", "xiangqi tournament show cup")
    assert "may ask for 1 half-point bye" in " ".join(text(shown).split())
    [asked] = send(pbm_env, "cat", f"xiangqi tournament bye cup cat {password('cat')} 2")
    assert "You will not be paired in round 2 of cup: you get half a point" in " ".join(
        text(asked).split())
    [again] = send(pbm_env, "cat", f"xiangqi tournament bye cup cat {password('cat')} 1")
    assert "at most 1 half-point bye, and you have asked for it (round 2)" in " ".join(
        text(again).split())
    [last] = send(pbm_env, "dan", f"xiangqi tournament bye cup dan {password('dan')} 3")
    assert "not the last one" in " ".join(text(last).split())
    start(pbm_env)
    # fay enters during round 1: paired from round 2, nothing for round 1
    send(pbm_env, "fay", f"signup fay {password('fay')}")
    [late] = send(pbm_env, "fay", f"xiangqi tournament join cup fay {password('fay')}")
    assert "late: you are paired from round 2 on" in " ".join(text(late).split())
    mails = play_out(pbm_env, lambda row: row[3])           # White wins every game
    second = pairings(pbm_env, 2)
    assert ("cat", None, "H") in [r[2:5] for r in second]
    assert "fay" in {u for r in second for u in r[2:4]}
    told = {m["To"].split("@")[0]: text(m) for m in mails
            if m["Subject"] == "Xiangqi tournament cup: round 2 of 3"}
    assert "You have the half-point bye you asked for in round 2." in " ".join(told["cat"].split())
    assert "cat               (half-point bye)" in told["ann"]
    send(pbm_env, "gus", "signup gus " + password("gus"))
    [refused] = send(pbm_env, "gus", f"xiangqi tournament join cup gus {password('gus')}")
    assert "takes no more entries" in text(refused)
    play_out(pbm_env, lambda row: row[3])
    mails = play_out(pbm_env, lambda row: row[3])
    assert any("won by" in m["Subject"] for m in mails)
    # after the end the director corrects a last-round game: a win for White becomes a draw
    number, row = next((r[5], r) for r in pairings(pbm_env, 3) if r[5])
    [nope] = send(pbm_env, "ben", f"xiangqi tournament correct cup ben {password('ben')} "
                                  f"{number} 1/2-1/2")
    assert "Only the director of cup, ann, can correct its results." in text(nope)
    mails = send(pbm_env, "ann", f"xiangqi tournament correct cup ann {password('ann')} "
                                 f"{number} 1/2-1/2")
    news = {m["To"].split("@")[0]: " ".join(text(m).split()) for m in mails
            if m["Subject"] == "Xiangqi tournament cup: a result corrected"}
    assert set(news) == {"ann", "ben", "cat", "dan", "eve", "fay"}
    assert (f"corrected the result of round 3, Board {number} ({row[2]} against {row[3]}) from "
            f"1-0 to 1/2-1/2") in news["fay"]
    assert "the rounds paired since stay as they are" in news["fay"]
    assert f"round 3, board {row[1]}, {row[2]} against {row[3]}: 1-0, now 1/2-1/2" in news["cat"]
    assert next(r for r in pairings(pbm_env, 3) if r[5] == number)[4] == "1/2-1/2"
    assert pbm_env.query("SELECT count(*) FROM rating_changes WHERE game_id = "
                         "(SELECT id FROM games WHERE board = ?)", (number,)) == [(2,)]
    # the crosstable and the TRF: cat's half-point bye, fay's round 1 not paired, the correction
    [shown] = send(pbm_env, "dan", "xiangqi tournament show cup")
    table = text(shown).split("Final standings:\n")[1].split("\n\n")[0].splitlines()
    cells = {line.split()[1]: line.split()[-3:] for line in table[1:]}
    assert cells["cat"][1] == "bye½" and cells["fay"][0] == "-"
    assert cells[row[2]][2].endswith("W=*") and cells[row[3]][2].endswith("B=*")
    assert "* a result the director corrected" in text(shown)
    assert "Corrected by the director: round 3" in " ".join(text(shown).split())
    [record] = send(pbm_env, "ann", "xiangqi tournament record cup")
    trf = next(p for p in record.iter_attachments()).get_content()
    trf = trf.decode() if isinstance(trf, bytes) else trf
    rows = {line[14:47].rstrip(): line for line in trf.splitlines() if line.startswith("001")}
    assert rows["fay"][91:99] == "0000 - Z" and rows["cat"][101:109] == "0000 - H"
    assert bbp.differences(bbp.check(trf, tmp_path)) == []      # FIDE's endorsed checker agrees


def test_an_accelerated_swiss_played_through(pbm_env, tmp_path):
    """Baku for 6 players and 3 rounds: GA is the top 4 (2 x ceil(6/4)), with a virtual point in
    rounds 1 and 2 (the first half of the 2 accelerated rounds, rounded up, is 1 round: 1 point in
    round 1, half a point in round 2).  Round 1 pairs GA among themselves; the TRF carries the
    virtual points (250) and bbpPairings' checker pairs every round the same."""
    users = ["ann", "ben", "cat", "dan", "eve", "fay"]
    open_tournament(pbm_env, users, "--system=swiss --rounds=3 --timeout=3 --accelerated")
    [shown] = send(pbm_env, "ben", "xiangqi tournament show cup")
    assert "Baku acceleration" in " ".join(text(shown).split())
    start(pbm_env)
    top = {"ann", "ben", "cat", "dan"}          # all rated 1600: the initial ranking by user id
    for r in pairings(pbm_env, 1):
        assert (r[2] in top) == (r[3] in top), r
    for _ in range(3):
        mails = play_out(pbm_env, lambda row: row[3] if row[1] % 2 else row[2])
    final = next(m for m in mails if "won by" in m["Subject"])
    assert "Final standings:" in text(final)
    [record] = send(pbm_env, "ann", "xiangqi tournament record cup")
    trf = next(p for p in record.iter_attachments()).get_content()
    trf = trf.decode() if isinstance(trf, bytes) else trf
    assert [line for line in trf.splitlines() if line.startswith("250")] == [
        line for n in range(1, 5) for line in (f"250       1.0   1   1 {n:>4} {n:>4}",
                                                f"250       0.5   2   2 {n:>4} {n:>4}")]
    assert bbp.differences(bbp.check(trf, tmp_path)) == []
    [refused] = send(pbm_env, "ann", f"xiangqi tournament create cup2 ann {password('ann')} "
                                     "--system=swiss --rounds=3 --accelerated --late=2")
    assert "--accelerated and --late do not go together" in " ".join(text(refused).split())
