"""The move list of a game mail, extended move by move (pbm.commands.mails.movelist), is always the list
made in one go: after moves, moves from the queue (Auto), moves taken back, in every notation, in
several games at once, and past move 100 (the columns widen)."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from pbm.commands.mails import movelist
from pbm.model.play.games import PlayedMove


@dataclass
class FakeBoard:
    """What the move list reads of a board."""
    id: int
    moves: list[PlayedMove]
    player1: str = "alice"
    player2: str = "bob"
    rendered: dict = field(default_factory=dict)


def made_in_one_go(board: FakeBoard, notation: str, upto: int | None = None) -> str:
    """The list as the spec's pbmserv board shows it, written out plainly: each player's name over
    the moves of their column (after the move numbers)."""
    shown = board.moves[:upto]
    if not shown:
        return ""
    cells = [f"{ply:>3}. {movelist.cell(m, notation)}{' (Auto)' if m.auto else ''}"
             for ply, m in enumerate(shown, start=1)]
    rows = [(f"     {board.player1} (Red)", f"     {board.player2} (Black)")]
    rows += [(cells[i], cells[i + 1] if i + 1 < len(cells) else "") for i in range(0, len(cells), 2)]
    width = max(len(left) for left, _ in rows)
    return "\n".join(f"{left:<{width}}    {right}".rstrip() for left, right in rows)


def random_move(rng: random.Random) -> PlayedMove:
    move = f"{rng.choice('abcdefghi')}{rng.randint(1, 10)}{rng.choice('abcdefghi')}{rng.randint(1, 10)}"
    notation = rng.choice([move, f"C{rng.randint(1, 9)}={rng.randint(1, 9)}", f"H{rng.randint(1, 9)}+{rng.randint(1, 9)}"])
    return PlayedMove(move, notation, rng.random() < 0.1)


def test_an_extended_list_is_the_list_made_in_one_go():
    rng = random.Random(15)
    boards = [FakeBoard(number, []) for number in (1, 2, 3)]
    for _ in range(600):
        board = rng.choice(boards)
        if board.moves and rng.random() < 0.08:
            del board.moves[-rng.randint(1, min(3, len(board.moves))):]     # taken back
        else:
            board.moves += [random_move(rng) for _ in range(rng.choice([1, 1, 1, 2]))]
        board.rendered = {}             # a new event: what the last one made is not reused
        for notation in ("both", "coordinates", "wxf"):
            assert movelist.text(board, ("Red", "Black"), None, notation) == made_in_one_go(board, notation)
        upto = rng.randint(0, len(board.moves))
        assert movelist.text(board, ("Red", "Black"), upto, "both") == made_in_one_go(board, "both", upto)
    assert max(len(board.moves) for board in boards) > 100


def test_a_list_is_made_afresh_when_the_moves_are_not_the_ones_it_was_made_of():
    board = FakeBoard(7, [PlayedMove("h3e3", "C2=5", False), PlayedMove("h10g8", "H2+3", False)])
    movelist.text(board, ("Red", "Black"))
    board.moves[0] = PlayedMove("b3e3", "C8=5", False)      # another process's game, same length + 1
    board.moves.append(PlayedMove("h1g3", "H2+3", True))
    board.rendered = {}
    assert movelist.text(board, ("Red", "Black")) == made_in_one_go(board, "both")
    assert "b3e3" in movelist.text(board, ("Red", "Black")) and "h3e3" not in movelist.text(board, ("Red", "Black"))


def test_each_name_stands_over_its_column_of_moves():
    board = FakeBoard(7, [PlayedMove("h3e3", "C2=5", False), PlayedMove("h10g8", "H8+7", False)])
    header, row = movelist.text(board, ("Red", "Black")).splitlines()
    assert header.index("alice") == row.index("h3e3") and header.index("bob") == row.index("h10g8")
