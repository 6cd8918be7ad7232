"""Tournament records: the event, its entrants and its pairings, each with the game it started.

Everything a tournament is lives here, so that a restart loses nothing: the round being played,
the ratings frozen at the start, and one row per pairing whose result is filled in when its game
ends (pbm.commands.tournaments.rounds).  A bye has no black player; a forfeit decided at pairing time (a
player who withdrew) has its result and no game.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

from pbm.model.db import Database, timestamp
from pbm.tournaments import Entrant, Game, Pairing
from pbm.tournaments.acceleration import baku
from pbm.tournaments.trf import Report

OPEN, RUNNING, FINISHED, CANCELLED = "open", "running", "finished", "cancelled"
# A name players type in every command: 2 to 24 letters, digits and hyphens, starting with a letter
# or digit; case-insensitive (kept in lower case); one name per game on a server, never reused.
NAME = re.compile(r"[a-z0-9][a-z0-9-]{1,23}")


@dataclass
class Tournament:
    id: int
    variant: str
    name: str
    director: str
    system: str
    double: bool
    rounds: int | None
    params: dict
    options: dict
    rated: bool
    status: str
    round: int
    created_at: str
    started_at: str | None
    finished_at: str | None
    tiebreaks: tuple[str, ...] | None = None     # None: the system's defaults
    band: tuple[int, int] | None = None           # the ratings that may join; None: all
    theme: tuple[str, ...] | None = None          # the moves every game starts after
    accelerated: bool = False                     # Swiss: Baku acceleration (C.04.5.1)
    late: int = 0                                 # Swiss: entries taken until this round is paired
    byes: int = 0                                 # Swiss: half-point byes a player may ask for
    paired: str = ""                              # paired games: "" no; the decider (pbm.tournaments.paired)


@dataclass(frozen=True)
class Entry:
    user: str
    number: int
    rating: float | None
    withdrawn: bool

    def entrant(self) -> Entrant:
        return Entrant(self.user, self.rating or 0.0, self.number)


@dataclass(frozen=True)
class Played:
    """A pairing as stored: its row id, the core's Game, and the game it started (if any) with
    that game's board number."""
    id: int
    board: int
    game: Game
    game_id: int | None
    number: int | None


_COLUMNS = ("id, variant, name, director, system, double, rounds, params, options, rated, status, "
            "round, created_at, started_at, finished_at, tiebreaks, band, theme, accelerated, late, "
            "byes, paired")


def _tournament(row: tuple) -> Tournament:
    values = list(row)
    values[5], values[9] = bool(values[5]), bool(values[9])
    values[7], values[8] = json.loads(values[7]), json.loads(values[8])
    values[15] = tuple(values[15].split(",")) if values[15] else None
    values[16] = tuple(int(v) for v in values[16].split("-")) if values[16] else None
    values[17] = tuple(values[17].split(",")) if values[17] else None
    values[18] = bool(values[18])
    return Tournament(*values)


def good_name(name: str) -> bool:
    """Whether `name` may name a tournament (pbm.commands.tournaments.tournament says what may)."""
    return NAME.fullmatch(name.lower()) is not None


def create(db: Database, variant: str, name: str, director: str, system: str, double: bool,
           rounds: int | None, params: dict, options: dict, rated: bool, now: datetime,
           tiebreaks: tuple[str, ...] | None = None, band: tuple[int, int] | None = None,
           theme: tuple[str, ...] | None = None, directing: tuple[bool, int, int] = (False, 0, 0),
           paired: str = "") -> Tournament:
    """A new tournament; `directing`: (accelerated, late, byes) of a Swiss; `paired`: the decider
    of paired games ("" for single games)."""
    cursor = db.execute(
        "INSERT INTO tournaments (variant, name, director, system, double, rounds, params, options, "
        "rated, status, created_at, tiebreaks, band, theme, accelerated, late, byes, paired) VALUES "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [variant, name.lower(), director, system, int(double), rounds, json.dumps(params),
         json.dumps(options), int(rated), OPEN, timestamp(now), ",".join(tiebreaks or ()),
         "-".join(map(str, band)) if band else "", ",".join(theme or ()), int(directing[0]),
         directing[1], directing[2], paired])
    return by_id(db, cursor.lastrowid)


