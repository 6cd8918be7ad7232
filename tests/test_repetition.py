"""The repetition referee (docs/repetition.md): the public cases, then each clause of the rule text on
positions built so that the verdict follows from that clause alone."""
import json
import pathlib
import re
import subprocess
import sys

import pytest

import rules
from rules.notation import square_name
from rules.repetition import ALLOWED, CHASE, CHECK, Referee, verdict_loser

# A copy of the published repetition cases, so that a checkout tests on its own.
CASES = pathlib.Path(__file__).parent / "data" / "repetition_public.jsonl"
RESULTS = {"red_wins": "1-0", "black_wins": "0-1", "draw": "1/2-1/2"}


def public_cases():
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]


def play(fen: str, moves: str) -> tuple[rules.Game, int | None]:
    """Play `moves`; returns the game and the ply at which it ended (None if it did not)."""
    game = rules.Game.new("xiangqi", fen=fen)
    for ply, move in enumerate(moves.split(), start=1):
        game.play(move)
        if game.result != "*":
            return game, ply
    return game, None


@pytest.mark.parametrize("case", public_cases(), ids=lambda c: c["id"])
def test_public_case_ends_exactly_at_end_ply(case):
    moves = case["moves"].split()[:case["end_ply"]]
    game, ended = play(case["fen"], " ".join(moves))
    assert (ended, game.result) == (case["end_ply"], RESULTS[case["expected"]]), game.reason
    running, ended_early = play(case["fen"], " ".join(moves[:-1]))
    assert ended_early is None and running.result == "*"


# --- verdicts over whole windows ---------------------------------------------------------------------

ROOK_FOLLOWS_CANNON = "5k3/9/9/1c7/9/9/9/9/9/2RK5 w - - 0 1"
CYCLE = "c1b1 b7c7 b1c1 c7b7 " * 2


def test_a_chase_followed_as_the_piece_moves_loses():
    """The cannon flees b7-c7-b7 and the rook follows it on the first rank: every Red move attacks it
    anew, and nothing protects it."""
    game, ended = play(ROOK_FOLLOWS_CANNON, CYCLE)
    assert ended == 8
    assert (game.result, game.reason) == ("0-1", "perpetual chase of the cannon on b7 by Red")


def test_protected_victim_is_not_chased():
    """The same dance, but a Black rook on a7 can take back on b7 and c7: no chase, a draw."""
    game, ended = play("5k3/9/9/rc7/9/9/9/9/9/2RK5 w - - 0 1", CYCLE)
    assert (ended, game.result, game.reason) == (8, "1/2-1/2", "repetition: draw")


def test_a_pinned_protector_is_no_protection():
    """The victim runs on rank 8 and the rook on e8 could take back, but it is pinned to its king by
    the rook on e2: the protection is fake, the chase is real."""
    cycle = "c1b1 b8c8 b1c1 c8b8 " * 2
    game, ended = play("4k4/9/1c2r4/9/9/9/9/9/4R4/2RK5 w - - 0 1", cycle)
    assert (ended, game.result, game.reason) == (8, "0-1", "perpetual chase of the cannon on b8 by Red")
    unpinned, ended = play("4k4/9/1c2r4/9/9/9/9/9/9/2RK5 w - - 0 1", cycle)
    assert (ended, unpinned.result) == (8, "1/2-1/2")


def test_a_horse_chases_a_rook_even_when_it_is_protected():
    """The rook on d8/c8 is protected by the rook on a8 throughout, yet a horse attacking a rook
    chases it; Black's rook attacks the horse only every other move, which is allowed."""
    game, ended = play("4k4/9/r2r5/4N4/9/9/9/9/9/5K3 w - - 0 1", "e7c6 d8c8 c6e7 c8d8 " * 2)
    assert (ended, game.result, game.reason) == (8, "0-1", "perpetual chase of the rook on d8 by Red")


