"""Appeals against a ruling (`GAME appeal`): a player's objection, kept until an arbiter adjudicates
the game again (the appeal is then "decided") or dismisses it."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from pbm.model.db import Database, timestamp
from pbm.model.play.games import Board

OPEN, DISMISSED, DECIDED = "open", "dismissed", "decided"


@dataclass(frozen=True)
class Appeal:
    user: str
    text: str
    at: str
    status: str
    arbiter: str | None
    closed_at: str | None


def of_game(db: Database, board: Board) -> list[Appeal]:
    """Every appeal on `board`, oldest first."""
    return [Appeal(*row) for row in db.execute(
        "SELECT user_id, text, at, status, arbiter, closed_at FROM appeals WHERE game_id = ? ORDER BY at",
        [board.id])]


def lodge(db: Database, board: Board, user: str, text: str, now: datetime) -> bool:
    """Record `user`'s appeal; False if they have appealed this game before."""
    return db.execute("INSERT OR IGNORE INTO appeals (game_id, user_id, text, at, status) "
                      "VALUES (?, ?, ?, ?, ?)", [board.id, user, text, timestamp(now), OPEN]).rowcount == 1


def close(db: Database, board: Board, status: str, arbiter: str, now: datetime,
          appellant: str | None = None) -> list[str]:
    """Close the open appeals on `board` (`appellant`'s alone, if given) as `status`; returns the
    appellants."""
    users = [a.user for a in of_game(db, board) if a.status == OPEN and appellant in (None, a.user)]
    db.execute("UPDATE appeals SET status = ?, arbiter = ?, closed_at = ? WHERE game_id = ? AND status = ? "
               "AND user_id IN (SELECT value FROM json_each(?))",
               [status, arbiter, timestamp(now), board.id, OPEN, json.dumps(users)])
    return users
