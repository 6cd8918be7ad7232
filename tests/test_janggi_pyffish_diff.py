"""The Janggi rules core against Fairy-Stockfish (pyffish), live, position by position.

Every run plays seeded random playouts (tests/pyffish_playouts.py) from all sixteen pairs of Cho's and
Han's horse/elephant arrangements -- openings, pass-happy games, capture-hungry check-seeking games to
the end -- and from hand-made positions (bikjang, a check through a cannon's screen, palace diagonals,
the 100-ply limit), about 2,500 positions, and asks pyffish about every position: its legal moves, its
FEN, check, and how the game ends. The rules core must agree on all of it, reach each arranged start
through Game.setup (Han choosing before or after Cho's first move) and replay the games through
Game.from_record and Game.at.

Rule sets. The project's default (bikjang and two passes in a row are draws) is pyffish's
`janggitraditional`; the `points` parameter is pyffish's `janggi` (tournament rules: those endings go to
the side with more material, Han +1.5). Both have the same legal moves, so the playouts are played with
`janggitraditional` and every ending is also put to `janggi` and to a points game of the rules core.
Where the two engines differ, the test says how it accounts for it:
  - the pass: pyffish writes it as the king's move to its own point (e2e2); the rules core writes
    `pass` and also reads e2e2;
  - a game over: pyffish lists no legal moves once a pass has ended the game; the rules core gives the
    result instead, and the position's own moves (`Game.position`) are compared with what pyffish
    lists for the same FEN without the history;
  - 100 plies without capture: in Fairy-Stockfish an ending a player may claim (is_optional_game_end);
    the rules core ends the game there, as a mail server cannot wait for a claim, so its result is
    compared with the claim's;
  - repetition is not compared: the playouts never repeat a position three times.
"""
from __future__ import annotations

import functools
from collections import Counter

import pyffish as sf
import pytest
from support.pyffish_playouts import (
    PlayoutPlan,
    Report,
    Verdicts,
    board,
    check_replay,
    compare_all,
    disagreements,
    is_pass,
    playout,
    rules_checking_moves,
    split_move,
)

import rules
from rules.notation import format_move

VARIANT = "janggitraditional"  # the project's default rule set
POINTS_VARIANT = "janggi"      # parameter `points`
LOOK_BACK = 2                  # pyffish needs the last two moves to see two passes in a row

# The back ranks of the four arrangements, written out here rather than taken from the rules core.
# Each side names them from its own seat, so Han's left is the i-file.
CHO_RANK = {"inner": "RNBA1ABNR", "left": "RBNA1ABNR", "right": "RNBA1ANBR", "outer": "RBNA1ANBR"}
HAN_RANK = {"inner": "rnba1abnr", "left": "rnba1anbr", "right": "rbna1abnr", "outer": "rbna1anbr"}
VALUES = {"R": 13, "C": 7, "N": 5, "B": 3, "A": 3, "P": 2}  # docs/games.md; Han gets 1.5 more

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def arranged_start(cho: str, han: str) -> str:
    return f"{HAN_RANK[han]}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{CHO_RANK[cho]} w - - 0 1"