def test_chasing_different_pieces_in_turn_is_allowed():
    """The rook attacks the cannon on b7 from b1 and the horse on c7 from c1, one after the other;
    Black only shuffles an advisor."""
    game, ended = play("3ak4/9/9/1cn6/9/9/9/9/9/2R2K3 w - - 0 1", "c1b1 d10e9 b1c1 e9d10 " * 2)
    assert (ended, game.result, game.reason) == (8, "1/2-1/2", "repetition: draw")


def test_an_attack_kept_up_is_not_new():
    """The rook attacks the cannon on b7 from b1 and from b2 alike: moving along the file renews no
    attack, so it is no chase."""
    game, ended = play("3ak4/9/9/1c7/9/9/9/9/9/1R3K3 w - - 0 1", "b1b2 d10e9 b2b1 e9d10 " * 2)
    assert (ended, game.result, game.reason) == (8, "1/2-1/2", "repetition: draw")


def test_one_check_then_one_idle_move_is_allowed():
    """The rook checks from d1, then steps back to a1; Black's king steps d10-e10-d10."""
    game, ended = play("3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1", "a1d1 d10e10 d1a1 e10d10 " * 2)
    assert (ended, game.result, game.reason) == (8, "1/2-1/2", "repetition: draw")


def test_perpetual_check_loses():
    """The rook checks on every move as the king steps between d10 and e10."""
    game, ended = play("3k5/9/9/9/9/9/9/9/R8/5K3 w - - 0 1",
                       "a2d2 d10e10 " + "d2e2 e10d10 e2d2 d10e10 " * 2)
    assert (ended, game.result, game.reason) == (9, "0-1", "perpetual check by Red")


def test_chases_by_kings_and_soldiers_are_allowed():
    """The soldier attacks the rook running a7-b7 every time it moves; soldiers may."""
    game, ended = play("4k4/9/9/r8/1P7/9/9/9/9/3K5 w - - 0 1", "b6a6 a7b7 a6b6 b7a7 " * 2)
    assert (ended, game.result) == (8, "1/2-1/2")


@pytest.mark.parametrize("red,black,loser", [
    (CHECK, CHECK, None), (CHECK, CHASE, 0), (CHECK, ALLOWED, 0),
    (CHASE, CHECK, 1), (CHASE, CHASE, None), (CHASE, ALLOWED, 0),
    (ALLOWED, CHECK, 1), (ALLOWED, CHASE, 1), (ALLOWED, ALLOWED, None),
])
def test_verdict_table(red, black, loser):
    assert verdict_loser([red, black]) == loser


# --- what a chase is, position by position --------------------------------------------------------

def chases(fen: str) -> set[tuple[str, str]]:
    """The (attacker, victim) points where Red could chase in `fen`."""
    game = rules.Game.new("xiangqi", fen=fen)
    name = lambda sq: square_name(game.variant, sq)  # noqa: E731
    return {(name(a), name(x)) for a, x in Referee(game.tables).chases(game.position, 0)}


