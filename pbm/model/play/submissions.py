"""Submitted moves (`GAME submit`): one per player and game, waiting for `GAME confirm`."""
from __future__ import annotations

from pbm.model.db import Database
from pbm.model.play.games import Board


def put(db: Database, board: Board, user: str, move: str, fen: str) -> None:
    """`user`'s move `move`, submitted in the position `fen`; it replaces an earlier one."""
    db.execute("INSERT OR REPLACE INTO submitted (game_id, user_id, move, fen) VALUES (?, ?, ?, ?)",
               [board.id, user, move, fen])


def take(db: Database, board: Board, user: str) -> tuple[str, str] | None:
    """(move, fen) of `user`'s submitted move, which is forgotten; None if there is none."""
    row = db.execute("DELETE FROM submitted WHERE game_id = ? AND user_id = ? RETURNING move, fen",
                     [board.id, user]).fetchone()
    return (row[0], row[1]) if row else None
