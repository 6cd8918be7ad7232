"""The move list of a game mail: a header row, then one column per player, global move numbers.

It is most of a long game's mail, and every move sends it to every player and observer, so it is
made once per event (in `Board.rendered`), and extended from the list this thread made for the
board's previous move rather than made again: in `pbm serve`, whose one writing thread handles every
move, move 300 then costs what move 10 does.  A list that does not start with the moves
the thread made (a move taken back, another process's move) is made afresh.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import NamedTuple

import rules
from pbm import i18n
from pbm.commands.mails.next_steps import reader_styles
from pbm.i18n import N_, _, ljust, width
from pbm.model.play.games import Board, PlayedMove
from rules.notation import PASS

KEPT = 1000             # lists a thread keeps: one per board played on lately
STYLES = ("both", "coordinates", "wxf")     # the lists made from the stored moves alone


def text(board: Board, sides: tuple[str, str], upto: int | None = None, notation: str = "both",
         names: list[str] | None = None) -> str:
    """The list of the board's moves (the first `upto`), in coordinates, the game's notation, or
    `both` (a player's preference), or as `names` names them (a reader's notation, such as
    Chinese: then `notation` names that style); "" before the first move."""
    key = (upto, notation, len(board.moves), sides, i18n.language())
    if key not in board.rendered:
        # each name over its column's moves: after a cell's number ("  1. ")
        header = (f"     {board.player1} ({sides[0]})", f"     {board.player2} ({sides[1]})")
        moves = board.moves if upto is None else board.moves[:upto]
        board.rendered[key] = "\n".join(_lines(board.id, header, notation, moves, names)) if moves else ""
    return board.rendered[key]


def cell(m: PlayedMove, notation: str) -> str:
    """`h3e3   C2=5`: coordinates, then the game's notation where it differs from them (a pass
    in the reader's language)."""
    if m.move == PASS:
        return pass_word()
    if m.notation == m.move or notation == "coordinates":
        return m.move
    return m.notation if notation == "wxf" else f"{m.move:<6} {m.notation}"


PASS_WORD = N_("pass")                  # a Janggi pass, in a move list or a sentence


def pass_word() -> str:
    """A pass as a reader of the game's coordinates writes it in their language: pass, 停着, 한수쉼."""
    return _(PASS_WORD)


def moves_named(game: rules.Game, ply: int, moves: str) -> str:
    """`moves` (coordinates, as a take-back stores them) played after the first `ply` moves of
    `game`, named in the reader's notation where they chose one (`炮五进四 马3进5`)."""
    style = i18n.notation()
    if style not in reader_styles(game.variant):
        return moves
    try:
        probe = game.at(ply)
        named = []
        for move in moves.split():
            probe.play(move)
            named.append(probe.name_last(style))
    except rules.RulesError:            # a later take-back went further back: as stored
        return moves
    return " ".join(named)


class _List(NamedTuple):
    moves: list[PlayedMove]
    cells: list[str]        # one per move: its number, the move, (Auto)
    width: int              # of the left column
    lines: list[str]


class _Kept(threading.local):
    def __init__(self) -> None:
        self.lists: OrderedDict[tuple, _List] = OrderedDict()


_kept = _Kept()


def _lines(game_id: int, header: tuple[str, str], notation: str, moves: list[PlayedMove],
           names: list[str] | None) -> list[str]:
    key = (game_id, header, notation, i18n.language())
    made = _kept.lists.pop(key, None)
    if made is None or moves[:len(made.moves)] != made.moves:
        made = _List([], [], width(header[0]), [])
    start = len(made.cells)
    auto = " " + _("(Auto)")
    cells = made.cells + [f"{ply:>3}. {names[ply - 1] if names else cell(m, notation)}"
                          f"{auto if m.auto else ''}"
                          for ply, m in enumerate(moves[start:], start=start + 1)]
    columns = max([made.width, *map(width, cells[start + start % 2::2])])    # the new left cells
    if made.lines and columns == made.width:
        first = start // 2                  # the first row with a new cell: made again from there
        lines = made.lines[:1 + first]
    else:
        first, lines = 0, [_row(*header, columns)]
    lines += [_row(cells[i], cells[i + 1] if i + 1 < len(cells) else "", columns)
              for i in range(2 * first, len(cells), 2)]
    _kept.lists[key] = _List(list(moves), cells, columns, lines)
    if len(_kept.lists) > KEPT:
        _kept.lists.popitem(last=False)
    return lines


def _row(left: str, right: str, columns: int) -> str:
    return f"{ljust(left, columns)}    {right}".rstrip()


def names(board: Board, game: rules.Game, style: str) -> list[str]:
    """The board's moves as a reader of `style` names them: once per event, for all its readers."""
    if style not in reader_styles(game.variant):
        return [cell(m, style if style in STYLES else "both") for m in board.moves]
    # the list is of the board's moves: a game replayed to an earlier move names fewer
    listed = game if game.moves[:len(board.moves)] == [m.move for m in board.moves] else board.replay()
    key = ("names", style, id(listed), len(listed.moves))
    if key not in board.rendered:
        board.rendered[key] = listed.name_moves(style)
    return board.rendered[key]