@pytest.mark.parametrize("fen,expected", [
    # An unprotected horse attacked by a rook; protected by a rook, it is not chased.
    ("4k4/9/9/9/2n6/9/9/9/9/2RK5 w", {("c1", "c6")}),
    ("4k4/9/9/9/r1n6/9/9/9/9/2RK5 w", set()),
    # Kings never chase.
    ("4k4/9/9/9/9/9/9/9/3n5/3K5 w", set()),
    # A soldier that has not crossed the river cannot be chased; one that has crossed can.
    ("4k4/9/9/9/2p6/9/9/9/9/2RK5 w", set()),
    ("4k4/9/9/9/9/2p6/9/9/9/2RK5 w", {("c1", "c5")}),
    # A check is not a chase (Black to move, in check from the rook on d1).
    ("3k5/9/9/9/9/9/9/9/9/3R1K3 b", set()),
    # A pinned piece chases only where its capture is legal: the rook on e5 may not take the horse
    # (that would expose its king to the rook on e8), and taking that rook is an exchange offer.
    ("4k4/9/4r4/9/9/2n1R4/9/9/9/4K4 w", set()),
    # Nor does one whose capture would leave the kings facing each other.
    ("4k4/9/9/9/9/9/3r5/9/4N4/4K4 w", set()),
    # Fake protection: the rook on d6 could take back on c6, but it is pinned to its king by the rook
    # on d1 (which offers an exchange to the rook on d6, not a chase: that rook can take it).
    ("3k5/9/9/9/2nr5/9/9/9/9/2RR1K3 w", {("c1", "c6")}),
    # A horse or cannon attacking a rook chases it even when it is protected.
    ("4k4/2r6/9/2r6/9/1N7/9/9/9/3K5 w", {("b5", "c7")}),
    ("4k4/9/9/9/r1r6/9/2P6/9/2C6/3K5 w", {("c2", "c6")}),
    # An elephant attacking a protected horse, an advisor attacking a protected cannon: chases.
    ("4k4/9/9/9/9/r1n6/9/4B4/9/3K5 w", {("e3", "c5")}),
    ("4k4/9/9/9/9/3r5/9/3c5/4A4/3K5 w", {("e2", "d3")}),
    # Rook on rook is an exchange offer while the victim can take back...
    ("4k4/9/9/9/2r6/9/9/9/9/2RK5 w", set()),
    # ...but a chase when the victim cannot: the rook on e6 shields its king from the rook on e2.
    ("4k4/9/9/9/2R1r4/9/9/9/4R4/3K5 w", {("c6", "e6")}),
    # Horse on horse: an exchange offer, unless the victim's leg (c4) is blocked.
    ("4k4/9/9/9/9/2n6/9/3N5/9/3K5 w", set()),
    ("4k4/9/9/9/9/2n6/2p6/3N5/9/3K5 w", {("d3", "c5")}),
])
def test_what_is_a_chase(fen, expected):
    assert chases(fen + " - - 0 1") == expected


def mirrored(fen: str) -> str:
    """The position seen in a mirror: files a-i reversed."""
    rows = []
    for row in fen.split()[0].split("/"):
        cells = "".join("." * int(c) if c.isdigit() else c for c in row)[::-1]
        rows.append(re.sub(r"\.+", lambda m: str(len(m.group())), cells))
    return " ".join(["/".join(rows), *fen.split()[1:]])


def colours_swapped(fen: str) -> str:
    """The same position with Red and Black exchanged: ranks turned round, cases and side swapped."""
    placement, side = fen.split()[:2]
    rows = [row.swapcase() for row in placement.split("/")[::-1]]
    return " ".join(["/".join(rows), "b" if side == "w" else "w", *fen.split()[2:]])


def side_chases(fen: str, side: int) -> set[tuple[str, str]]:
    game = rules.Game.new("xiangqi", fen=fen)
    name = lambda sq: square_name(game.variant, sq)  # noqa: E731
    return {(name(a), name(x)) for a, x in Referee(game.tables).chases(game.position, side)}


def _mirror_point(p: str) -> str:
    return "ihgfedcba"["abcdefghi".index(p[0])] + p[1:]


def _swap_point(p: str) -> str:
    return p[0] + str(11 - int(p[1:]))


@pytest.mark.parametrize("fen,expected", [
    # Pins: a pinned piece chases wherever its capture is legal, the capture of the piece that pins it
    # included.  The rook on e5 stands between its king and the cannon on e8 (with the horse on e3 as
    # a second screen, so there is no check now); taking the cannon is legal, and nothing protects it.
    ("4k4/9/4c4/9/9/4R4/9/4N4/9/4K4 w", {("e5", "e8")}),
    # Checks and protection: the rook on e4 checks (Red's last move, c5 from e5, discovered it), and
    # the rook on c5 attacks the horse on c8.  After Rxc8 the rook on c10 could take back: that leaves
    # its king attacked only by the piece already giving the check, so the check is set aside and the
    # horse counts as protected: no chase.
    ("2r1k4/9/2n6/9/9/2R6/4R4/9/9/3K5 b", set()),
])
def test_what_is_a_chase_in_every_orientation(fen, expected):
    """Each ruling holds as published, mirrored left-right, and with the colours swapped."""
    fen += " - - 0 1"
    assert side_chases(fen, 0) == expected
    assert side_chases(mirrored(fen), 0) == {(_mirror_point(a), _mirror_point(x)) for a, x in expected}
    assert side_chases(colours_swapped(fen), 1) == {(_swap_point(a), _swap_point(x)) for a, x in expected}


