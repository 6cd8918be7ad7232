"""Tie-breaks recomputed by an independent reading of FIDE's Play-off and Tie-Break Regulations
(Handbook C.07: Articles 6-10, 14, 15 and 16), on random
Swiss tournaments and round robins with byes, forfeits and players who withdraw, and compared
with pbm's standings value by value and place by place.

The reading, written here from the text and not from pbm.tournaments.tiebreaks:
- 16.2 sorts a Swiss player's unplayed rounds: pairing-allocated bye (1), forfeit win (2),
  requested bye followed by a round that is not a VUR (3), forfeit loss (4), requested bye
  followed only by VURs (5); the rounds after a withdrawal are zero-point byes (16.1.1).
- 16.3: for the opponents' tie-breaks the player's score counts category 5 as draws.
- 16.4: the player's own unplayed rounds are games against a dummy scored as awarded, the dummy
  having the player's own score (as FIDE's 2024 exercise computes it: test_fide_exercise_2024).
- 10: ARO rounded to the nearest whole number, a half up.
- 14 and 16.5: Cut-1 drops the least significant value, but when the player has a VUR the lowest
  VUR value for Buchholz, and the higher of the two for Sonneborn-Berger; Median-1 then drops the
  most significant value.
- 15.2: a round robin's forfeits are games like any other.
"""
from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.tournaments import Entrant, Game, pair_round, swiss_rounds
from pbm.tournaments.standings import direct_encounter, standings
from pbm.tournaments.tiebreaks import NAMES

WIN, DRAW = 1.0, 0.5
CODES = ("BH", "BH-C1", "BH-C2", "BH-M1", "SB", "SB-C1", "WIN", "WON", "BPG", "BWG", "PS", "ARO")
RR_CODES = ("SB", "SB-C1", "DE", "WIN", "WON", "BPG", "BWG", "PS", "ARO")


def rows(user: str, games: list[Game], last: int, swiss: bool) -> list[dict]:
    """One dict per round 1..last: points, opponent, how the round went (category)."""
    out = []
    for n in range(1, last + 1):
        g = next((g for g in games if g.round == n and user in (g.white, g.black)), None)
        if g is None:
            out.append({"pts": 0.0, "opp": None, "kind": "requested"} if swiss else None)
            continue
        if g.black is None:
            out.append({"pts": WIN if swiss else 0.0, "opp": None, "kind": "bye"})
            continue
        mine = g.white == user
        pts = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (.5, .5), "+-": (1, 0), "-+": (0, 1),
               "--": (0, 0)}[g.result][0 if mine else 1]
        opp = g.black if mine else g.white
        if g.result in ("+-", "-+", "--") and swiss:
            out.append({"pts": float(pts), "opp": opp, "kind": "forfeit win" if pts else
                        "forfeit loss"})
        else:                   # 15.2: a round robin's forfeit is a game, but not for ARO,
            out.append({"pts": float(pts), "opp": opp, "kind": "game",    # nor a forfeit loss
                        "colour": "W" if mine else "B",                    # for BPG (type B)
                        "forfeit": g.result in ("+-", "-+", "--")})
    return [r for r in out if r is not None]


def vur(row: dict) -> bool:
    return row["kind"] in ("requested", "forfeit loss")


def category(record: list[dict], i: int) -> int:
    kind = record[i]["kind"]
    if kind == "requested":
        return 3 if any(not vur(r) for r in record[i + 1:]) else 5
    return {"bye": 1, "forfeit win": 2, "forfeit loss": 4}[kind]


