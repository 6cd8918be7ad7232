"""The Xiangqi rules core against Fairy-Stockfish (pyffish), live, position by position.

Every run plays the seeded random playouts of tests/xiangqi_positions.py (from the start position and
the perft positions, short and long, some hunting captures and checks down to bare kings, plus
hand-made tandem-piece, pin and stalemate positions: 74 games, about 3,200 positions) and asks pyffish
about every position they reach: its legal moves, its FEN after the move that led there, check, and the
result when no move is left. The rules core must give the same answers, take pyffish's FEN back
unchanged, and replay the games through Game.play, Game.from_record and Game.at.

WXF strings: pyffish rebuilds its variant tables on every call (about 2 ms), and the positions have
about 60,000 legal moves between them, so pyffish is asked for the WXF string of
  - every legal move of every position where a file holds two same pieces of one side (the front/rear
    markers and numbered soldier columns), of every position in check, and of every FULL_WXF_EVERY-th
    position of each playout;
  - the move played from every position (it must also be what Game.notation records);
  - a seeded random WXF_SAMPLE share of the other legal moves.
That is a little over half of all legal moves, and the coverage test keeps it so. rules must write each
string exactly like pyffish and read it (and its other spellings) back to the same move.

pyffish holds the GIL, so the playouts run in one process per core (pyffish_playouts.compare_all).
"""
from __future__ import annotations

import functools
import random
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
    rules_checking_moves,
    split_move,
)
from support.xiangqi_positions import VARIANT, playout, playout_plans, tandem_files

import rules

DEAD = "neither side can capture the other's king"  # docs/repetition.md "Other endings"

PLANS = playout_plans()
FULL_WXF_EVERY = 8  # every 8th position of a playout gets all its WXF strings compared
WXF_SAMPLE = 0.4  # the share of the remaining legal moves whose WXF strings are compared

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def pyffish_wxf(fen: str, move: str) -> str:
    return sf.get_san(VARIANT, fen, move, False, sf.NOTATION_XIANGQI_WXF)


def alternative_wxf(text: str) -> list[str]:
    """Other spellings a player may use for the move Fairy-Stockfish writes as `text`:
    `.` for `=`, and for tandem pieces the marker in front (`+C.5` for `C+=5`)."""
    spellings = [text.replace("=", ".")]
    if len(text) == 4 and text[0].isalpha() and text[1] in "+-":
        front = text[1] + text[0] + text[2:]
        spellings += [front, front.replace("=", ".")]
    return spellings


def compare_wxf(fresh: rules.Game, move: str, wxf: str, counts: Counter[str]) -> list[str]:
    """rules writes pyffish's WXF string `wxf` for `move` and reads every spelling of it back."""
    counts["wxf"] += 1
    counts["wxf with a tandem marker"] += wxf[1] in "+-"
    counts["wxf with a numbered soldier column"] += wxf[0].isdigit()
    problems = []
    if fresh.describe(move) != wxf:
        problems.append(f"{move}: rules writes WXF {fresh.describe(move)!r}, pyffish {wxf!r}")
    for spelling in [wxf, *alternative_wxf(wxf)]:
        try:
            read = fresh.play(spelling)
        except rules.RulesError as exc:
            problems.append(f"{move}: rules cannot read pyffish's WXF {spelling!r}: {exc}")
            continue
        fresh.undo()
        if read != move:
            problems.append(f"{move}: rules reads pyffish's WXF {spelling!r} as {read}")
    return problems


def wants_every_wxf(verdicts: Verdicts) -> bool:
    return verdicts.check or tandem_files(verdicts.fen) or verdicts.ply % FULL_WXF_EVERY == 0


