"""Tie-breaks on hand-worked tournaments, and the crosstable as text and as HTML."""
from __future__ import annotations

import random
from html.parser import HTMLParser

import pytest

from pbm.tournaments import Entrant, Game, knockout, pair_round, rounds_needed
from pbm.tournaments.crosstable import crosstable_html, crosstable_text
from pbm.tournaments.standings import standings

# A round robin of four, by the Berger table (1-4 2-3 / 4-3 1-2 / 2-4 3-1), w x y z numbered 1-4.
ROUND_ROBIN = [Entrant("w", 1900, 1), Entrant("x", 1800, 2), Entrant("y", 1700, 3),
               Entrant("z", 1600, 4)]
RR_GAMES = [Game(1, "w", "z", "1/2-1/2"), Game(1, "x", "y", "1-0"),
            Game(2, "z", "y", "0-1"), Game(2, "w", "x", "1-0"),
            Game(3, "x", "z", "+-"), Game(3, "y", "w", "1-0")]


def test_sonneborn_berger_by_hand():
    # Points: w 1/2 + 1 + 0 = 1.5; x 1 + 0 + 1 (forfeit) = 2; y 0 + 1 + 1 = 2; z 1/2.
    # SB = sum of points scored x the opponent's score; a round robin's pairings are fixed, so a
    # forfeit counts as a game (FIDE C.07 15.2):
    #   x: beat y (2) = 2, lost to w = 0, forfeit win over z (1/2) = 0.5   -> 2.5
    #   y: lost to x = 0, beat z (1/2) = 0.5, beat w (1.5) = 1.5           -> 2
    #   w: drew z = 0.5 x 0.5 = 0.25, beat x (2) = 2, lost to y = 0         -> 2.25
    #   z: drew w = 0.5 x 1.5 = 0.75, lost to y = 0, forfeit loss = 0       -> 0.75
    table = standings("roundrobin", ROUND_ROBIN, RR_GAMES)
    assert [(s.rank, s.user, s.points, s.tiebreaks, s.games) for s in table] == [
        (1, "x", 2.0, (("SB", 2.5),), 3), (2, "y", 2.0, (("SB", 2.0),), 3),
        (3, "w", 1.5, (("SB", 2.25),), 3), (4, "z", 0.5, (("SB", 0.75),), 3)]


def test_buchholz_with_byes_and_forfeits_by_hand():
    five = [Entrant(u, 2000 - 100 * i) for i, u in enumerate("abcde")]
    games = [Game(1, "a", "b", "1-0"), Game(1, "c", "d", "1/2-1/2"), Game(1, "e", None),
             Game(2, "e", "a", "0-1"), Game(2, "b", "c", "+-"), Game(2, "d", None),
             Game(3, "a", "d", "1/2-1/2"), Game(3, "c", "e", "0-1"), Game(3, "b", None)]
    # Points (a bye is a win): a 1+1+.5 = 2.5; b 0+1+1 = 2; c .5+0+0 = .5; d .5+1+.5 = 2;
    # e 1+0+1 = 2.  FIDE C.07 16.4: an unplayed round is a game against a dummy with the
    # player's own score (FIDE's 2024 exercise); a cut takes a forfeit loss first (16.5).
    #   a: b 2, e 2, d 2                         BH 6,   BH-M1 (drop 2 and 2) 2
    #   b: a 2.5, forfeit win 2 (own), bye 2     BH 6.5, BH-M1 (drop 2 and 2.5) 2
    #   d: c .5, bye 2, a 2.5                    BH 5,   BH-M1 2
    #   e: bye 2, a 2.5, c .5                    BH 5,   BH-M1 2  (d, e by rating)
    #   c: d 2, forfeit loss .5 (own), e 2       BH 4.5, BH-M1 (drop the forfeit, then 2) 2
    table = standings("swiss", five, games)
    assert [(s.user, s.points, dict(s.tiebreaks)) for s in table] == [
        ("a", 2.5, {"BH": 6.0, "BH-M1": 2.0}), ("b", 2.0, {"BH": 6.5, "BH-M1": 2.0}),
        ("d", 2.0, {"BH": 5.0, "BH-M1": 2.0}), ("e", 2.0, {"BH": 5.0, "BH-M1": 2.0}),
        ("c", 0.5, {"BH": 4.5, "BH-M1": 2.0})]
    assert [s.games for s in table] == [3, 2, 2, 2, 3]
    # chosen tie-breaks, in the order given
    #   (points first) WIN (with or without playing): a, b, e 2, d 1; BH-C1: a 4, b 4.5, e 4.5 (drop c's .5);
    #   SB: b 2 + 2 = 4 (the dummies), e 2 + .5 = 2.5, a 2 + 2 + 1 = 5
    ranked = standings("swiss", five, games, ("WIN", "BH-C1", "SB"))
    assert [(s.user, s.tiebreaks) for s in ranked][:4] == [
        ("a", (("WIN", 2.0), ("BH-C1", 4.0), ("SB", 5.0))),
        ("b", (("WIN", 2.0), ("BH-C1", 4.5), ("SB", 4.0))),
        ("e", (("WIN", 2.0), ("BH-C1", 4.5), ("SB", 2.5))),
        ("d", (("WIN", 1.0), ("BH-C1", 4.5), ("SB", 3.5)))]


