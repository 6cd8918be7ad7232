"""The knockout: the seeded bracket, byes, a drawn game and its replay, the standings."""
from __future__ import annotations

from dataclasses import replace
from itertools import zip_longest

from pbm.tournaments import Entrant, Game, knockout, pair_round, rounds_needed
from pbm.tournaments.standings import standings

EIGHT = [Entrant(f"s{seed}", 2400 - 50 * seed) for seed in (3, 8, 1, 6, 4, 7, 2, 5)]   # any order


def boards(pairings) -> list[tuple[str, str | None, str | None]]:
    return [(p.white, p.black, p.result) for p in pairings]


def test_the_standard_bracket():
    assert knockout.bracket(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert knockout.bracket(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert [rounds_needed("knockout", n) for n in (2, 3, 4, 5, 8, 9, 16)] == [1, 2, 2, 3, 3, 4, 4]


def test_byes_go_to_the_top_seeds():
    six = [e for e in EIGHT if e.user not in ("s7", "s8")]
    first = pair_round("knockout", six, [], 1)
    assert boards(first) == [("s4", "s5", None), ("s3", "s6", None), ("s1", None, None),
                             ("s2", None, None)]


def test_eight_players_with_a_drawn_game_replayed_with_colours_reversed():
    games: list[Game] = []

    def play(pairings, *results):
        """Start the games (nothing more is to start while they are played), then finish them."""
        started = [p.game() for p in pairings]
        if any(g.result is None for g in started):
            assert knockout.next_pairings(EIGHT, games + started) == []
        games.extend(replace(g, result=g.result or r) for g, r in zip_longest(started, results))

    round1 = knockout.next_pairings(EIGHT, games)
    # 1 v 8, 4 v 5, 2 v 7, 3 v 6; nobody has played, so the higher seed has White
    assert boards(round1) == [("s1", "s8", None), ("s4", "s5", None), ("s2", "s7", None),
                              ("s3", "s6", None)]
    play(round1, "1-0", "1/2-1/2", "1/2-1/2", "0-1")
    replays = knockout.next_pairings(EIGHT, games)
    assert boards(replays) == [("s5", "s4", None), ("s7", "s2", None)]
    assert [p.round for p in replays] == [1, 1]
    play(replays, "1-0", "1/2-1/2")                   # s5 wins the replay; s2 v s7 drawn twice
    assert knockout.winners(EIGHT, games, 1) == ["s1", "s5", "s2", "s6"]
    round2 = knockout.next_pairings(EIGHT, games)
    # White to whoever has had it less often: s5 (once each) before s1 (White once), s6 before s2
    assert boards(round2) == [("s5", "s1", None), ("s6", "s2", None)]
    play(round2, "0-1", "1-0")
    final = knockout.next_pairings(EIGHT, games, withdrawn={"s1"})
    assert boards(final) == [("s1", "s6", "-+")]               # s1 withdrew: s6 wins by forfeit
    play(final)
    assert knockout.next_pairings(EIGHT, games) == []
    assert knockout.reached(EIGHT, games)["s6"] == 4
    table = standings("knockout", EIGHT, games)
    assert [(s.user, s.points) for s in table] == [
        ("s6", 3.0), ("s1", 2.0),                                  # champion, finalist
        ("s5", 1.5), ("s2", 1.0),                                  # semi-finals, by points
        ("s7", 1.0), ("s4", 0.5), ("s3", 0.0), ("s8", 0.0)]        # then by rating
    assert [s.tiebreaks for s in table][:3] == [(("Round", 4.0),), (("Round", 3.0),), (("Round", 2.0),)]


def test_the_next_round_waits_for_every_match():
    round1 = pair_round("knockout", EIGHT, [], 1)
    games = [Game(1, p.white, p.black, "1-0") for p in round1[:-1]]
    assert knockout.winners(EIGHT, games, 1) is None
    try:
        pair_round("knockout", EIGHT, games, 2)
    except ValueError as error:
        assert "not decided" in str(error)
    else:
        raise AssertionError("paired round 2 before round 1 was decided")
