"""The Xiangqi rules core against Fairy-Stockfish (pyffish), position by position.

The positions come from seeded random playouts (tests/xiangqi_positions.py): from the start position
and the perft positions, short and long, some hunting captures and checks down to bare kings, plus
hand-made tandem-piece, pin and stalemate positions. pyffish's answers for them are stored in
tests/data/xiangqi_pyffish.json.gz (asking it live for every WXF string would take minutes); the last
tests re-ask live pyffish about a sample, so the stored answers cannot silently go stale.

For every position: the same FEN after the same moves, FEN round trip, the same legal moves, the same
WXF string for every legal move, every WXF string read back to its move, the same check verdict, and
the same verdict (mate or stalemate, a loss for the side to move) when there is no legal move.
"""
from __future__ import annotations

import pytest
from xiangqi_positions import (
    EDGE_FENS,
    board,
    load_oracle,
    split_move,
    verify_fens,
    verify_position,
)

import rules

ORACLE = load_oracle()
PLAYOUTS = {playout["name"]: playout for playout in ORACLE}
POSITIONS = [record for playout in ORACLE for record in playout["positions"]]
MAX_REPORTED = 25


def alternative_wxf(text: str) -> list[str]:
    """Other spellings a player may use for the move Fairy-Stockfish writes as `text`:
    `.` for `=`, and for tandem pieces the marker in front (`+C.5` for `C+=5`)."""
    spellings = [text.replace("=", ".")]
    if len(text) == 4 and text[0].isalpha() and text[1] in "+-":
        front = text[1] + text[0] + text[2:]
        spellings += [front, front.replace("=", ".")]
    return spellings


def compare_position(game: rules.Game, record: dict, where: str) -> list[str]:
    """Every difference between the rules core and pyffish's stored verdicts on one position.
    `game` reached the position by playing the playout's moves."""
    fen = record["fen"]
    problems: list[str] = []

    def problem(text: str) -> None:
        problems.append(f"{where} [{fen}]: {text}")

    if game.fen() != fen:
        problem(f"after the same moves rules writes FEN {game.fen()!r}, pyffish {fen!r}")
    try:
        fresh = rules.Game.new("xiangqi", fen=fen)
    except rules.RulesError as exc:
        problem(f"rules refuses pyffish's FEN: {exc}")
        return problems
    if fresh.fen() != fen:
        problem(f"FEN round trip gives {fresh.fen()!r}")

    expected = record["wxf"]
    legal = fresh.legal_moves()
    if legal != sorted(legal):
        problem("legal_moves() is not sorted")
    if game.legal_moves() != legal:
        problem("the game that played its way here and a game set up from the FEN disagree on legal moves")
    missing = sorted(set(expected) - set(legal))
    extra = sorted(set(legal) - set(expected))
    if missing:
        problem(f"legal in pyffish, not in rules: {missing}")
    if extra:
        problem(f"legal in rules, not in pyffish: {extra}")

    if fresh.in_check() != record["check"]:
        problem(f"rules in_check()={fresh.in_check()}, pyffish gives_check={record['check']}")
    if game.in_check() != record["check"]:
        problem(f"after the previous move rules says check={game.in_check()}, pyffish {record['check']}")

    side_to_move = fen.split()[1]
    if record["result"] is None:
        if fresh.result != "*":
            problem(f"rules ends the game ({fresh.result}, {fresh.reason}) where pyffish has legal moves")
    else:
        assert record["result"] == -32000, "pyffish: no legal move loses for the side to move"
        want = ("0-1" if side_to_move == "w" else "1-0", "checkmate" if record["check"] else "stalemate")
        if (fresh.result, fresh.reason) != want or (game.result, game.reason) != want:
            problem(f"no legal move: rules says {(fresh.result, fresh.reason)} (played game: "
                    f"{(game.result, game.reason)}), pyffish says {want}")

    for move in sorted(set(expected) & set(legal)):
        wxf = fresh.describe(move)
        if wxf != expected[move]:
            problem(f"{move}: rules writes WXF {wxf!r}, pyffish {expected[move]!r}")
        for spelling in [expected[move]] + alternative_wxf(expected[move]):
            try:
                read = fresh.play(spelling)
            except rules.RulesError as exc:
                problem(f"{move}: rules cannot read pyffish's WXF {spelling!r}: {exc}")
                continue
            fresh.undo()
            if read != move:
                problem(f"{move}: rules reads WXF {spelling!r} as {read}")
    if fresh.fen() != fen:
        problem(f"play/undo of every move left FEN {fresh.fen()!r}")
    return problems


