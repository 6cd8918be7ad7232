"""A player's private notes on a game: what they think, and the lines they worked out.

Correspondence players analyse between moves and want to keep it with the game (Lichess issue 144;
chess.com and GameKnot keep private notes).  A note belongs to its writer and one game: only they
see it while the game runs.  Once the game is over, a writer who chose to share (`GAME notes ...
share` for one game, or the preference `notes=share` for all) gives their notes and lines to the
game's record, where every record format shows them as comments (`comments`) and PGN also as
variations.
"""
from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from pbm.model.db import Database, timestamp

MOST = 200              # notes a player keeps on one game


class Noted(str):
    """A shared note's text as a record shows it (its line written after it), with the line itself
    (coordinates from the position the note was written at) for a record that writes variations."""

    line: tuple[str, ...] = ()


def in_record(note: "Note") -> Noted:
    text = Noted(f"{note.text} [line: {' '.join(note.line)}]" if note.line else note.text)
    text.line = tuple(note.line)
    return text


class Note(NamedTuple):
    ply: int            # moves played when it was written
    text: str
    line: list[str]     # the moves of a saved line, in coordinates, from the position after `ply`


def add(db: Database, game_id: int, ply: int, user: str, text: str, line: list[str], now: datetime) -> None:
    """Keep `user`'s note on the game after `ply` moves."""
    db.execute("INSERT INTO notes (game_id, user_id, ply, text, line, written_at) VALUES (?, ?, ?, ?, ?, ?)",
               [game_id, user, ply, text, " ".join(line), timestamp(now)])


def count(db: Database, game_id: int, user: str) -> int:
    return db.execute("SELECT count(*) FROM notes WHERE game_id = ? AND user_id = ?",
                      [game_id, user]).fetchone()[0]


def of(db: Database, game_id: int, user: str) -> list[Note]:
    """The notes `user` wrote on the game, oldest first."""
    return [Note(ply, text, line.split()) for ply, text, line in db.execute(
        "SELECT ply, text, line FROM notes WHERE game_id = ? AND user_id = ? ORDER BY id", [game_id, user])]


def by_writer(db: Database, game_id: int) -> dict[str, list[Note]]:
    """Every note on the game by its writer, oldest first: one query for all of a move's mails."""
    found: dict[str, list[Note]] = {}
    for user, ply, text, line in db.execute(
            "SELECT user_id, ply, text, line FROM notes WHERE game_id = ? ORDER BY id", [game_id]):
        found.setdefault(user, []).append(Note(ply, text, line.split()))
    return found


def share(db: Database, game_id: int, user: str) -> None:
    db.execute("INSERT OR IGNORE INTO note_shares (game_id, user_id) VALUES (?, ?)", [game_id, user])


def shared(db: Database, game_id: int) -> list[tuple[str, Note]]:
    """(writer, note) of the notes of each player who shared this game's notes or shares all (the
    preference notes=share): what the record of a finished game shows (pbm.model.play.games.comments)."""
    return [(user, Note(ply, text, line.split())) for user, ply, text, line in db.execute(
        "SELECT n.user_id, n.ply, n.text, n.line FROM notes n JOIN users u ON u.id = n.user_id "
        "WHERE n.game_id = ? AND (EXISTS (SELECT 1 FROM note_shares s WHERE s.game_id = n.game_id "
        "AND s.user_id = n.user_id) OR json_extract(u.preferences, '$.notes') = 'share') "
        "ORDER BY n.id", [game_id])]