# Hand-made positions for what random play rarely reaches: (FEN, plies without capture to stop at).
EDGE_FENS: list[tuple[str, int]] = [
    ("4k4/9/9/9/9/9/9/9/4K4/9 w - - 0 1", 50),  # bikjang: break the facing or pass
    ("4k4/9/9/9/9/9/9/9/r3K4/9 w - - 0 1", 50),  # bikjang and check: the pass is still legal
    ("4k4/9/9/9/4N4/9/9/9/4K4/R8 w - - 0 1", 50),  # the horse may step aside into bikjang
    ("4k4/9/9/4c4/9/9/4N4/9/4K4/9 w - - 0 1", 50),  # check through the horse as screen: no pass
    ("4k4/4r4/9/9/9/9/9/4N4/4K4/9 w - - 0 1", 50),  # a horse pinned on the king's file
    ("3k1r3/4a4/3C5/9/9/9/9/9/9/4K4 w - - 0 1", 50),  # cannon on a palace diagonal over an advisor
    ("3k1r3/4c4/3C5/9/9/9/9/9/9/4K4 w - - 0 1", 50),  # ... but never over a cannon
    ("3k1a3/4n4/3C5/9/9/9/9/9/4K4/3C5 w - - 0 1", 50),  # ... and over its own king
    ("3k5/4P4/3P1P3/9/9/9/9/9/9/5K3 b - - 0 1", 50),  # soldiers along the enemy palace diagonals
    ("3akr3/4a4/3P1P3/2C6/4R4/9/9/9/4A4/3K5 w - - 0 1", 50),  # Cho storms Han's palace
    ("3k5/4a4/9/9/9/9/4r4/2cp1p3/9/3KAR3 b - - 0 1", 50),  # Han storms Cho's palace
    ("4k4/9/3R5/9/9/9/9/5r3/4K4/3A5 w - - 0 1", 50),  # chariots on palace diagonals
    ("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", 50),  # Cho mates in one
    ("1r1k5/9/9/9/9/9/9/9/r8/4K4 b - - 0 1", 50),  # Han mates in one
    ("3k5/9/9/9/9/9/9/9/4A4/4KR3 w - - 96 80", 100),  # reaches 100 plies without capture: Cho ahead
    ("3k1r3/9/9/9/9/9/9/9/9/4K4 w - - 97 80", 100),  # ... Han ahead
]


def playout_plans() -> list[PlayoutPlan]:
    plans = []
    for cho in CHO_RANK:
        for han in HAN_RANK:
            start = arranged_start(cho, han)
            for i in range(2):  # openings and middlegames, now and then a pass
                plans.append(PlayoutPlan(f"open-{cho}-{han}-{i}", start, 12 + 25 * i, 0.3, 0.1, 0.04))
            plans.append(PlayoutPlan(f"pass-{cho}-{han}", start, 30, 0.5, 0.1, 0.35))
            plans.append(PlayoutPlan(f"end-{cho}-{han}", start, 160, 0.9, 0.5))
    for k, (fen, quiet_limit) in enumerate(EDGE_FENS):
        for i in range(3):
            if quiet_limit < 100:
                plan = PlayoutPlan(f"edge-{k:02d}-{i}", fen, 10, 0.5, 0.4 + 0.3 * i, 0.1)
            else:  # quiet moves on the way to the 100-ply limit
                plan = PlayoutPlan(f"edge-{k:02d}-{i}", fen, 10, 0.0, 0.0, 0.0, quiet_limit)
            plans.append(plan)
    return plans


PLANS = playout_plans()


def ours(move: str) -> str:
    """pyffish's move as the rules core writes it."""
    return "pass" if is_pass(move) else move


def kings_face(fen: str) -> bool:
    squares = board(fen)
    kings = sorted((sq for sq, p in squares.items() if p in "Kk"), key=lambda sq: int(sq[1:]))
    low, high = (int(sq[1:]) for sq in kings)
    file = kings[0][0]
    return kings[1][0] == file and not any(f"{file}{rank}" in squares for rank in range(low + 1, high))


def points(fen: str) -> tuple[float, float]:
    squares = board(fen).values()
    return (sum(VALUES.get(p, 0) for p in squares if p.isupper()),
            sum(VALUES.get(p.upper(), 0) for p in squares if p.islower()) + 1.5)


def count_moves(verdicts: Verdicts, counts: Counter[str]) -> None:
    """What kinds of moves the position offers, for the coverage test."""
    squares = board(verdicts.fen)
    for move in verdicts.legal:
        start, end = split_move(move)
        if start == end:
            counts["pass legal"] += 1
            continue
        counts["captures"] += end in squares
        piece = squares[start].upper()
        diagonal = start[0] != end[0] and int(start[1:]) != int(end[1:])
        if diagonal and piece in "KARCP":
            counts[f"palace-diagonal move of {piece}"] += 1
        counts[f"move of {piece}"] += 1


