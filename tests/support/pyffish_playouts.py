"""Seeded random playouts played by Fairy-Stockfish (pyffish), shared by the differential tests of
the games on the 9x10 board (test_pyffish_diff.py for Xiangqi, test_janggi_pyffish_diff.py).

`playout(variant, plan, checking_moves)` plays one seeded random game with pyffish and yields pyffish's
verdicts (FEN, legal moves, check, result) on every position as it goes; `compare_all` runs a test's
comparison of every playout in worker processes and collects the `Report`s.

pyffish is GPL: it is imported only inside the functions that need it, and only tests use them.
"""
from __future__ import annotations

import functools
import itertools
import multiprocessing
import random
import re
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import rules

MAX_REPORTED = 25


# How the playouts are drawn. Each playout has its own seeded RNG, so the set does not depend on the
# order in which worker processes finish. "capture" is the chance of picking a capture when there is
# one (high values reach endgames, mates and stalemates); "check" the chance of trying checking moves
# first; "pass_first" the chance of trying a pass first where one is legal; the playout stops after
# "quiet_limit" plies without capture.
@dataclass(frozen=True)
class PlayoutPlan:
    name: str
    start_fen: str
    max_plies: int
    capture: float
    check: float
    pass_first: float = 0.0
    quiet_limit: int = 50


@dataclass(frozen=True)
class Verdicts:
    """pyffish's answers about one position of a playout: `move` (None at ply 0) led here from
    `previous_fen`; `result` is pyffish's game_result when there is no legal move.  pyffish was asked
    with `base_fen` and the `recent` moves since it, so that rules looking back (two passes in a row)
    see them."""
    ply: int
    move: str | None
    previous_fen: str | None
    fen: str
    legal: tuple[str, ...]
    check: bool
    result: int | None
    base_fen: str
    recent: tuple[str, ...]


CheckingMoves = Callable[[str, list[str]], list[str]]


def board(fen: str) -> dict[str, str]:
    """Square name -> piece letter of a 9x10 FEN placement (rank 10 first)."""
    squares: dict[str, str] = {}
    for row_index, row in enumerate(fen.split()[0].split("/")):
        rank, file = 10 - row_index, 0
        for token in re.findall(r"\d+|[A-Za-z]", row):
            if token.isdigit():
                file += int(token)
            else:
                squares["abcdefghi"[file] + str(rank)] = token
                file += 1
    return squares


def split_move(move: str) -> tuple[str, str]:
    """'b10c8' -> ('b10', 'c8')."""
    match = re.fullmatch(r"([a-i]\d{1,2})([a-i]\d{1,2})", move)
    if not match:
        raise ValueError(f"not a coordinate move: {move}")
    return match.group(1), match.group(2)


def is_pass(move: str) -> bool:
    """Fairy-Stockfish writes a pass as the king's move to its own point (e2e2)."""
    start, end = split_move(move)
    return start == end


def playout(variant: str, plan: PlayoutPlan, checking_moves: CheckingMoves,
            look_back: int = 0) -> Iterator[Verdicts]:
    """One seeded random playout, asking pyffish about every position as it is reached.

    `checking_moves(fen, moves)` -- those of `moves` that give check, in order -- only steers the
    check-hunting: asking pyffish for each candidate would cost one call per candidate, so the live
    tests pass the rules core's answer, the stored-file builder pyffish's; while the two agree, the
    playouts are identical. pyffish is asked with the position `look_back` plies ago and the moves since
    (Janggi: 2, so that it sees two passes in a row). The playout stops at game end, before any
    repeated position (so no repetition rule can interfere; a pass may repeat one, since two passes in
    a row end the game first) and after `plan.quiet_limit` plies without capture."""
    import pyffish as sf

    fen = plan.start_fen
    placement, side, *rest = fen.split()
    flipped = " ".join([placement, "b" if side == "w" else "w", *rest])
    if sf.get_fen(variant, fen, []) != fen or sf.gives_check(variant, flipped, []):
        raise ValueError(f"{plan.name}: {fen} is not a canonical FEN of a position that can arise")
    rng = random.Random(f"pbm-{variant}-{plan.name}")
    seen = {tuple(fen.split()[:2])}
    move = previous_fen = None
    history: list[tuple[str, str]] = []  # (FEN before, move) of every ply so far
    for ply in itertools.count():
        since = history[-look_back:] if look_back else []
        base = since[0][0] if since else fen
        recent = [m for _, m in since]
        legal = sorted(sf.legal_moves(variant, base, recent))
        yield Verdicts(ply, move, previous_fen, fen, tuple(legal), sf.gives_check(variant, base, recent),
                       None if legal else sf.game_result(variant, base, recent), base, tuple(recent))
        if ply >= plan.max_plies or not legal or int(fen.split()[4]) >= plan.quiet_limit:
            return
        rng.shuffle(legal)
        occupied = board(fen)
        captures = [m for m in legal if split_move(m)[1] in occupied and not is_pass(m)]
        candidates = list(legal)
        if captures and rng.random() < plan.capture:
            candidates = captures + [m for m in legal if m not in captures]
        if rng.random() < plan.check:
            checks = checking_moves(fen, candidates[:20])
            candidates = checks + [m for m in candidates if m not in checks]
        passes = [m for m in candidates if is_pass(m)]
        if passes and rng.random() < plan.pass_first:
            candidates = passes + [m for m in candidates if m not in passes]
        for move in candidates[:8]:
            next_fen = sf.get_fen(variant, fen, [move])
            if is_pass(move) or tuple(next_fen.split()[:2]) not in seen:
                break
        else:
            return  # every tried move repeats a position: end the playout here
        seen.add(tuple(next_fen.split()[:2]))
        history.append((fen, move))
        previous_fen, fen = fen, next_fen


