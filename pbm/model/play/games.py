"""Game records: the games table, the moves, queued premoves, observers and the event record.

A game is stored as its start FEN and its coordinate moves (with their notation, so replaying it
for a command costs no notation work); the rules core replays it with `rules.Game.from_record`.
What the rules core does not know -- players, offers, resignations, rulings, time limits -- lives
in the row.  Every query here is served by an index (see migration 2 in pbm.model.schema).
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

import rules
from pbm import catalogue
from pbm.model.db import Database, parse_timestamp, timestamp
from pbm.model.play import notes

FIRST_BOARD = 101
ACTIVE, FINISHED, CANCELLED, DECLINED = "active", "finished", "cancelled", "declined"


class PlayedMove(NamedTuple):
    """One stored move (a tuple: every command loads a whole game's worth of them)."""
    move: str           # coordinates
    notation: str       # the game's own notation
    auto: bool          # played from the player's queue
    played_at: str = ""     # when (a timestamp): the next turn began then


@dataclass
class Board:
    """One game as stored; commands change its fields and `save()` it."""

    id: int
    variant: str
    number: int
    player1: str
    player2: str
    params: dict
    options: dict
    start_fen: str
    rated: bool
    status: str
    ply: int
    to_move: str | None
    result: str
    winner: str | None
    reason: str | None
    offer: str | None
    offer_by: str | None
    created_at: str
    updated_at: str
    finished_at: str | None
    remind_at: str | None
    deadline: str | None
    challenger: str | None              # None for games older than the consent rule
    accepted_at: str | None             # when the challenged player consented; None: not yet
    expires_at: str | None              # the challenge lapses then unless taken up
    paused_left: float | None           # seconds left on to_move's stopped clock (on vacation)
    moves: list[PlayedMove] = field(default_factory=list)
    # what the mails of this command render once for all their readers (pbm.commands.mails.notify)
    rendered: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def title(self) -> str:
        return catalogue.title(self.variant)

    @property
    def challenged(self) -> str | None:
        return None if self.challenger is None else self.opponent(self.challenger)

    @property
    def accepted(self) -> bool:
        """The challenged player has consented (moved, or chosen a setup): from then on the game
        is rated (if it was to be) and both clocks run."""
        return self.accepted_at is not None

    @property
    def players(self) -> tuple[str, str]:
        return self.player1, self.player2

    def opponent(self, user: str) -> str:
        return self.player2 if user == self.player1 else self.player1

    @property
    def first_turn(self) -> str:
        """The side ("w" or "b") player1 plays: the side to move in the start position."""
        return self.start_fen.split()[1]

    def player_of(self, turn: str) -> str:
        return self.player1 if turn == self.first_turn else self.player2

    def turn_of(self, user: str) -> str:
        return self.first_turn if user == self.player1 else "bw"["wb".index(self.first_turn)]

    def replay(self) -> rules.Game:
        """The game as stored, played through by the rules core.

        A game this thread left with `remember()` is used instead when its record is exactly this
        board's (replaying costs a millisecond in a long game, on every move); it is handed out
        once, so two callers never share one Game, and a command rolled back after it was
        remembered leaves a record that no longer matches, so it is replayed.
        """
        moves = [m.move for m in self.moves]
        kept = _remembered.games.pop(self.id, None)
        if kept is not None and kept[0] == self._record_key() and kept[1].moves == moves:
            return kept[1]
        return rules.Game.from_record(self.variant, self.params or None, self.start_fen, moves,
                                      [m.notation for m in self.moves])

    def turn_began(self) -> datetime:
        """When the turn of the player to move began: the last move, else the game's start."""
        return parse_timestamp(self.moves[-1].played_at if self.moves and self.moves[-1].played_at
                               else self.created_at)

    def _record_key(self) -> tuple:
        """What, besides the moves, makes a game: the same key and moves give the same Game."""
        return self.variant, json.dumps(self.params, sort_keys=True), self.start_fen


class _Remembered(threading.local):
    """Per thread: the Game and the moves of boards just played on, for the next command on each."""

    def __init__(self) -> None:
        self.games: OrderedDict[int, tuple[tuple, rules.Game]] = OrderedDict()
        self.moves: dict[int, tuple[tuple[int, str], tuple[PlayedMove, ...]]] = {}  # see _load_moves


_remembered = _Remembered()
_REMEMBERED_MAX = 1000


def remember(board: Board, game: rules.Game) -> None:
    """Keep `game` -- `board`'s game as just stored -- for the next `board.replay()` in this thread.
    The caller must not change `game` afterwards."""
    _remembered.games[board.id] = (board._record_key(), game)
    _remembered.games.move_to_end(board.id)
    if len(_remembered.games) > _REMEMBERED_MAX:
        _remembered.games.popitem(last=False)


_COLUMNS = ("id, variant, board, player1, player2, params, options, start_fen, rated, status, ply, "
            "to_move, result, winner, reason, offer, offer_by, created_at, updated_at, finished_at, "
            "remind_at, deadline, challenger, accepted_at, expires_at, paused_left")


def _board(row: tuple) -> Board:
    values = list(row)
    values[5], values[6], values[8] = json.loads(values[5]), json.loads(values[6]), bool(values[8])
    return Board(*values)


def create(db: Database, variant: str, player1: str, player2: str, params: dict,
           options: dict, start_fen: str, rated: bool, now: datetime, challenger: str,
           expires_at: str) -> Board:
    row = db.execute("SELECT max(board) FROM games WHERE variant = ?", [variant]).fetchone()
    number = max(row[0] or 0, FIRST_BOARD - 1) + 1
    at = timestamp(now)
    cursor = db.execute(
        "INSERT INTO games (variant, board, player1, player2, params, options, start_fen, rated, "
        "status, to_move, created_at, updated_at, challenger, expires_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [variant, number, player1, player2, json.dumps(params), json.dumps(options), start_fen,
         int(rated), ACTIVE, player1, at, at, challenger, expires_at])
    return get(db, cursor.lastrowid)