def expected_ending(verdicts: Verdicts, variant: str) -> tuple[str, str] | None:
    """(result, reason) pyffish's `variant` gives the position: None while the game goes on."""
    fen, side = verdicts.fen, verdicts.fen.split()[1]
    to_move_wins = ("1-0", "0-1") if side == "w" else ("0-1", "1-0")
    base, recent = verdicts.base_fen, list(verdicts.recent)
    if not verdicts.legal:  # the legal moves are the same in both rule sets
        ended, value = sf.is_immediate_game_end(variant, base, recent)
        if ended:
            passes = len(recent) == 2 and all(map(is_pass, recent))
            reason = "two passes in a row" if passes else "bikjang"
        else:
            value = sf.game_result(variant, base, recent)
            reason = "checkmate" if verdicts.check else "no legal move, not in check"
    elif int(fen.split()[4]) >= 100:
        ended, value = sf.is_optional_game_end(variant, base, recent)
        if not ended:
            return None
        reason = "100 plies without capture"
    else:
        return None
    if value == 0:
        return "1/2-1/2", reason
    if reason != "checkmate":
        cho, han = points(fen)
        reason += f": decided on points, Cho {cho:g} - Han {han:g}"
    return to_move_wins[0] if value > 0 else to_move_wins[1], reason


def compare_position(game: rules.Game, verdicts: Verdicts, counts: Counter[str]) -> list[str]:
    """The differences between the rules core and pyffish on one position (`game` reached it by playing
    the playout's moves)."""
    fen = verdicts.fen
    expected = sorted(ours(m) for m in verdicts.legal)
    counts["positions"] += 1
    counts["Han to move"] += fen.split()[1] == "b"
    counts["in check"] += verdicts.check
    counts["kings face"] += kings_face(fen)
    counts["legal moves"] += len(expected)
    count_moves(verdicts, counts)
    problems: list[str] = []
    if game.fen() != fen:
        problems.append(f"after the same moves rules writes FEN {game.fen()!r}")
    if game.in_check() != verdicts.check:
        problems.append(f"rules in_check() = {game.in_check()}, pyffish gives_check = {verdicts.check}")
    ending = expected_ending(verdicts, VARIANT)
    try:
        fresh = rules.Game.new("janggi", fen=fen)
    except rules.RulesError as exc:
        # After a pass in check while the kings faced, the game is over with the passer still in
        # check: no game can start there, and the rules core says so.
        if ending is None or not kings_face(fen):
            problems.append(f"rules refuses pyffish's FEN: {exc}")
        fresh = None
    if fresh and fresh.fen() != fen:
        problems.append(f"FEN round trip: rules reads pyffish's FEN and writes {fresh.fen()!r}")

    if ending is None:
        legal = set(game.legal_moves())
        if legal != set(expected):
            problems.append(f"legal in pyffish, not in rules: {sorted(set(expected) - legal)}; "
                            f"legal in rules, not in pyffish: {sorted(legal - set(expected))}")
        if game.legal_moves() != sorted(game.legal_moves()):
            problems.append("legal_moves() is not sorted")
        if fresh and fresh.legal_moves() != expected:
            problems.append("set up from the FEN, rules gives other legal moves than the played game")
        if game.result != "*":
            problems.append(f"rules ends the game ({game.result}, {game.reason}); pyffish plays on")
        return problems

    # The game is over: compare the verdicts of both rule sets, and the moves the position allows.
    counts[ending[1]] += 1
    if game.legal_moves():
        problems.append("the game is over but rules still lists legal moves")
    if (game.result, game.reason) != ending:
        problems.append(f"rules ends the game {(game.result, game.reason)}, pyffish {ending}")
    scored = rules.Game.from_record("janggi", {**game.params, "points": True}, game.start_fen, game.moves)
    on_points = expected_ending(verdicts, POINTS_VARIANT)
    counts[f"{on_points[0]} on points"] += ": decided on points" in on_points[1]
    if (scored.result, scored.reason) != on_points:
        problems.append(f"with points rules ends the game {(scored.result, scored.reason)}, pyffish "
                        f"{on_points}")
    position_moves = sorted(format_move(game.variant, m) for m in game.position.legal_moves())
    if fresh and position_moves != sorted(ours(m) for m in sf.legal_moves(VARIANT, fen, [])):
        problems.append(f"the position's own moves differ from pyffish's for the FEN: {position_moves}")
    return problems