def compute(entrants: list[Entrant], games: list[Game], swiss: bool
            ) -> dict[str, dict[str, float]]:
    last = max(g.round for g in games)
    record = {e.user: rows(e.user, games, last, swiss) for e in entrants}
    own = {u: sum(r["pts"] for r in rs) for u, rs in record.items()}
    adjusted = {u: sum(DRAW if r["kind"] != "game" and category(rs, i) == 5 else r["pts"]
                       for i, r in enumerate(rs)) for u, rs in record.items()}
    rating = {e.user: e.rating for e in entrants}
    found = {}
    for u, rs in record.items():
        bh = []                         # (value, opponent score, is VUR) per round
        sb = []
        for i, r in enumerate(rs):
            if not swiss:
                if r["opp"] is not None:
                    bh.append((own[r["opp"]], own[r["opp"]], False))
                    sb.append((r["pts"] * own[r["opp"]], own[r["opp"]], False))
                continue
            if r["kind"] == "game":
                opp_score = adjusted[r["opp"]]
            else:
                opp_score = own[u]
            bh.append((opp_score, opp_score, vur(r)))
            sb.append((r["pts"] * opp_score, opp_score, vur(r)))
        played = [r for r in rs if r["kind"] == "game"]
        opponents = [rating[r["opp"]] for r in played if not r["forfeit"]]
        running = [sum(x["pts"] for x in rs[:k + 1]) for k in range(len(rs))]
        found[u] = {"BH": sum(v for v, _, _ in bh), "BH-C1": cut(bh, 1, 0, "BH"),
                    "BH-C2": cut(bh, 2, 0, "BH"), "BH-M1": cut(bh, 1, 1, "BH"),
                    "SB": sum(v for v, _, _ in sb), "SB-C1": cut(sb, 1, 0, "SB"),
                    "WIN": float(sum(r["pts"] == WIN for r in rs)),
                    "WON": float(sum(r["pts"] == WIN for r in played)),
                    "BPG": float(sum(r["colour"] == "B" and not (r["forfeit"] and r["pts"] == 0)
                                     for r in played)),
                    "BWG": float(sum(r["colour"] == "B" and r["pts"] == WIN for r in played)),
                    "PS": float(sum(running)),
                    "ARO": float(int(Fraction(sum(opponents), len(opponents)) + Fraction(1, 2)))
                    if opponents else 0.0}
    return found


def cut(values: list[tuple[float, float, bool]], low: int, high: int, kind: str) -> float:
    """Article 14 with 16.5: `low` least significant values, then `high` most significant."""
    left = list(values)
    for _ in range(low):
        if not left:
            break
        least = sorted(left, key=lambda v: (v[1], v[0]))[0]    # lowest opponent, lowest product
        vurs = sorted((v for v in left if v[2]), key=lambda v: v[0])
        if vurs and kind == "BH":
            least = vurs[0]
        elif vurs and vurs[0][0] >= least[0]:
            least = vurs[0]
        left.remove(least)
    for _ in range(high):
        if left:
            left.remove(sorted(left, key=lambda v: (v[1], v[0]))[-1])
    return sum(v for v, _, _ in left)


def play(rng: random.Random, entrants: list[Entrant], system: str, rounds: int) -> list[Game]:
    """A random event: results with draws, forfeits (a game lost before its first move) and a
    player or two withdrawing after a round."""
    games: list[Game] = []
    gone: set[str] = set()
    for n in range(1, rounds + 1):
        for p in pair_round(system, entrants, games, n, withdrawn=gone, rounds=rounds):
            if p.black is None or p.result is not None:
                games.append(p.game())
                continue
            x = rng.random()
            result = "+-" if x < .08 else "-+" if x < .12 else "1/2-1/2" if x < .4 else \
                "1-0" if x < .7 else "0-1"
            games.append(Game(n, p.white, p.black, result))
        if rng.random() < 0.3 and n < rounds:
            gone.add(rng.choice([e.user for e in entrants if e.user not in gone]))
    return games


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32), n=st.integers(4, 10), system=st.sampled_from(
    ["swiss", "roundrobin"]))
