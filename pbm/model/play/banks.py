"""The time on each player's clock in a game with `--clock=BANK+INCREMENT`: what each had left when
their turn began (the player to move) or when they last moved (the other).  A game without a row
has both clocks at the full bank.  pbm.commands.timing.clocks runs them.
"""
from __future__ import annotations

from pbm.model.db import Database
from pbm.model.play.games import Board

DAY = 86400.0           # seconds


def terms(options: dict) -> tuple[float, float] | None:
    """(bank, increment) in days of a game's `clock` option ("10+1", "10+1/15"); None without a
    clock."""
    value = options.get("clock")
    if value is None:
        return None
    bank, _, increment = str(value).partition("/")[0].partition("+")
    return float(bank), float(increment or 0)


def cap(options: dict) -> float | None:
    """The most a clock may hold, in days ("10+1/15": 15); None: no cap."""
    value = str(options.get("clock", "")).partition("/")[2]
    return float(value) if value else None


def left(db: Database, board: Board) -> tuple[float, float]:
    """Seconds on player1's and player2's clocks, as last stored."""
    row = db.execute("SELECT left1, left2 FROM clocks WHERE game_id = ?", [board.id]).fetchone()
    if row is not None:
        return row[0], row[1]
    bank = terms(board.options)[0] * DAY
    return bank, bank


def store(db: Database, board: Board, first: float, second: float) -> None:
    """player1's clock now holds `first` seconds, player2's `second`."""
    db.execute("INSERT INTO clocks (game_id, left1, left2) VALUES (?, ?, ?) ON CONFLICT (game_id) "
               "DO UPDATE SET left1 = excluded.left1, left2 = excluded.left2", [board.id, first, second])