def compare_position(game: rules.Game, verdicts: Verdicts, sample: random.Random,
                     counts: Counter[str]) -> tuple[list[str], dict[str, str]]:
    """The differences between the rules core and pyffish on one position (`game` reached it by
    playing the playout's moves), and the WXF strings pyffish was asked for there."""
    fen, expected = verdicts.fen, set(verdicts.legal)
    occupied = board(fen)
    counts["positions"] += 1
    counts["black to move"] += fen.split()[1] == "b"
    counts["in check"] += verdicts.check
    counts["at most 6 pieces"] += len(occupied) <= 6
    counts["legal moves"] += len(expected)
    counts["captures"] += sum(split_move(move)[1] in occupied for move in expected)
    problems: list[str] = []
    if game.fen() != fen:
        problems.append(f"after the same moves rules writes FEN {game.fen()!r}")
    try:
        fresh = rules.Game.new(VARIANT, fen=fen)
    except rules.RulesError as exc:
        return problems + [f"rules refuses pyffish's FEN: {exc}"], {}
    if fresh.fen() != fen:
        problems.append(f"FEN round trip: rules reads pyffish's FEN and writes {fresh.fen()!r}")

    legal = fresh.legal_moves(even_if_over=True)
    if legal != sorted(legal):
        problems.append("legal_moves() is not sorted")
    if game.legal_moves(even_if_over=True) != legal:
        problems.append("the game that played its way here and a game set up from the FEN disagree "
                        f"on legal moves: {game.legal_moves()} / {legal}")
    if missing := sorted(expected - set(legal)):
        problems.append(f"legal in pyffish, not in rules: {missing}")
    if extra := sorted(set(legal) - expected):
        problems.append(f"legal in rules, not in pyffish: {extra}")

    if (fresh.in_check(), game.in_check()) != (verdicts.check, verdicts.check):
        problems.append(f"rules in_check() = {fresh.in_check()} (played game: {game.in_check()}), "
                        f"pyffish gives_check = {verdicts.check}")
    if verdicts.result is None and fresh.reason == DEAD:
        counts["dead position"] += 1  # the project's rule (the dead-position rule); pyffish plays on
    elif verdicts.result is None:
        if (fresh.result, game.result) != ("*", "*"):
            problems.append(f"rules ends the game ({fresh.result}, {fresh.reason}) where pyffish has "
                            "legal moves")
    elif verdicts.result != -sf.VALUE_MATE:
        problems.append(f"pyffish game_result {verdicts.result}: expected a loss for the side to move")
    else:
        want = ("0-1" if fen.split()[1] == "w" else "1-0", "checkmate" if verdicts.check else "stalemate")
        counts[want[1]] += 1
        if (fresh.result, fresh.reason) != want or (game.result, game.reason) != want:
            problems.append(f"no legal move: rules says {(fresh.result, fresh.reason)} (played game: "
                            f"{(game.result, game.reason)}), pyffish {want}")

    if fresh.reason == DEAD:
        return problems, {}  # a decided game reads no more moves, in WXF or otherwise
    both = sorted(expected & set(legal))
    if not wants_every_wxf(verdicts):
        both = [move for move in both if sample.random() < WXF_SAMPLE]
    asked = {move: pyffish_wxf(fen, move) for move in both}
    for move, wxf in asked.items():
        problems += compare_wxf(fresh, move, wxf, counts)
    if fresh.fen() != fen:
        problems.append(f"reading WXF strings back left the FEN {fresh.fen()!r}")
    return problems, asked


def compare_moves(plan: PlayoutPlan, report: Report) -> None:
    """Every position and every played move of the playout, then the replays of the whole game."""
    sample = random.Random(f"pbm-wxf-{plan.name}")
    game = rules.Game.new(VARIANT, fen=plan.start_fen)
    moves: list[str] = []
    fens: list[str] = []
    asked: dict[str, str] = {}
    for verdicts in playout(plan, functools.partial(rules_checking_moves, VARIANT)):
        if verdicts.move is not None:
            if game.reason == DEAD:
                break  # drawn by rule (f); the positions up to here were compared
            move = verdicts.move
            where = f"{plan.name} ply {verdicts.ply}, {move} from [{verdicts.previous_fen}]"
            wxf = asked.get(move)
            if wxf is None:
                wxf = pyffish_wxf(verdicts.previous_fen, move)
                report.problems += [f"{where}: {p}" for p in compare_wxf(
                    rules.Game.new(VARIANT, fen=verdicts.previous_fen), move, wxf, report.counts)]
            try:
                played = game.play(move)
            except rules.RulesError as exc:
                report.problems.append(f"{where}: rules refuses pyffish's move: {exc}")
                return
            if played != move:
                report.problems.append(f"{where}: Game.play({move!r}) returned {played!r}")
            if game.notation[-1] != wxf:
                report.problems.append(f"{where}: Game.notation records {game.notation[-1]!r}, "
                                       f"pyffish writes {wxf!r}")
            moves.append(move)
        fens.append(verdicts.fen)
        problems, asked = compare_position(game, verdicts, sample, report.counts)
        report.problems += [f"{plan.name} ply {verdicts.ply} [{verdicts.fen}]: {p}" for p in problems]

    check_replay(report, plan.name, game, fens)


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    return compare_all(compare_moves, PLANS)


@pytest.mark.parametrize("name", [plan.name for plan in PLANS])
def test_playout_matches_pyffish(name: str, reports: dict[str, Report]) -> None:
    assert not reports[name].problems, disagreements(reports[name])


def test_the_positions_cover_what_matters(reports: dict[str, Report]) -> None:
    """The playouts must keep reaching the interesting cases, and enough WXF strings must be
    compared, or the comparison above proves little."""
    counts = sum((report.counts for report in reports.values()), Counter())
    assert counts["positions"] >= 2000
    assert counts["black to move"] >= 1000
    assert counts["in check"] >= 150
    assert counts["checkmate"] >= 5
    assert counts["stalemate"] >= 4
    assert counts["at most 6 pieces"] >= 200
    assert counts["captures"] >= 1000
    assert counts["wxf"] >= 0.5 * counts["legal moves"]
    assert counts["wxf with a tandem marker"] >= 300
    assert counts["wxf with a numbered soldier column"] >= 50