def compare_moves(plan: PlayoutPlan, report: Report) -> None:
    """Every position and played move of the playout; the arranged start reached through Game.setup
    (Han choosing before Cho's first move in half the playouts, after it in the others); then the
    replays of the whole game."""
    arranged = plan.name.split("-")[1:3] if not plan.name.startswith("edge") else None
    han_after_cho = arranged is not None and plan.name.endswith("-1")
    if arranged:
        game = rules.Game.new("janggi")
        game.setup("w", arranged[0])
        if not han_after_cho:
            game.setup("han", arranged[1])
    else:
        game = rules.Game.new("janggi", fen=plan.start_fen)
    moves: list[str] = []
    fens: list[str] = []
    for verdicts in playout(VARIANT, plan, functools.partial(rules_checking_moves, "janggi"), LOOK_BACK):
        where = f"{plan.name} ply {verdicts.ply}"
        judged = game
        if verdicts.move is not None:
            try:
                played = game.play(verdicts.move)  # pyffish's spelling: e2e2 for a pass
            except rules.RulesError as exc:
                report.problems.append(f"{where}: rules refuses pyffish's move {verdicts.move}: {exc}")
                return
            if played != ours(verdicts.move):
                report.problems.append(f"{where}: Game.play({verdicts.move!r}) returned {played!r}")
            report.counts["passes played"] += played == "pass"
            moves.append(played)
            if han_after_cho and verdicts.ply == 1:
                game.setup("b", arranged[1])
                report.counts["setup after Cho's first move"] += 1
        elif han_after_cho:  # Han has not chosen yet: judge the start with both choices made
            judged = rules.Game.new("janggi", {"cho": arranged[0], "han": arranged[1]})
        fens.append(verdicts.fen)
        report.counts["positions from the 16 arrangements"] += arranged is not None
        report.problems += [f"{where} [{verdicts.fen}] after {list(verdicts.recent)}: {p}"
                            for p in compare_position(judged, verdicts, report.counts)]

    check_replay(report, plan.name, game, fens)


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    return compare_all(compare_moves, PLANS)


@pytest.mark.parametrize("name", [plan.name for plan in PLANS])
def test_playout_matches_pyffish(name: str, reports: dict[str, Report]) -> None:
    assert not reports[name].problems, disagreements(reports[name])


def test_the_positions_cover_what_matters(reports: dict[str, Report]) -> None:
    """The playouts must keep reaching the interesting cases, or the comparison proves little."""
    counts = sum((report.counts for report in reports.values()), Counter())
    assert counts["positions from the 16 arrangements"] >= 2000
    assert counts["Han to move"] >= 1100
    assert counts["in check"] >= 150
    assert counts["kings face"] >= 100
    assert counts["checkmate"] >= 4
    assert counts["bikjang"] >= 20
    assert counts["two passes in a row"] >= 25
    assert counts["100 plies without capture"] >= 4
    assert counts["1-0 on points"] >= 10 and counts["0-1 on points"] >= 30
    assert counts["passes played"] >= 200
    assert counts["setup after Cho's first move"] == 16
    assert counts["captures"] >= 1000
    for piece in "KARCP":
        assert counts[f"palace-diagonal move of {piece}"] >= 20, piece
