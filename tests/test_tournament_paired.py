"""Paired games (pbm.tournaments.paired), the pure part: a round robin's and a Swiss's pairing
rounds as two rounds of games, colours reversed; random paired Swiss tournaments paired by pbm
and, round by round from pbm's TRF, by bbpPairings (FIDE's endorsed program), the same first
games every pairing round; a paired knockout by the pair's total, with decider pairs or the
higher seed; the crosstable's column per pairing round and the TRF's two round blocks."""
from __future__ import annotations

import random

import pytest

from pbm.tournaments import Entrant, Game, knockout, paired, trf
from pbm.tournaments.crosstable import crosstable_text
from pbm.tournaments.standings import standings
from support import bbp


def entrants(n: int) -> list[Entrant]:
    return [Entrant(f"p{i:02d}", 2000.0 - 10 * i, i + 1) for i in range(n)]


def test_a_paired_round_robin_plays_each_berger_round_twice_colours_reversed():
    field = entrants(4)
    assert paired.rounds_needed("roundrobin", 4, None) == 6
    first = paired.pair_round("roundrobin", field, [], 1)
    assert [(p.round, p.white, p.black) for p in first] == [
        (1, "p00", "p03"), (1, "p01", "p02"), (2, "p03", "p00"), (2, "p02", "p01")]
    third = paired.pair_round("roundrobin", field, [], 5, withdrawn={"p01"})
    assert [(p.round, p.white, p.black, p.result) for p in third] == [
        (5, "p01", "p03", "-+"), (5, "p02", "p00", None),
        (6, "p03", "p01", "+-"), (6, "p00", "p02", None)]


def test_a_paired_swiss_gives_the_bye_for_both_games():
    field = entrants(5)
    games = paired.pair_round("swiss", field, [], 1, rounds=4)
    byes = [(g.round, g.white) for g in games if g.black is None]
    assert byes == [(1, "p04"), (2, "p04")]
    played = [g.game() if g.black is None else Game(g.round, g.white, g.black, "1-0")
              for g in games]
    assert {s.user: s.points for s in standings("swiss", field, played)}["p04"] == 2.0
    # the bye is barred from now on, and nobody meets the opponent of round 1 again
    nxt = paired.pair_round("swiss", field, played, 3, rounds=4)
    assert all(p.black is not None for p in nxt if p.white == "p04")
    met = {frozenset((g.white, g.black)) for g in played if g.black}
    assert not {frozenset((p.white, p.black)) for p in nxt if p.round == 3 and p.black} & met


def result(rng: random.Random) -> str:
    return rng.choice(["1-0", "0-1", "1/2-1/2", "1-0", "0-1"] * 6 + ["+-", "-+"])


@pytest.mark.parametrize("seed", range(8))
def test_bbppairings_pairs_the_first_games_of_a_paired_swiss_as_pbm(seed, tmp_path):
    """Every pairing round's first games, from the TRF of all the games before them (two round
    blocks a pairing round), as bbpPairings pairs them, with forfeits and a player who leaves; its
    checker reads the whole TRF and finds only the second games' rounds paired otherwise (it
    cannot know they repeat the first games), and pbm's own check (trf.check) finds nothing."""
    rng = random.Random(seed)
    field = entrants(rng.randint(5, 16))
    rounds = paired.rounds_needed("swiss", len(field), rng.randint(3, 5))
    leaver, leaves = rng.choice(field).user, rng.randrange(3, rounds + 1, 2)
    games: list[Game] = []
    relaxed: list[int] = []
    for n in range(1, rounds + 1, 2):
        gone = {leaver} if n >= leaves else set()
        report = trf.Report("paired", "swiss", rounds, field, games)
        users = {v: k for k, v in trf.starting_ranks(report).items()}
        ours = paired.pair_round("swiss", field, games, n, withdrawn=gone, rounds=rounds)
        theirs = bbp.pair(trf.request(report, n, frozenset(e.user for e in field) - gone),
                          tmp_path)
        if not theirs:          # neither finds a pairing within the absolute criteria
            assert any(p.relaxed for p in ours), f"round {n}"
            relaxed.append(n)
        else:
            assert {(users[w], users[b] if b else None) for w, b in theirs} == {
                (p.white, p.black) for p in ours if p.round == n}, f"round {n}"
        games += [p.game() if p.black is None else Game(p.round, p.white, p.black, result(rng))
                  for p in ours]
    whole = trf.write(trf.Report("paired", "swiss", rounds, field, games))
    assert bbp.differences(bbp.check(whole, tmp_path)) == [
        f"Round #{n}" for n in range(2, rounds + 1) if n % 2 == 0 or n in relaxed]
    assert trf.check(trf.read(whole)) == []
    # two round blocks a pairing round: each player has a cell for every game
    rows = [line for line in whole.splitlines() if line.startswith("001")]
    assert all(len(line) == 89 + 10 * rounds for line in rows)