def get(db: Database, game_id: int) -> Board:
    board = _board(db.execute(f"SELECT {_COLUMNS} FROM games WHERE id = ?", [game_id]).fetchone())
    _load_moves(db, board)
    return board


def load(db: Database, variant: str, number: int) -> Board | None:
    """The game with its moves, or None."""
    row = db.execute(f"SELECT {_COLUMNS} FROM games WHERE variant = ? AND board = ?",
                     [variant, number]).fetchone()
    if row is None:
        return None
    board = _board(row)
    _load_moves(db, board)
    return board


def _load_moves(db: Database, board: Board) -> None:
    """The board's moves: as this thread last saved them if the row still says so (same ply, same
    `updated_at`: no other process or rolled-back command changed it since), else from the table --
    a long game's record, read on every move, would make move 300 dearer than move 10."""
    kept = _remembered.moves.get(board.id)
    if kept is not None and kept[0] == (board.ply, board.updated_at):
        board.moves = list(kept[1])
        return
    board.moves = [PlayedMove(m, n, bool(a), at) for m, n, a, at in db.execute(
        "SELECT move, notation, auto, played_at FROM moves WHERE game_id = ? ORDER BY ply", [board.id])]


def correct_result(db: Database, board: Board, winner: str | None, result: str, rated: bool) -> None:
    """A finished game's result as a ruling changed it (a director's correction): its record follows."""
    board.winner, board.result, board.rated = winner, result, rated
    db.execute("UPDATE games SET winner = ?, result = ?, rated = ? WHERE id = ?",
               [winner, result, int(rated), board.id])


def save(db: Database, board: Board, now: datetime) -> None:
    """Write the fields commands change (the moves are written by add_move / take_back)."""
    board.updated_at = timestamp(now)
    db.execute(
        "UPDATE games SET status = ?, ply = ?, to_move = ?, result = ?, winner = ?, reason = ?, "
        "offer = ?, offer_by = ?, updated_at = ?, finished_at = ?, remind_at = ?, deadline = ?, "
        "accepted_at = ?, expires_at = ?, paused_left = ? WHERE id = ?",
        [board.status, board.ply, board.to_move, board.result, board.winner, board.reason,
         board.offer, board.offer_by, board.updated_at, board.finished_at, board.remind_at,
         board.deadline, board.accepted_at, board.expires_at, board.paused_left, board.id])
    if len(board.moves) != board.ply:   # a board from a listing: its moves were never loaded
        _remembered.moves.pop(board.id, None)
        return
    _remembered.moves[board.id] = ((board.ply, board.updated_at), tuple(board.moves))
    if len(_remembered.moves) > _REMEMBERED_MAX:
        del _remembered.moves[next(iter(_remembered.moves))]


def set_start(db: Database, board: Board, params: dict, start_fen: str) -> None:
    """A setup choice (Janggi's arrangements) changed how the game starts; the moves stay."""
    board.params, board.start_fen = params, start_fen
    db.execute("UPDATE games SET params = ?, start_fen = ? WHERE id = ?",
               [json.dumps(params), start_fen, board.id])


