"""End-of-game notices (`GAME notify`): who wants a mail when a game ends.  A row with game_id 0
stands for every game its user plays in that game kind."""
from __future__ import annotations

from pbm.model.db import Database
from pbm.model.play.games import Board

EVERY_GAME = 0


def add(db: Database, user: str, variant: str, game_id: int) -> bool:
    """False if it was asked for already."""
    return db.execute("INSERT OR IGNORE INTO end_notices (user_id, variant, game_id) VALUES (?, ?, ?)",
                      [user, variant, game_id]).rowcount == 1


def remove(db: Database, user: str, variant: str) -> int:
    """Drop every notice `user` asked for in `variant`; returns how many."""
    return db.execute("DELETE FROM end_notices WHERE user_id = ? AND variant = ?", [user, variant]).rowcount


def wanted(db: Database, user: str, variant: str) -> list[int]:
    """The ids of the games `user` asked for notices of (EVERY_GAME: all of theirs)."""
    return [row[0] for row in db.execute("SELECT game_id FROM end_notices WHERE user_id = ? AND variant = ? "
                                         "ORDER BY game_id", [user, variant])]


def readers(db: Database, board: Board) -> list[str]:
    """Who gets a notice of `board`'s end: those who asked for this board, and its players who asked
    for all of theirs; the notices of this board are then forgotten."""
    found = [row[0] for row in db.execute(
        "SELECT user_id FROM end_notices WHERE variant = ? AND (game_id = ? OR (game_id = ? AND "
        "user_id IN (?, ?))) ORDER BY user_id",
        [board.variant, board.id, EVERY_GAME, board.player1, board.player2])]
    db.execute("DELETE FROM end_notices WHERE variant = ? AND game_id = ?", [board.variant, board.id])
    return list(dict.fromkeys(found))