@pytest.mark.parametrize("name", sorted(PLAYOUTS))
def test_playout_matches_pyffish(name: str) -> None:
    playout = PLAYOUTS[name]
    game = rules.Game.new("xiangqi", fen=playout["start_fen"])
    problems: list[str] = []
    for ply, record in enumerate(playout["positions"]):
        if ply:
            move = playout["moves"][ply - 1]
            try:
                played = game.play(move)
            except rules.RulesError as exc:
                problems.append(f"{name} ply {ply}: rules refuses pyffish's move {move}: {exc}")
                break
            if played != move:
                problems.append(f"{name} ply {ply}: Game.play({move!r}) returned {played!r}")
            wxf = playout["positions"][ply - 1]["wxf"][move]
            if game.notation[-1] != wxf:
                problems.append(f"{name} ply {ply}: Game.notation records {game.notation[-1]!r} for "
                                f"{move}, pyffish writes {wxf!r}")
        problems += compare_position(game, record, f"{name} ply {ply}")
    replay = rules.Game.from_record("xiangqi", None, playout["start_fen"], playout["moves"])
    if replay.fen() != playout["positions"][-1]["fen"]:
        problems.append(f"{name}: Game.from_record gives {replay.fen()}, pyffish "
                        f"{playout['positions'][-1]['fen']}")
    if replay.notation != game.notation:
        problems.append(f"{name}: from_record notation {replay.notation} != played {game.notation}")
    middle = len(playout["moves"]) // 2
    if replay.at(middle).fen() != playout["positions"][middle]["fen"]:
        problems.append(f"{name}: Game.at({middle}) gives {replay.at(middle).fen()}, pyffish "
                        f"{playout['positions'][middle]['fen']}")
    shown = "\n".join(problems[:MAX_REPORTED])
    more = f"\n... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
    assert not problems, f"{len(problems)} disagreements with pyffish:\n{shown}{more}"


def test_the_positions_cover_what_matters() -> None:
    """The playouts must keep reaching the interesting cases, or the comparison above proves little."""
    terminal = [r for r in POSITIONS if r["result"] is not None]
    wxf = [text for r in POSITIONS for text in r["wxf"].values()]
    few_pieces = [r for r in POSITIONS if sum(ch.isalpha() for ch in r["fen"].split()[0]) <= 6]
    captures = [m for r in POSITIONS for occupied in [board(r["fen"])] for m in r["wxf"]
                if split_move(m)[1] in occupied]
    assert len(POSITIONS) >= 2000
    assert sum(r["fen"].split()[1] == "b" for r in POSITIONS) >= 1000
    assert sum(r["check"] for r in POSITIONS) >= 150
    assert sum(r["check"] for r in terminal) >= 5, "checkmates"
    assert sum(not r["check"] for r in terminal) >= 4, "stalemates"
    assert len(few_pieces) >= 200
    assert len(captures) >= 1000
    assert sum(text[1] in "+-" for text in wxf) >= 300, "tandem pieces (front/rear markers)"
    assert sum(text[0].isdigit() for text in wxf) >= 50, "numbered soldier columns"
    assert all(fen in {p["start_fen"] for p in ORACLE} for fen in EDGE_FENS)


SAMPLE = POSITIONS[::37] + [r for r in POSITIONS if r["result"] is not None]


@pytest.mark.parametrize("chunk", range(4))
def test_stored_answers_are_still_pyffish_answers(chunk: int) -> None:
    """Re-ask live pyffish about a spread-out sample of the stored positions (and all the mates and
    stalemates); `python tests/xiangqi_positions.py --check` re-asks about all of them."""
    pytest.importorskip("pyffish")
    problems = [p for record in SAMPLE[chunk::4] for p in verify_position(record)]
    assert not problems, "\n".join(problems[:MAX_REPORTED])


@pytest.mark.parametrize("name", ["start-05", "endgame-03", "perft1-2", "perft2-4", "edge-05"])
def test_stored_fens_are_pyffish_fens_of_the_moves(name: str) -> None:
    pytest.importorskip("pyffish")
    problems = verify_fens(PLAYOUTS[name])
    assert not problems, "\n".join(problems[:MAX_REPORTED])