def test_fide_tiebreaks_recomputed_with_byes_forfeits_and_withdrawals(seed, n, system):
    rng = random.Random(seed)
    entrants = [Entrant(f"p{i}", rng.randrange(1200, 2300), i + 1) for i in range(n)]
    rounds = swiss_rounds(n) if system == "swiss" else n - 1 + n % 2
    games = play(rng, entrants, system, rounds)
    codes = CODES if system == "swiss" else RR_CODES
    expected = compute(entrants, games, system == "swiss")
    for order in (codes, tuple(reversed(codes))):
        table = standings(system, entrants, games, order, rounds)
        for s in table:
            for code, value in s.tiebreaks:
                if code != "DE":
                    assert value == expected[s.user][code], (s.user, code)
        # the places: points, then each tie-break in order, then rating
        ranked = [s.user for s in table]
        points = {s.user: s.points for s in table}
        de = {s.user: dict(s.tiebreaks).get("DE", 0.0) for s in table}

        def key(u: str) -> tuple:
            rating = next(e.rating for e in entrants if e.user == u)
            return (-points[u], *(-(de[u] if c == "DE" else expected[u][c]) for c in order),
                    -rating, u)
        assert ranked == sorted(ranked, key=key)


def test_direct_encounter_only_when_all_the_tied_met():
    five = [Entrant(u, rating, i) for i, (u, rating) in
            enumerate(zip("abcde", (1500, 1600, 1700, 1800, 1900)), start=1)]
    # a, b, c end on 2 points and have all met: a beat b and drew c, b beat c, so among
    # themselves a has 1.5, b 1, c 0.5, which ranks them against their ratings.  d and e, on 1/2,
    # never met: DE leaves them tied (0), and the rating puts e first.
    games = [Game(1, "a", "b", "1-0"), Game(1, "c", "d", "1-0"),
             Game(2, "b", "c", "1-0"), Game(2, "d", "a", "1/2-1/2"),
             Game(3, "c", "a", "1/2-1/2"), Game(3, "b", "e", "1-0"),
             Game(4, "e", "c", "1/2-1/2")]
    table = standings("roundrobin", five, games, ("DE",))
    assert [(s.user, s.points, s.tiebreaks) for s in table] == [
        ("a", 2.0, (("DE", 1.5),)), ("b", 2.0, (("DE", 1.0),)), ("c", 2.0, (("DE", 0.5),)),
        ("e", 0.5, (("DE", 0.0),)), ("d", 0.5, (("DE", 0.0),))]
    assert [s.user for s in standings("roundrobin", five, games, ())][:3] == ["c", "b", "a"]


# FIDE's tie-break exercise of 18 March 2024 (tec.fide.com/2024/03/18/tie-break-exercise/), as the
# npm package `tiebreak` quotes it in its tests: 16 players, 5 rounds; +W9 a win with White over
# 9, =BYE a half-point bye, +BYE the pairing-allocated bye, -F11 a forfeit loss to 11, -- not paired.
EXERCISE = """\
1 +W9 =B13 =W2 +B15 =W4
2 +B10 +W7 =B1 +W16 =B3
3 =W11 +B6 +W8 =B4 =W2
4 +B12 =BYE +W13 =W3 =B1
5 -W13 -B15 +W11 =B7 +W10
6 -B14 -W3 +BYE +W10 +B8
7 +W15 -B2 -B16 =W5 -B11
8 =B16 +W14 -B3 +W13 -W6
9 -B1 -W10 =BYE -F11 +BYE
10 -W2 +B9 -W15 -B6 -B5
11 =B3 -W16 -B5 +F9 +W7
12 -W4 +BYE +F14 -- --
13 +B5 =W1 -B4 -B8 -W14
14 +W6 -B8 -F12 -- +B13
15 -B7 +W5 +B10 -W1 -B16
16 =W8 +B11 +W7 -B2 +W15"""
# FIDE's answers (exercises 1-8, 11 and 12), then the other tie-breaks worked out by hand
ANSWERS = {
    "BH": {"1": 12.5, "2": 13, "3": 15.5, "4": 15, "5": 8.5, "8": 13.5, "11": 13.5, "16": 12.5},
    "BH-C1": {"1": 11, "3": 13, "4": 11.5, "5": 7.5, "7": 12.5, "8": 12, "9": 7.5, "11": 12,
              "12": 9.5, "13": 12, "14": 9, "15": 11, "16": 11},
    "SB": {"1": 8, "2": 9.5, "3": 10.5, "4": 9.75, "5": 4.25, "6": 6.5, "7": 3.25, "8": 5.25,
           "10": 1.5, "11": 5.75, "12": 4, "13": 4.25, "14": 4.5, "15": 3.5, "16": 7.25},
    "BH-M1": {"11": 8.5}, "BH-C2": {"11": 9.5}, "BH-M2": {"11": 2.5}, "SB-C1": {"11": 4.25},
    "WIN": {"4": 2, "11": 2, "6": 3}, "WON": {"4": 2, "11": 1, "6": 2},
    "BPG": {"4": 2, "11": 2}, "BWG": {"4": 1, "11": 0}, "PS": {"4": 11.5, "11": 5.5},
    "ARO": {"4": 1573, "11": 1578}}
