"""Conditional moves: each player's tree of "if my opponent plays X, I play Y" lines on a game.

A tree is kept as its lines, each the coordinate moves from the position after `ply` moves: the
opponent's move, the owner's reply, then maybe the opponent's next and the owner's reply to it...
(pbm.commands.games.conditional checks and plays them).
"""
from __future__ import annotations

from pbm.model.db import Database
from pbm.model.play.games import Board


def lines(db: Database, board: Board, user: str) -> tuple[int | None, list[list[str]]]:
    """(the ply the tree starts from, its lines); (None, []) when `user` has none."""
    rows = db.execute("SELECT ply, line FROM conditionals WHERE game_id = ? AND user_id = ? ORDER BY line",
                      [board.id, user]).fetchall()
    if not rows:
        return None, []
    return rows[0][0], [line.split() for _, line in rows]


def plans(db: Database, board: Board, user: str) -> tuple[int | None, list[list[str]], list[str]]:
    """What `user` planned for their turn, in one statement (every move asks): (the ply their tree
    starts from, its lines, their queued premoves)."""
    ply, tree, queue = None, [], []
    for kind, number, text in db.execute(
            "SELECT 0, ply, line FROM conditionals WHERE game_id = ? AND user_id = ? UNION ALL "
            "SELECT 1, seq, move FROM premoves WHERE game_id = ? AND user_id = ? ORDER BY 1, 2, 3",
            [board.id, user, board.id, user]):
        if kind == 0:
            ply = number
            tree.append(text.split())
        else:
            queue.append(text)
    return ply, tree, queue


def replace(db: Database, board: Board, user: str, ply: int, tree: list[list[str]]) -> None:
    """`user`'s tree is now `tree`, starting after `ply` moves (an empty tree: none)."""
    clear(db, board, user)
    for line in tree:
        if line:
            db.execute("INSERT OR IGNORE INTO conditionals (game_id, user_id, ply, line) VALUES (?, ?, ?, ?)",
                       [board.id, user, ply, " ".join(line)])


def clear(db: Database, board: Board, user: str | None = None) -> int:
    """Drop one player's tree (or both); returns how many lines were dropped."""
    if user is None:
        return db.execute("DELETE FROM conditionals WHERE game_id = ?", [board.id]).rowcount
    return db.execute("DELETE FROM conditionals WHERE game_id = ? AND user_id = ?",
                      [board.id, user]).rowcount
