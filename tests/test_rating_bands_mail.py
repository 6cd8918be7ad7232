"""Rating bands that ask for a sure rating, and the rating list, by mail through `pbm deliver`
(one process per mail): `--band=1600-1900 --sure` lets in a sure rating inside the band and
refuses one outside it, one that is not sure yet and a new player, each saying why; `GAME ratings`
lists sure ratings only, `GAME standings` everyone, both as `1843 ±96`."""
from __future__ import annotations

from datetime import datetime, timezone

from support.postoffice import text
from test_tournament_mail import address, password, send

from pbm.model.db import timestamp


def _rated(env, user: str, rating: float, deviation: float) -> None:
    """`user` has played their rated games: their row as the ratings hold it after their last game,
    a moment ago (the arithmetic itself is tests/test_ratings.py's)."""
    env.query("INSERT INTO ratings (variant, user_id, rating, games, wins, losses, draws, deviation, "
              "volatility, latest) VALUES ('xiangqi', ?, ?, 30, 10, 10, 10, ?, 0.06, ?)",
              (user, rating, deviation, timestamp(datetime.now(timezone.utc))))


def test_a_band_for_sure_ratings_by_mail(pbm_env):
    for user in ("ann", "ben", "cat", "dan", "eve"):
        send(pbm_env, user, f"signup {user} {password(user)}")
    _rated(pbm_env, "cat", 1843.2, 48)          # sure, in the band
    _rated(pbm_env, "dan", 1750, 90)            # in the band, not sure
    _rated(pbm_env, "eve", 2010, 50)            # sure, above the band
    [created] = send(pbm_env, "ann", f"xiangqi tournament create keen ann {password('ann')} "
                                     f"--system=roundrobin --band=1600-1900 --sure")
    said = " ".join(text(created).split())
    assert "Players rated 1600 to 1900 in Xiangqi may join (a new player counts as 1500)." in said
    assert "Only sure ratings may join: deviation at most 75, shown as ± 150 or less." in said
    [shown] = send(pbm_env, "ben", "xiangqi tournament show keen")
    assert "Only sure ratings may join" in " ".join(text(shown).split())

    [joined] = send(pbm_env, "cat", f"xiangqi tournament join keen cat {password('cat')}")
    assert "player number 1" in text(joined) and joined["To"] == address("cat")
    [refused] = send(pbm_env, "dan", f"xiangqi tournament join keen dan {password('dan')}")
    assert ("keen takes only players whose Xiangqi rating is sure: deviation at most 75, shown as "
            "± 150 or less. The rating of dan is 1750 ±180; it grows surer with every rated game. "
            "Tournaments that take everyone: xiangqi tournaments") in " ".join(text(refused).split())
    [refused] = send(pbm_env, "eve", f"xiangqi tournament join keen eve {password('eve')}")
    assert "and the rating of eve is 2010 ±100." in " ".join(text(refused).split())
    [refused] = send(pbm_env, "ben", f"xiangqi tournament join keen ben {password('ben')}")
    assert "and the rating of ben is 1500? ±1000." in " ".join(text(refused).split())
    assert pbm_env.query("SELECT user_id FROM tournament_entrants") == [("cat",)]

    [wrong] = send(pbm_env, "ann", f"xiangqi tournament create odd ann {password('ann')} "
                                   f"--system=roundrobin --sure=yes")
    assert "--sure stands alone, without a value" in " ".join(text(wrong).split())

    [listed] = send(pbm_env, "ben", "xiangqi ratings")
    body = text(listed)
    assert listed["Subject"] == "Xiangqi ratings"
    assert [line.split()[:4] for line in body.splitlines() if line[:5].strip().isdigit()] == [
        ["1", "eve", "2010", "±100"], ["2", "cat", "1843", "±96"]]
    assert "Listed: sure ratings only (deviation at most 75). Everyone: the standings." in body
    assert max(len(line) for line in body.splitlines()) <= 78
    [everyone] = send(pbm_env, "ben", "xiangqi standings")
    rows = [line.split()[:3] for line in text(everyone).splitlines() if line[:5].strip().isdigit()]
    assert rows == [["1", "eve", "2010"], ["2", "cat", "1843"], ["3", "dan", "1750"]]
    [none] = send(pbm_env, "ben", "janggi ratings")
    assert "No rating is sure yet" in text(none)