ADJUSTED = {"1": 3.5, "2": 4, "3": 3.5, "4": 3.5, "5": 2.5, "6": 3, "7": 1.5, "8": 2.5, "10": 1,
            "11": 2.5, "12": 3, "13": 1.5, "14": 2, "15": 2, "16": 3.5}


def exercise() -> tuple[list[Entrant], list[Game]]:
    """The exercise's players (rated 1500 + 10 a number, so that ARO has halves to round) and
    games."""
    games, seen = [], set()
    for line in EXERCISE.splitlines():
        player, *cells = line.split()
        for n, cell in enumerate(cells, start=1):
            opponent = cell[2:]
            if cell == "--" or (n, opponent) in seen:
                continue
            seen.add((n, player))
            if opponent == "YE":
                games.append(Game(n, player, None, "H" if cell[0] == "=" else None))
                continue
            mine = {"+": 1.0, "=": 0.5, "-": 0.0}[cell[0]]
            forfeit = cell[1] == "F"
            white, black = (opponent, player) if cell[1] == "B" else (player, opponent)
            points = mine if white == player else 1 - mine
            games.append(Game(n, white, black, {1.0: "+-", 0.0: "-+"}[points] if forfeit else
                              {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[points]))
    return [Entrant(str(i), 1500 + 10 * i, i) for i in range(1, 17)], games


def test_fide_exercise_2024():
    """Every tie-break pbm offers for a Swiss, on FIDE's exercise: FIDE's answers exactly."""
    from pbm.tournaments.tiebreaks import Tiebreaks
    entrants, games = exercise()
    values = Tiebreaks("swiss", entrants, games, 5)
    assert {u: values.adjusted[u] for u in ADJUSTED} == ADJUSTED
    assert set(ANSWERS) | {"DE"} == set(NAMES)
    for code, answers in ANSWERS.items():
        assert {u: values.value(code, u) for u in answers} == answers, code
    table = standings("swiss", entrants, games, ("BH-C1", "BH", "SB"), 5)
    assert [s.user for s in table][:4] == ["2", "3", "4", "1"]
    # DE among the four on 3.5: 4 has 1 (draws with 3 and 1), 1 and 3 have 0.5, 16 none, but 1
    # could still reach 2.5 with the games not played (3, 16): nobody is sure to top them
    assert direct_encounter(["1", "3", "4", "16"], games) == dict.fromkeys(["1", "3", "4", "16"], 0.0)


def test_direct_encounter_ranks_first_a_player_sure_to_top_the_group():
    """a, b, c, d tied on points; a beat b and c, c drew d, b and d never met, a and d never met:
    a has 2 among them, b could reach 0 + 2 (c, d), d 0.5 + 2 (a, b) = 2.5: nobody is sure.
    With a also beating d, a has 3 and nobody else can reach more than 2 (b): a first, the
    others still tied (rating decides)."""
    four = [Entrant(u, rating, i) for i, (u, rating) in
            enumerate(zip("abcd", (1500, 1600, 1700, 1800)), start=1)]
    games = [Game(1, "a", "b", "1-0"), Game(2, "c", "a", "0-1"), Game(3, "c", "d", "1/2-1/2")]
    assert direct_encounter(list("abcd"), games) == dict.fromkeys("abcd", 0.0)
    games.append(Game(4, "d", "a", "0-1"))
    assert direct_encounter(list("abcd"), games) == {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0}