def ko(results: dict[tuple[str, str], list[str]], decider: str) -> tuple[list[Game], list]:
    """A 4-player paired knockout's round 1 played with `results` (pair by White of game 1), and
    what it starts next."""
    field = entrants(4)
    games = [p.game() for p in paired.knockout_pairs(field, [], 1, frozenset(), decider)]
    while True:
        by_match: dict[frozenset, int] = {}
        played = []
        for g in games:
            key = frozenset((g.white, g.black))
            i = by_match.get(key, 0)
            by_match[key] = i + 1
            first = next(k for k in results if set(k) == key)
            played.append(g if g.result else Game(g.round, g.white, g.black, results[first][i]))
        games = played
        owed = paired.next_knockout(field, games, frozenset(), decider)
        if not owed or owed[0].round != 1:
            return games, owed
        games += [p.game() for p in owed]


def test_a_paired_knockout_goes_on_by_the_pairs_total():
    games, nxt = ko({("p00", "p03"): ["1-0", "1/2-1/2"], ("p01", "p02"): ["1/2-1/2", "1-0"]},
                    "pair")
    assert [(g.white, g.black) for g in games] == [
        ("p00", "p03"), ("p01", "p02"), ("p03", "p00"), ("p02", "p01")]
    # p00 1.5-0.5; p02 won the second game with White: 1.5-0.5
    assert knockout.winners(entrants(4), games, 1, "pair") == ["p00", "p02"]
    assert [(p.round, p.board, p.white, p.black) for p in nxt] == [
        (2, 1, "p00", "p02"), (2, 2, "p02", "p00")]
    assert [s.user for s in standings("knockout", entrants(4), games, decider="pair")][:2] == \
        ["p00", "p02"]


def test_a_tied_pair_plays_a_decider_pair_until_one_is_won():
    games, nxt = ko({("p00", "p03"): ["1/2-1/2", "1/2-1/2", "1-0", "1-0", "1-0", "0-1"],
                     ("p01", "p02"): ["1-0", "1/2-1/2"]}, "pair")
    between = [g for g in games if {g.white, g.black} == {"p00", "p03"}]
    assert len(between) == 6          # the pair, a tied decider pair (1-0, 1-0), a won one
    assert [(g.white, g.black) for g in between[2:4]] == [("p00", "p03"), ("p03", "p00")]
    assert knockout.winners(entrants(4), games, 1, "pair") == ["p00", "p01"]
    assert [(p.round, p.white, p.black) for p in nxt] == [(2, "p00", "p01"), (2, "p01", "p00")]


def test_decider_seed_lets_the_higher_seed_through():
    games, nxt = ko({("p00", "p03"): ["0-1", "0-1"], ("p01", "p02"): ["0-1", "1/2-1/2"]}, "seed")
    assert len(games) == 4
    # p00 v p03 tied 1-1: p00, the higher seed, goes on; p02 won 1.5-0.5
    assert knockout.winners(entrants(4), games, 1, "seed") == ["p00", "p02"]
    assert [(p.white, p.black) for p in nxt] == [("p00", "p02"), ("p02", "p00")]


def test_the_crosstable_shows_both_games_in_a_pairing_rounds_column():
    field = entrants(4)
    games = []
    for n in (1, 3):
        games += [Game(p.round, p.white, p.black, "1-0" if p.round == n else "1/2-1/2")
                  for p in paired.pair_round("swiss", field, games, n, rounds=4)]
    text = crosstable_text("swiss", field, games, rounds=4, paired="pair")
    header, *rows = text.splitlines()[:5]
    assert header.split()[-2:] == ["R1", "R2"]
    cells = {row.split()[1]: row.split()[-2:] for row in rows}
    opponent = next(g.black for g in games if g.white == "p00" and g.round == 1)
    assert cells["p00"][0].endswith("W1B=") and cells[opponent][0].endswith("B0W=")
    # two pairing rounds of two pairings: 8 games, each worth a point between its players
    assert sum(float(row.split()[2]) for row in rows) == 8


def test_a_paired_knockout_bye_is_one_and_a_withdrawal_forfeits_both_games():
    field = entrants(3)
    first = paired.next_knockout(field, [], frozenset({"p02"}), "pair")
    # p00 has the bye (once: it only carries them on); p01 v p02 both forfeited by p02
    assert [(p.board, p.white, p.black, p.result) for p in first] == [
        (1, "p01", "p02", "+-"), (2, "p00", None, None), (3, "p02", "p01", "-+")]
    games = [p.game() for p in first]
    assert knockout.winners(field, games, 1, "pair") == ["p00", "p01"]
    final = paired.next_knockout(field, games, frozenset({"p02"}), "pair")
    assert [(p.round, p.white, p.black) for p in final] == [(2, "p00", "p01"), (2, "p01", "p00")]


def test_a_tied_pair_with_a_double_forfeit_sends_the_higher_seed_through():
    field = entrants(2)
    games = [Game(1, "p00", "p01", "--"), Game(1, "p01", "p00", "--")]
    assert paired.deciders(field, games, 1, frozenset({"p00", "p01"}), "pair") == []
    assert knockout.winners(field, games, 1, "pair") == ["p00"]