@dataclass
class Report:
    """What comparing one playout found: the disagreements, and counts for the coverage tests."""
    name: str
    problems: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


CompareMoves = Callable[[PlayoutPlan, Report], None]
"""Plays one playout with pyffish and the rules core side by side, noting what differs in the report."""


def compare_all(compare_moves: CompareMoves, plans: Iterable[PlayoutPlan]) -> dict[str, Report]:
    """`compare_moves` run on every playout, one worker process per core (pyffish holds the GIL), the
    longest first so the workers finish together. "spawn": a forked pytest process may hold other
    tests' threads and locks."""
    longest_first = sorted(plans, key=lambda plan: -plan.max_plies)
    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
        reports = pool.map(functools.partial(_compare_playout, compare_moves), longest_first)
        return {report.name: report for report in reports}


def _compare_playout(compare_moves: CompareMoves, plan: PlayoutPlan) -> Report:
    report = Report(plan.name)
    try:
        compare_moves(plan, report)
    except Exception:  # a crash is one more disagreement: report it, let the other playouts go on
        report.problems.append(f"{plan.name}: crashed:\n{traceback.format_exc()}")
    return report


def rules_checking_moves(variant: str, fen: str, moves: list[str]) -> list[str]:
    """Those of `moves` after which the rules core sees the opponent in check. This only steers the
    playouts towards checks; every verdict compared is pyffish's own."""
    game = rules.Game.new(variant, fen=fen)
    checks = []
    for move in moves:
        try:
            game.play(move)
        except rules.RulesError:
            continue  # the comparison of the legal moves reports it
        if game.in_check():
            checks.append(move)
        game.undo()
    return checks


def disagreements(report: Report) -> str:
    """The assertion message listing a report's first problems."""
    problems = report.problems
    shown = "\n".join(problems[:MAX_REPORTED])
    more = f"\n... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
    return f"{len(problems)} disagreements with pyffish:\n{shown}{more}"


def check_replay(report: Report, name: str, game: rules.Game, fens: list[str]) -> None:
    """The server rebuilds games from their record: `Game.from_record` must give the position, result
    and notation the moves gave when played, and `Game.at` the position pyffish had half-way."""
    replay = rules.Game.from_record(game.variant.name, game.params, game.start_fen, game.moves)
    if (replay.fen(), replay.result, replay.reason) != (fens[-1], game.result, game.reason):
        report.problems.append(f"{name}: Game.from_record gives {replay.fen()} ({replay.result}, "
                               f"{replay.reason}), pyffish {fens[-1]}")
    if replay.notation != game.notation:
        report.problems.append(f"{name}: from_record notation {replay.notation} != played {game.notation}")
    middle = len(game.moves) // 2
    if replay.at(middle).fen() != fens[middle]:
        report.problems.append(f"{name}: Game.at({middle}) gives {replay.at(middle).fen()}, "
                               f"pyffish {fens[middle]}")