def test_warning_after_the_second_occurrence():
    game, _ = play(ROOK_FOLLOWS_CANNON, "c1b1 b7c7 b1c1 c7b7")
    assert game.result == "*"
    assert game.warnings == [("w", "repeating the cycle once more, from c1b1 on, would lose by perpetual chase of the cannon on b7")]
    game.play("c1b1")
    assert game.warnings == [("w", "repeating the cycle once more, from b1c1 on, would lose by perpetual chase of the cannon on b7")]


def test_from_record_decides_and_warns_like_play():
    live, _ = play(ROOK_FOLLOWS_CANNON, CYCLE)
    stored = rules.Game.from_record("xiangqi", None, ROOK_FOLLOWS_CANNON, live.moves)
    assert (stored.result, stored.reason) == (live.result, live.reason)
    half = rules.Game.from_record("xiangqi", None, ROOK_FOLLOWS_CANNON, live.moves[:5])
    assert half.result == "*" and half.warnings


def test_undo_takes_back_a_repetition_verdict():
    game, _ = play(ROOK_FOLLOWS_CANNON, CYCLE)
    game.undo()
    assert game.result == "*"


def test_rules_cli_reports_the_verdict():
    out = subprocess.run([sys.executable, "-m", "rules", "play", "xiangqi", "--fen", ROOK_FOLLOWS_CANNON,
                          *CYCLE.split()], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["reason"] == "perpetual chase of the cannon on b7 by Red"


# --- Janggi: only perpetual check loses; other repetitions are drawn, or decided on points --------

@pytest.mark.parametrize("params", [None, {"points": True}])
def test_janggi_perpetual_check_loses(params):
    game = rules.Game.new("janggi", params, "3k5/9/9/9/9/9/9/9/R8/5K3 w - - 0 1")
    for move in ("a2d2 d10e10 " + "d2e2 e10d10 e2d2 d10e10 " * 2).split()[:9]:
        game.play(move)
    assert (game.ply, game.result, game.reason) == (9, "0-1", "perpetual check by Cho")


@pytest.mark.parametrize("params,result,reason", [
    (None, "1/2-1/2", "repetition: draw"),
    ({"points": True}, "0-1", "repetition: decided on points, Cho 13 - Han 14.5"),
])
def test_janggi_other_repetitions(params, result, reason):
    """Chariots shuffling: no check, and Janggi does not judge chases."""
    game = rules.Game.new("janggi", params, "4k1r2/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    for move in ("a1a2 g10g9 a2a1 g9g10 " * 2).split():
        game.play(move)
    assert (game.ply, game.result, game.reason) == (8, result, reason)


@pytest.mark.parametrize("orient", ["as published", "mirrored", "colours swapped"])
def test_cutting_a_protection_that_ran_through_the_attacker_is_not_a_chase(orient):
    """fsf-33's first move.  Before f9f7 the rook on d9 attacked the cannon on a9, which the cannon on
    i9 protected over the rook on f9 as screen -- a line running through d9, the attacker's own point.
    f9f7 takes that screen away: the a9 cannon is now unprotected, but cutting a protection that ran
    through the attacker defends the attacker and does not chase the victim.  The same move opens d9's
    line to the i9 cannon, which nothing protects: that is a new chase."""
    fen, move, chased = "4ka3/c2R1R2c/4b4/9/9/9/9/9/9/4K4 w - - 0 1", "f9f7", {"i9"}
    if orient == "mirrored":
        fen, move, chased = mirrored(fen), "d9d7", {"a9"}
    elif orient == "colours swapped":
        fen, move, chased = colours_swapped(fen), "f2f4", {"i2"}
    game = rules.Game.new("xiangqi", fen=fen)
    pos = game.position
    identity = {sq: sq for sq in pos.pieces[0] | pos.pieces[1]}
    new = Referee(game.tables)._new_chases(pos, pos.side, rules.notation.parse_move(pos, move), identity)
    assert {square_name(game.variant, sq) for sq in new} == chased


# --- the dead-position draw (docs/repetition.md "Other endings") ----------------------------------

@pytest.mark.parametrize("fen,dead", [
    # Only kings, advisors and elephants: none of them ever leaves its palace or its own half.
    ("3k5/4a4/4b4/9/9/9/9/4B4/4A4/4K4 w", True),
    # One cannon and nothing but the two kings to serve as its screen.
    ("3k5/9/9/9/9/2c6/9/9/9/4K4 w", True),
    # The same cannon with an advisor on the board: the advisor can be its screen.
    ("3k5/9/9/9/9/2c6/9/9/4A4/4K4 w", False),
    # A rook can always come for the king.
    ("3k5/9/9/9/9/9/9/9/4R4/4K4 w", False),
])
def test_dead_position_is_drawn_at_once(fen, dead):
    for form in (fen + " - - 0 1", mirrored(fen + " - - 0 1"), colours_swapped(fen + " - - 0 1")):
        game = rules.Game.new("xiangqi", fen=form)
        assert (game.result, game.reason) == (("1/2-1/2", "neither side can capture the other's king") if dead
                                              else ("*", None)), form


def test_capturing_the_last_attacker_draws_on_that_move():
    """The Black rook on e2 checks; the king takes it, leaving two bare kings."""
    game = rules.Game.new("xiangqi", fen="3k5/9/9/9/9/9/9/9/4r4/4K4 w - - 0 1")
    game.play("e1e2")
    assert (game.result, game.reason) == ("1/2-1/2", "neither side can capture the other's king")


def test_dead_position_in_padwar_qi_follows_the_pieces_regions():
    """Standard Padwar qi: warriors and padwars never leave palace or own half: dead.  With -korean
    the padwar walks across the river, so it can still reach the enemy chief."""
    fen = "3k5/4a4/4b4/9/9/9/9/4B4/4A4/4K4 w - - 0 1"
    assert rules.Game.new("padwarqi", fen=fen).result == "1/2-1/2"
    assert rules.Game.new("padwarqi", {"korean": True}, fen).result == "*"


def _transform_move(move: str, point) -> str:
    return point(move[:2]) + point(move[2:]) if len(move) == 4 else move


@pytest.mark.parametrize("orient", ["as published", "mirrored", "colours swapped"])
def test_a_rook_blocking_a_cannon_check_and_attacking_the_cannon_loses(orient):
    """Black's cannon checks from e8 over the horse on e3; Red's rook blocks on e5 and so attacks the
    cannon, which steps back to d8, where the rook, back on d5, attacks it again.  The rook on e5 is
    pinned (leaving the file would restore the check), but taking the checking cannon is legal, and a
    pinned piece chases wherever its capture is legal: every Red move newly chases the unprotected
    cannon.  Black checked on every other move only: Red loses by perpetual chase."""
    fen = "5k3/9/3c5/9/9/3R5/9/4N4/9/4K4 b - - 0 1"
    moves = "d8e8 d5e5 e8d8 e5d5 " * 2
    result, reason = "0-1", "perpetual chase of the cannon on d8 by Red"
    if orient == "mirrored":
        fen, point = mirrored(fen), _mirror_point
        reason = reason.replace("d8", "f8")
    elif orient == "colours swapped":
        fen, point = colours_swapped(fen), _swap_point
        result, reason = "1-0", "perpetual chase of the cannon on d3 by Black"
    else:
        point = str
    game, ended = play(fen, " ".join(_transform_move(m, point) for m in moves.split()))
    assert (ended, game.result, game.reason) == (8, result, reason)