def created_since(db: Database, director: str, since: datetime) -> int:
    """How many tournaments `director` created since then."""
    return db.execute("SELECT count(*) FROM tournaments WHERE director = ? AND created_at > ?",
                      [director, timestamp(since)]).fetchone()[0]


def free_name(db: Database, t: Tournament, before: datetime) -> bool:
    """Give up `t`'s name if it was cancelled before it started, or finished before `before`: it
    is then kept as NAME~ID (its records stay), and the name may name a new tournament."""
    if not ((t.status == CANCELLED and t.started_at is None) or
            (t.status in (FINISHED, CANCELLED) and t.finished_at and t.finished_at < timestamp(before))):
        return False
    db.execute("UPDATE tournaments SET name = ? WHERE id = ?", [f"{t.name}~{t.id}", t.id])
    return True


def by_id(db: Database, tournament_id: int) -> Tournament:
    return _tournament(db.execute(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?",
                                  [tournament_id]).fetchone())


def get(db: Database, variant: str, name: str) -> Tournament | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM tournaments WHERE variant = ? AND name = ?",
                     [variant, name.lower()]).fetchone()
    return _tournament(row) if row else None


def listing(db: Database, variant: str, limit: int) -> list[Tournament]:
    """Open and running tournaments first, then the newest finished ones."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM tournaments WHERE variant = ? ORDER BY "
                      f"status NOT IN ('open', 'running'), id DESC LIMIT ?", [variant, limit])
    return [_tournament(row) for row in rows]


def save(db: Database, t: Tournament) -> None:
    db.execute("UPDATE tournaments SET rounds = ?, status = ?, round = ?, started_at = ?, "
               "finished_at = ? WHERE id = ?",
               [t.rounds, t.status, t.round, t.started_at, t.finished_at, t.id])


def entries(db: Database, t: Tournament) -> list[Entry]:
    """The entrants in order of entry."""
    rows = db.execute("SELECT user_id, number, rating, withdrawn_at IS NOT NULL FROM tournament_entrants "
                      "WHERE tournament_id = ? ORDER BY number", [t.id])
    return [Entry(user, number, rating, bool(gone)) for user, number, rating, gone in rows]


def entered(db: Database, user: str) -> list[Tournament]:
    """The open or running tournaments `user` is entered in and has not withdrawn from."""
    rows = db.execute(f"SELECT {', '.join('t.' + c for c in _COLUMNS.split(', '))} FROM tournaments t "
                      f"JOIN tournament_entrants e ON e.tournament_id = t.id WHERE e.user_id = ? AND "
                      f"e.withdrawn_at IS NULL AND t.status IN ('open', 'running')", [user])
    return [_tournament(row) for row in rows]


def join(db: Database, t: Tournament, user: str, now: datetime) -> None:
    row = db.execute("SELECT coalesce(max(number), 0) FROM tournament_entrants WHERE tournament_id = ?",
                     [t.id]).fetchone()
    db.execute("INSERT INTO tournament_entrants (tournament_id, user_id, number, joined_at) "
               "VALUES (?, ?, ?, ?)", [t.id, user, row[0] + 1, timestamp(now)])


def leave(db: Database, t: Tournament, user: str) -> None:
    """Take back an entry before the start; the later entrants move up a number."""
    number = db.execute("SELECT number FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?",
                        [t.id, user]).fetchone()[0]
    db.execute("DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?", [t.id, user])
    db.execute("UPDATE tournament_entrants SET number = number - 1 WHERE tournament_id = ? AND number > ?",
               [t.id, number])


def withdraw(db: Database, t: Tournament, user: str, now: datetime) -> None:
    db.execute("UPDATE tournament_entrants SET withdrawn_at = ? WHERE tournament_id = ? AND user_id = ?",
               [timestamp(now), t.id, user])


def ask_bye(db: Database, t: Tournament, user: str, round_no: int, now: datetime) -> None:
    db.execute("INSERT INTO tournament_byes (tournament_id, user_id, round, asked_at) "
               "VALUES (?, ?, ?, ?)", [t.id, user, round_no, timestamp(now)])


def byes_asked(db: Database, t: Tournament) -> dict[str, set[int]]:
    """The rounds each player asked a half-point bye for."""
    found: dict[str, set[int]] = {}
    for user, round_no in db.execute("SELECT user_id, round FROM tournament_byes "
                                     "WHERE tournament_id = ?", [t.id]):
        found.setdefault(user, set()).add(round_no)
    return found


@dataclass(frozen=True)
class Correction:
    round: int
    board: int
    white: str
    black: str
    was: str
    now: str


def correct(db: Database, t: Tournament, row: Played, result: str, director: str,
            now: datetime) -> None:
    """The director's correction of a decided result: the pairing's result, and the record of it."""
    db.execute("UPDATE tournament_games SET result = ? WHERE id = ?", [result, row.id])
    db.execute("INSERT INTO tournament_corrections (tournament_id, round, board, was, now, director, "
               "at) VALUES (?, ?, ?, ?, ?, ?, ?)",
               [t.id, row.game.round, row.board, row.game.result, result, director, timestamp(now)])


def corrections(db: Database, t: Tournament) -> list[Correction]:
    """The results the director corrected, in the order corrected."""
    rows = db.execute("SELECT c.round, c.board, p.white, p.black, c.was, c.now "
                      "FROM tournament_corrections c JOIN tournament_games p ON "
                      "p.tournament_id = c.tournament_id AND p.round = c.round AND p.board = c.board "
                      "WHERE c.tournament_id = ? ORDER BY c.id", [t.id])
    return [Correction(*row) for row in rows]


def freeze_ratings(db: Database, t: Tournament, ratings: dict[str, float]) -> None:
    for user, rating in ratings.items():
        db.execute("UPDATE tournament_entrants SET rating = ? WHERE tournament_id = ? AND user_id = ?",
                   [rating, t.id, user])


def played(db: Database, t: Tournament) -> list[Played]:
    """Every pairing so far, in round and board order."""
    rows = db.execute("SELECT p.id, p.round, p.board, p.white, p.black, p.result, p.game_id, g.board "
                      "FROM tournament_games p LEFT JOIN games g ON g.id = p.game_id "
                      "WHERE p.tournament_id = ? ORDER BY p.round, p.id", [t.id])
    return [Played(row_id, board, Game(round_no, white, black, result), game_id, number)
            for row_id, round_no, board, white, black, result, game_id, number in rows]


def add(db: Database, t: Tournament, pairing: Pairing, game_id: int | None) -> None:
    db.execute("INSERT INTO tournament_games (tournament_id, round, board, white, black, result, game_id) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)",
               [t.id, pairing.round, pairing.board, pairing.white, pairing.black, pairing.result, game_id])


def of_game(db: Database, game_id: int) -> tuple[Tournament, int, str, str] | None:
    """The tournament a game belongs to, with its pairing's row id, White and Black; None for a
    game outside any tournament (an indexed look-up: every game end asks)."""
    row = db.execute("SELECT tournament_id, id, white, black FROM tournament_games WHERE game_id = ?",
                     [game_id]).fetchone()
    return None if row is None else (by_id(db, row[0]), row[1], row[2], row[3])


def set_result(db: Database, row_id: int, result: str) -> None:
    db.execute("UPDATE tournament_games SET result = ? WHERE id = ?", [result, row_id])


def report(db: Database, t: Tournament) -> Report:
    """The tournament as a FIDE TRF holds it (pbm.tournaments.trf): dates as YYYY/MM/DD, the
    director as chief arbiter, the time per move as the time control."""
    header = {"102": t.director}
    for code, at in (("042", t.started_at), ("052", t.finished_at)):
        if at:
            header[code] = at[:10].replace("-", "/")
    if t.options.get("timeout"):
        header["122"] = f"{t.options['timeout']:g} days a move"
    elif t.options.get("clock"):
        header["122"] = f"clock {t.options['clock']}"
    entrants = [e.entrant() for e in entries(db, t)]
    return Report(t.name, t.system, t.rounds or 0, entrants, [p.game for p in played(db, t)],
                  header, virtual=baku(entrants, t.rounds or 0) if t.accelerated else {},
                  decider=t.paired or None)