def reminded(db: Database, board: Board) -> None:
    """The reminder of this turn has been sent."""
    board.remind_at = None
    db.execute("UPDATE games SET remind_at = NULL WHERE id = ?", [board.id])


def add_move(db: Database, board: Board, move: str, notation: str, auto: bool,
             now: datetime) -> None:
    board.moves.append(PlayedMove(move, notation, auto, timestamp(now)))
    board.ply = len(board.moves)
    db.execute("INSERT INTO moves (game_id, ply, move, notation, auto, played_at) VALUES (?, ?, ?, ?, ?, ?)",
               [board.id, board.ply, move, notation, int(auto), board.moves[-1].played_at])


def take_back(db: Database, board: Board, plies: int) -> None:
    del board.moves[len(board.moves) - plies:]
    board.ply = len(board.moves)
    db.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", [board.id, board.ply])


# --- the game record -----------------------------------------------------------------------------------

def add_event(db: Database, board: Board, kind: str, user: str | None, detail: str,
              now: datetime) -> None:
    db.execute("INSERT INTO events (game_id, at, kind, user_id, detail, ply) VALUES (?, ?, ?, ?, ?, ?)",
               [board.id, timestamp(now), kind, user, detail, board.ply])


def events(db: Database, board: Board) -> list[tuple[str, str, str | None, str, int]]:
    """(at, kind, user, detail, moves played then) in order, without the comments (see `comments`)."""
    return db.execute("SELECT at, kind, user_id, detail, ply FROM events WHERE game_id = ? AND kind NOT IN "
                      "('comment', 'chat', 'book') ORDER BY id",
                      [board.id]).fetchall()


def comments(db: Database, board: Board, *, timed: bool = False) -> list[tuple[int, str | None, str]]:
    """(moves played then, author, text) of every comment and chat the players sent, in order, and
    a thematic tournament's book moves (no author) before the first move; once the game is over,
    the notes its players shared (pbm.model.play.notes), a saved line in coordinates after them;
    `timed` (a record's comments): each move's time after it, `[%timestamp 2026-11-28T06:43:12Z]`."""
    said = db.execute("SELECT ply, user_id, CASE kind WHEN 'book' THEN 'book: ' || detail ELSE "
                      "detail END FROM events WHERE game_id = ? AND kind IN ('comment', 'chat', "
                      "'book') ORDER BY id", [board.id]).fetchall()
    if timed:       # a record's: when each move was made, as PGN readers take it (docs/decisions.md)
        said = said + [(ply, None, f"[%timestamp {m.played_at[:19].replace(' ', 'T')}Z]")
                       for ply, m in enumerate(board.moves, start=1)]
    if board.status == ACTIVE:          # a player's notes stay theirs while the game runs
        return said
    return said + [(note.ply, f"{user} (note)", notes.in_record(note)) for user, note in notes.shared(db, board.id)]


# --- queued premoves -----------------------------------------------------------------------------------

def premoves(db: Database, board: Board, user: str) -> list[str]:
    return [row[0] for row in db.execute(
        "SELECT move FROM premoves WHERE game_id = ? AND user_id = ? ORDER BY seq", [board.id, user])]


def add_premove(db: Database, board: Board, user: str, move: str, now: datetime) -> int:
    """Append to the user's queue; returns its length."""
    row = db.execute("SELECT coalesce(max(seq), 0), count(*) FROM premoves WHERE game_id = ? AND user_id = ?",
                     [board.id, user]).fetchone()
    db.execute("INSERT INTO premoves (game_id, user_id, seq, move, queued_at) VALUES (?, ?, ?, ?, ?)",
               [board.id, user, row[0] + 1, move, timestamp(now)])
    return row[1] + 1


def pop_premove(db: Database, board: Board, user: str) -> str | None:
    row = db.execute("SELECT seq, move FROM premoves WHERE game_id = ? AND user_id = ? ORDER BY seq LIMIT 1",
                     [board.id, user]).fetchone()
    if row is None:
        return None
    db.execute("DELETE FROM premoves WHERE game_id = ? AND user_id = ? AND seq = ?", [board.id, user, row[0]])
    return row[1]


def clear_premoves(db: Database, board: Board, user: str | None = None) -> int:
    """Empty one player's queue (or both); returns how many moves were dropped."""
    if user is None:
        return db.execute("DELETE FROM premoves WHERE game_id = ?", [board.id]).rowcount
    return db.execute("DELETE FROM premoves WHERE game_id = ? AND user_id = ?", [board.id, user]).rowcount


