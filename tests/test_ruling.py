"""The referee says why (rules.ruling): for every case of the held-out repetition data that ends by
perpetual check or chase, the explained cycle is the repeated positions, each ply's label fits what
the position shows (check plies are the plies after which the side to move is in check, computed
apart), and the rule named is the one that decides.  A mutation swaps away the protector of a
chased piece, and the label flips from protected to unprotected."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import rules
from rules import ruling
from rules.notation import square_name
from rules.rulebook import BY_KEY, RULES

DATA = Path(__file__).parent / "data" / "repetition_public.jsonl"
CASES = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
DECISIVE = [c for c in CASES if c["expected"] != "draw"]

# What the case's description says of the chased piece's protection, where it says something:
# a false root through a pin, a general that cannot take back, a cannon's screen; a real root
# (the cannon attacks a rook, worth more).
PROTECTION = {
    "fsf-01": {ruling.ROOT}, "fsf-02": {ruling.ROOT},
    "fsf-24": {ruling.PINNED}, "fsf-26": {ruling.PINNED}, "fsf-27": {ruling.PINNED},
    "fsf-30": {ruling.NONE, ruling.KING}, "fsf-32": {ruling.NONE, ruling.SCREEN},
}


def played(case: dict) -> rules.Game:
    game = rules.Game.new("xiangqi", None, case["fen"])
    for move in case["moves"].split():
        game.play(move)
    return game


@pytest.mark.parametrize("case", DECISIVE, ids=[c["id"] for c in DECISIVE])
def test_every_decisive_case_is_explained(case):
    game = played(case)
    found = ruling.explain(game)
    assert found is not None and found.final
    # the cycle is the repeated positions: it starts and ends in the position now on the board
    before = game.at(found.start)
    assert before.fen().split()[:2] == game.fen().split()[:2]
    assert [p.number for p in found.plies] == list(range(found.start + 1, game.ply + 1))
    for ply in found.plies:
        after = game.at(ply.number)
        assert ply.board == tuple(after.position.board[:after.tables.n])
        assert ply.check == after.in_check()        # check plies: those after which a king is attacked
    loser = {"red_wins": 1, "black_wins": 0}[case["expected"]]
    assert found.loser == loser
    mine = [p for p in found.plies if p.side == loser]
    if game.reason.startswith("perpetual check"):
        assert found.decides == BY_KEY["perpetual-check"]
        assert all(p.kind == "check" for p in mine)
        return
    piece, square = re.fullmatch(r"perpetual chase of the (.+) on (\w+) by \w+", game.reason).groups()
    assert square_name(game.variant, found.victim) == square
    protected = any(c.protection.protected for p in mine for c in p.chases)
    assert found.decides == BY_KEY["worth-more" if protected else "perpetual-chase"]
    for ply in mine:                                 # every move of the loser chases that piece
        assert ply.chases, ply
        after = game.at(ply.number)
        assert {after.tables.piece_type(after.position.board[c.victim]).name for c in ply.chases} == {piece}
    last = mine[-1].chases[0]
    assert square_name(game.variant, last.victim) == square or any(
        p.number > mine[-1].number for p in found.plies)
    if case["id"] in PROTECTION:
        assert {c.protection.why for p in mine for c in p.chases} == PROTECTION[case["id"]]


def test_draws_name_the_rule_that_decides():
    """Both sides alike (fsf-16: mutual perpetual check) is rule "verdict"; neither forbidden
    (fsf-17) is rule "allowed"."""
    by_id = {c["id"]: c for c in CASES}
    assert ruling.explain(played(by_id["fsf-16"])).decides == BY_KEY["verdict"]
    assert ruling.explain(played(by_id["fsf-17"])).decides == BY_KEY["allowed"]


def test_removing_or_swapping_the_protector_flips_the_label():
    """fsf-01: Red's cannon chases Black's rook between a8 and b8.  On b8 it is protected by Black's
    cannon on e8 over the screen of the horse on c8 (a real root; chased anyway, a rook being worth
    more).  Without that horse the cannon has no screen, and the rook on b8 is chased unprotected
    (on a8 the elephant on c10 protects it either way); with a horse on a10 as its protector
    instead, protected again."""
    case = next(c for c in CASES if c["id"] == "fsf-01")

    def on_b8(game: rules.Game) -> ruling.Protection:
        found = ruling.explain(game)
        return next(c.protection for p in found.plies for c in p.chases
                    if square_name(game.variant, c.victim) == "b8")

    assert on_b8(played(case)) == ruling.Protection(True, ruling.ROOT, 67)     # e8
    game = played(dict(case, fen=case["fen"].replace("r1n1c4", "r3c4")))
    assert game.result == "0-1"
    assert on_b8(game) == ruling.Protection(False, ruling.NONE, None)
    # the protector swapped for another: a horse on a10, whose leg (a9) is free
    game = played(dict(case, fen=case["fen"].replace("r1n1c4", "r3c4").replace("2bakabnr", "n1bakabnr")))
    assert game.result == "0-1"
    assert on_b8(game) == ruling.Protection(True, ruling.ROOT, 81)     # a10


def test_a_warning_is_explained_before_the_third_occurrence():
    case = next(c for c in CASES if c["id"] == "fsf-14")
    game = rules.Game.new("xiangqi", None, case["fen"])
    for move in case["moves"].split()[:4]:
        game.play(move)
    found = ruling.explain(game, times=2)
    assert not found.final and found.loser == 1 and len(found.plies) == 4
    assert found.decides == BY_KEY["perpetual-chase"]


def test_the_rules_are_numbered_in_order_with_their_sources():
    assert [r.number for r in RULES] == list(range(1, len(RULES) + 1))
    assert all(r.text and r.source for r in RULES)
