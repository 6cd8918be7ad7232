"""pbm's Dutch system against bbpPairings, the pairing engine FIDE endorses (2025 rules), built from
source by the project's reference script: random Swiss tournaments of 5 to 60 players with byes,
forfeits, withdrawals, half-point byes asked for in advance, late entries and Baku acceleration.
Every round is paired by pbm and, from pbm's own TRF of the rounds before it (trf.request), by
bbpPairings: the same pairs with the same colours, every round.  At the end bbpPairings' checker
reads pbm's TRF of the whole tournament (trf.write) and finds no round it would pair otherwise.
(`bench/swiss_bbp.py` runs the same on 300 more tournaments.)
"""
from __future__ import annotations

import pytest

from pbm.tournaments import Game, trf
from support import bbp
from support.swiss_events import event, play

pytestmark = pytest.mark.slow   # ~40 tournaments, two pairers each: half a minute

SMALL = range(100, 136)         # 5 to 24 players
LARGE = range(200, 204)         # 40 to 60 players


@pytest.mark.parametrize("seed", [*SMALL, *LARGE])
def test_bbppairings_pairs_every_round_as_pbm_does(seed, tmp_path):
    plan = event(seed, 5, 24) if seed in SMALL else event(seed, 40, 60)
    differ, whole, relaxed = play(plan, tmp_path)
    assert differ == []
    # the checker re-pairs every round; where no pairing keeps the absolute criteria it says so
    found = bbp.differences(bbp.check(whole, tmp_path))
    assert found == [f"Round #{n}" for n in relaxed]


def test_the_events_hold_what_the_rules_are_about():
    """The sample has every case the pairing rules treat apart (so the test above tests them)."""
    plans = [event(s, 5, 24) for s in SMALL] + [event(s, 40, 60) for s in LARGE]
    assert min(len(p.entrants) for p in plans) <= 7 and max(len(p.entrants) for p in plans) >= 50
    assert sum(len(p.entrants) % 2 for p in plans) >= 10
    assert sum(bool(p.late) for p in plans) >= 5 and sum(bool(p.leaves) for p in plans) >= 5
    assert sum(bool(p.byes) for p in plans) >= 10 and sum(p.forfeits > 0 for p in plans) >= 10
    assert any(1 in p.byes for p in plans)          # a player missing round 1 (the first colour)
    assert sum(bool(p.virtual) for p in plans) >= 5                 # Baku acceleration


def test_the_checker_sees_a_round_paired_otherwise(tmp_path):
    """The comparison can fail: the same tournament with the top two boards' opponents swapped in
    round 2 is reported from round 2 on."""
    plan = event(SMALL[0], 12, 12)
    report = trf.read(play(plan, tmp_path)[1])
    second = sorted((g for g in report.games if g.round == 2 and not g.bye), key=lambda g: g.white)
    a, b = second[0], second[1]
    report.games = [g for g in report.games if g not in (a, b)] + [
        Game(2, a.white, b.black, a.result), Game(2, b.white, a.black, b.result)]
    found = bbp.differences(bbp.check(trf.write(report), tmp_path))
    assert found and found[0] == "Round #2"