# --- observers -------------------------------------------------------------------------------------------

def observers(db: Database, board: Board) -> list[str]:
    return [row[0] for row in db.execute(
        "SELECT user_id FROM observers WHERE game_id = ? ORDER BY since, user_id", [board.id])]


def add_observer(db: Database, board: Board, user: str, now: datetime) -> bool:
    """False if the user was already observing."""
    return db.execute("INSERT OR IGNORE INTO observers (game_id, user_id, since) VALUES (?, ?, ?)",
                      [board.id, user, timestamp(now)]).rowcount == 1


def remove_observer(db: Database, board: Board, user: str) -> bool:
    return db.execute("DELETE FROM observers WHERE game_id = ? AND user_id = ?",
                      [board.id, user]).rowcount == 1


# --- lists -----------------------------------------------------------------------------------------------

def listing(db: Database, variant: str | None, users: list[str], which: str,
            limit: int) -> list[Board]:
    """Games of `variant` (None: every game) for `users` (empty: everybody), newest first for
    finished games, by board number for running ones.

    `which`: "active" (running), "next" (running, the user's turn), "inactive" (finished or
    cancelled).  Each query reads one index range with a LIMIT (a `+variant` keeps SQLite on the
    per-player index), so the cost does not grow with the number of finished games.
    """
    inactive = which == "inactive"
    order = "finished_at DESC" if inactive else "variant, board"
    statuses = [FINISHED, CANCELLED] if inactive else [ACTIVE]
    of_variant, extra = (" AND +variant = ?", [variant]) if variant else ("", [])
    if not users:
        variants = [variant] if variant else list(catalogue.GAMES)
        if inactive:
            queries = [("variant = ? AND status = ?", [v, status]) for v in variants for status in statuses]
        else:       # the partial index games_running holds only running games
            queries = [("status = 'active' AND variant = ?", [v]) for v in variants]
    elif which == "next":
        queries = [(f"to_move = ?{of_variant}", [user, *extra]) for user in users]
    else:
        queries = [(f"{column} = ? AND status = ?{of_variant}", [user, status, *extra])
                   for user in users for column in ("player1", "player2") for status in statuses]
    found: dict[int, Board] = {}
    for where, params in queries:
        for row in db.execute(f"SELECT {_COLUMNS} FROM games WHERE {where} ORDER BY {order} LIMIT ?",
                              [*params, limit]):
            found.setdefault(row[0], _board(row))
    boards = list(found.values())
    if inactive:
        boards.sort(key=lambda b: b.finished_at or "", reverse=True)
    else:
        boards.sort(key=lambda b: (b.variant, b.number))
    return boards[:limit]


def count(db: Database, variant: str, status: str) -> int:
    return db.execute("SELECT count(*) FROM games WHERE variant = ? AND status = ?",
                      [variant, status]).fetchone()[0]


def head_to_head(db: Database, variant: str, user: str) -> list[tuple[str, int, int, int]]:
    """(opponent, won, drawn, lost) of `user`'s finished games of `variant`, by opponent.  (A
    comparison with a draw's NULL winner is NULL: IFNULL keeps a count of only draws at 0.)"""
    return db.execute(
        "SELECT opponent, sum(IFNULL(winner = ?, 0)), sum(winner IS NULL), sum(IFNULL(winner = opponent, 0)) "
        "FROM ("
        "  SELECT player2 AS opponent, winner FROM games WHERE player1 = ? AND status = ? AND +variant = ?"
        "  UNION ALL"
        "  SELECT player1, winner FROM games WHERE player2 = ? AND status = ? AND +variant = ?"
        ") GROUP BY opponent ORDER BY opponent", [user, user, FINISHED, variant, user, FINISHED, variant]
    ).fetchall()


def history(db: Database, variant: str, user: str | None, limit: int) -> list[Board]:
    """Finished games (with a result), newest first."""
    if user is None:
        rows = db.execute(f"SELECT {_COLUMNS} FROM games WHERE variant = ? AND status = ? "
                          "ORDER BY finished_at DESC LIMIT ?", [variant, FINISHED, limit]).fetchall()
    else:
        rows = [row for column in ("player1", "player2") for row in db.execute(
            f"SELECT {_COLUMNS} FROM games WHERE {column} = ? AND status = ? AND +variant = ? "
            "ORDER BY finished_at DESC LIMIT ?", [user, FINISHED, variant, limit])]
    boards = sorted((_board(row) for row in rows), key=lambda b: b.finished_at or "", reverse=True)
    return boards[:limit]
