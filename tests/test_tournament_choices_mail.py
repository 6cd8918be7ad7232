"""A director's choices through `pbm deliver`, one process per mail: a rating band refusing a join,
and the TRF of a Swiss: `GAME tournament record NAME` attaches it, it reads back line by line into
the same pairings and results as the database's, `pbm tournament check` pairs its rounds again with
pbm's pairer and finds no difference, bbpPairings' checker finds none either, and `pbm export`
writes the same file."""
from __future__ import annotations

from pathlib import Path

from support import bbp
from support.postoffice import text
from test_tournament_mail import (PLAYERS, address, open_tournament, pairings, password, play_out,
                                  send, start)

from pbm.tournaments.trf import read, write


def test_a_swiss_record_is_a_trf_that_reads_back(pbm_env, tmp_path: Path):
    users = PLAYERS[:5]
    open_tournament(pbm_env, users, "--system=swiss --rounds=3 --tiebreaks=BH-C1,SB --timeout=3")
    start(pbm_env)
    for _ in range(3):
        play_out(pbm_env, lambda row: row[3] if row[1] % 2 else row[2])
    [mail] = send(pbm_env, "ben", "xiangqi tournament record cup")
    assert mail["Subject"] == "Xiangqi tournament cup: TRF"
    assert "as a FIDE Tournament Report File (TRF-16), attached as xiangqi-cup.trf" in " ".join(
        text(mail).split())
    [attached] = [part for part in mail.iter_attachments() if part.get_filename() == "xiangqi-cup.trf"]
    trf = attached.get_content()
    trf = trf.decode() if isinstance(trf, bytes) else trf
    lines = trf.splitlines()
    assert lines[0] == "012 cup" and "092 Swiss Dutch system" in lines and lines[-1] == "XXR 3"
    assert "102 ann" in lines and "122 3 days a move" in lines
    report = read(trf)
    assert write(report, ("BH-C1", "SB")) == trf                 # line by line
    numbers = {e.user: e.number for e in report.entrants}
    assert sorted(numbers, key=numbers.get) == users              # all 1600: by rating, then name
    stored = {(r[0], r[2], r[3], r[4]) for r in pairings(pbm_env)}
    assert {(g.round, g.white, g.black, g.result) for g in report.games} == stored
    for line in (line for line in lines if line.startswith("001")):
        assert len(line) == 89 + 3 * 10

    assert bbp.differences(bbp.check(trf, tmp_path)) == []      # FIDE's endorsed checker agrees
    path = tmp_path / "cup.trf"
    path.write_text(trf)
    checked = pbm_env.run("tournament", "check", str(path))
    assert checked.returncode == 0, checked.stderr
    assert f"{path}: cup, 5 players, 3 rounds paired again by pbm's Dutch system: 0 differ" in \
        checked.stdout.decode()
    exported = pbm_env.run("export", str(tmp_path / "out"))
    assert exported.returncode == 0 and "trf 1" in exported.stdout.decode()
    assert (tmp_path / "out" / "trf" / "xiangqi-cup.trf").read_text() == trf


def test_a_join_outside_the_rating_band_is_refused(pbm_env):
    for user in ("ann", "ben", "cat"):
        send(pbm_env, user, f"signup {user} {password(user)}")
    [created] = send(pbm_env, "ann", f"xiangqi tournament create open ann {password('ann')} "
                                     f"--system=roundrobin --band=1600-1900")
    assert "Players rated 1600 to 1900 in Xiangqi may join (a new player counts as 1500)." in \
        " ".join(text(created).split())
    # everyone starts at 1500: ben is refused, with the band and his rating named
    [refused] = send(pbm_env, "ben", f"xiangqi tournament join open ben {password('ben')}")
    said = " ".join(text(refused).split())
    assert ("open takes players rated 1600 to 1900 in Xiangqi, and the rating of ben is 1500? ±1000. "
            "Tournaments that take everyone: xiangqi tournaments") in said
    assert pbm_env.query("SELECT count(*) FROM tournament_entrants") == [(0,)]
    [created] = send(pbm_env, "ann", f"xiangqi tournament create wide ann {password('ann')} "
                                     f"--system=roundrobin --band=1400-1700")
    [joined] = send(pbm_env, "cat", f"xiangqi tournament join wide cat {password('cat')}")
    assert "player number 1" in text(joined) and address("cat") == joined["To"]


def test_a_thematic_round_robin_to_its_end_is_rated(pbm_env):
    users = PLAYERS[:3]
    open_tournament(pbm_env, users, "--system=roundrobin --theme=h3e3,h10g8,H2+3")
    [shown] = send(pbm_env, "ben", "xiangqi tournament show cup")
    assert "A thematic tournament: every game starts after 1. C2=5 H8+7 2. H2+3." in " ".join(
        text(shown).split())
    mails = start(pbm_env)
    new = [m for m in mails if m["Subject"].startswith("New Xiangqi Board")]
    assert new and all("A thematic game: it starts after 1. C2=5 H8+7 2. H2+3 (book)." in
                       " ".join(text(m).split()) for m in new)
    for _ in range(3):                      # three rounds: each game, Black (to move) plays, Red resigns
        for row in [r for r in pairings(pbm_env) if r[5] is not None and r[4] is None]:
            _, _, white, black, _, number = row
            assert pbm_env.query(f"SELECT to_move, ply FROM games WHERE board = {number}") == [
                (black, 0)]
            send(pbm_env, black, f"xiangqi move {number} {black} {password(black)} a7a6")
            mails = send(pbm_env, white, f"xiangqi resign {number} {white} {password(white)}")
    assert pbm_env.query("SELECT status FROM tournaments") == [("finished",)]
    # every game started from the theme's position, rated, its result a game's, not a forfeit
    fens = pbm_env.query("SELECT DISTINCT start_fen, rated FROM games")
    assert fens == [("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2", 1)]
    assert {r[4] for r in pairings(pbm_env) if r[3]} == {"0-1"}
    assert pbm_env.query("SELECT count(DISTINCT game_id) FROM rating_changes") == [(3,)]
    assert all(rating != 1500 for (rating,) in pbm_env.query("SELECT rating FROM ratings WHERE variant = 'xiangqi'"))
    number = pairings(pbm_env)[0][5]
    [record] = send(pbm_env, "ann", f"xiangqi record {number}")
    pgn = " ".join(text(record).split())
    assert "[SetUp \"1\"]" in pgn and "{book: 1. C2=5 H8+7 2. H2+3} 2... " in pgn