def test_crosstable_cells_read_result_and_colour():
    lines = crosstable_text("roundrobin", ROUND_ROBIN, RR_GAMES).splitlines()
    assert lines[0].split() == ["Rk", "User", "Pts", "SB", "1", "2", "3", "4"]
    assert lines[1].split() == ["1", "x", "2", "2.5", "**", "1W", "0B", "+W"]
    assert lines[4].split() == ["4", "z", "0.5", "0.75", "-B", "0W", "=B", "**"]


def tournament(system: str, n: int, double: bool = False, rounds: int | None = None,
               width: int = 16) -> tuple[list[Entrant], list[Game]]:
    """A whole tournament of `n` players with the longest user ids, played with random results."""
    rng = random.Random(n)
    entrants = [Entrant(f"player{i:0{width - 6}}", rng.randrange(1200, 2400), i) for i in range(1, n + 1)]
    games: list[Game] = []

    def play(pairings):
        games.extend(p.game() if p.black is None else
                     Game(p.round, p.white, p.black, rng.choice(["1-0", "0-1", "1/2-1/2", "-+"]))
                     for p in pairings)

    if system == "knockout":                    # replays come between the rounds
        while pairings := knockout.next_pairings(entrants, games):
            play(pairings)
    else:
        for round_no in range(1, rounds_needed(system, n, rounds, double=double) + 1):
            play(pair_round(system, entrants, games, round_no, double=double))
    return entrants, games


@pytest.mark.parametrize("double", [False, True])
def test_a_round_robin_of_twelve_fits_78_columns(double):
    entrants, games = tournament("roundrobin", 12, double)
    lines = crosstable_text("roundrobin", entrants, games, double=double).splitlines()
    assert max(map(len, lines)) <= 78
    assert max(map(len, crosstable_html("roundrobin", entrants, games, double=double).splitlines())) <= 78
    assert lines[0].split()[-12:] == [str(n) for n in range(1, 13)]         # the full grid
    cells = [line.split()[-12:] for line in lines[1:13]]
    results = set("1=0+-")
    for rank, row in enumerate(cells):
        assert row[rank] == "**"
        others = row[:rank] + row[rank + 1:]
        if double:
            assert all(set(cell) <= results for cell in others)
        else:
            assert all(cell[0] in results and cell[1] in "WB" for cell in others)


def test_a_double_round_robin_cell_holds_the_result_with_white_then_with_black():
    games = RR_GAMES + [Game(3 + g.round, g.black, g.white, "1-0") for g in RR_GAMES]
    lines = crosstable_text("roundrobin", ROUND_ROBIN, games, double=True).splitlines()
    # x: against y 1-0 with White, then 0-1 with Black (y White won); against w 0-1 with Black
    # (w White won), then 1-0 with White; against z a forfeit win with White, then a loss.
    x = next(line for line in lines if line.split()[1:2] == ["x"]).split()
    ranks = {line.split()[1]: line.split()[0] for line in lines[1:5]}
    row = dict(zip(sorted(ranks, key=ranks.get), x[-4:]))
    assert row == {"x": "**", "y": "10", "w": "10", "z": "+0"}


def test_swiss_and_knockout_crosstables_show_each_round_and_fit():
    entrants, games = tournament("swiss", 11, rounds=5)
    text = crosstable_text("swiss", entrants, games)
    assert max(map(len, text.splitlines())) <= 78
    header = text.splitlines()[0].split()
    assert header[:5] == ["Rk", "User", "Pts", "BH", "BH-M1"] and header[5:] == ["R1", "R2", "R3",
                                                                                 "R4", "R5"]
    cells = [line.split() for line in text.split("\n\n")[0].splitlines()[1:]]
    assert sum(row.count("bye") for row in cells) == 5                 # one a round, each once
    entrants, games = tournament("knockout", 12)
    text = crosstable_text("knockout", entrants, games)
    assert max(map(len, text.splitlines())) <= 78 and text.splitlines()[0].split()[-4:] == \
        ["R1", "R2", "R3", "R4"]


def test_beyond_twelve_players_the_text_is_a_standings_table():
    entrants, games = tournament("swiss", 40, rounds=6)
    lines = crosstable_text("swiss", entrants, games).splitlines()
    assert lines[0].split() == ["Rk", "User", "Pts", "BH", "BH-M1", "Gms"]
    assert len(lines) == 1 + 40 + 2 and max(map(len, lines)) <= 78
    ranked = standings("swiss", entrants, games)
    assert [line.split()[1] for line in lines[1:41]] == [s.user for s in ranked]


class Cells(HTMLParser):
    """The tags and the text of each row of an HTML table."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        assert all(name in ("style", "colspan") for name, _ in attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_data(self, data):
        if self.rows and self.rows[-1] and data.strip():
            self.rows[-1][-1] += data


def test_the_html_table_holds_the_same_cells_as_the_text():
    entrants = ROUND_ROBIN[:3] + [Entrant("<z&>", 1600, 4)]
    games = [Game(g.round, *(("<z&>" if u == "z" else u) for u in (g.white, g.black)), g.result)
             for g in RR_GAMES]
    parsed = Cells()
    parsed.feed(crosstable_html("roundrobin", entrants, games))
    assert parsed.tags == {"table", "tr", "th", "td"}
    text = crosstable_text("roundrobin", entrants, games).splitlines()
    assert parsed.rows[:5] == [line.split() for line in text[:5]]
    assert parsed.rows[4][1] == "<z&>"                                 # escaped, and read back
