"""`pbm export FOLDER`: the games, their moves, the players, the ratings and the tournaments as CSV
or JSON files, every finished game as a PGN file and every tournament as a FIDE TRF-16 file
(`trf/VARIANT-NAME.trf`), for an operator's archive, a club's web page, a rating office or a
database.

It reads through sqlite-utils (the tables as rows of dicts) on its own connection, inside one read
transaction, so the export is one consistent moment of a running server.  Password hashes, reply
tokens, preferences, addresses and stored mail are not exported: a players file names players, it
does not hold what would let anyone act as one.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path

import sqlite_utils

from pbm.model.play import games, pgn, tournaments
from pbm.tournaments import trf
from pbm.model.db import Database

# What each file holds: a query over the database, its columns named as the file's columns.
TABLES = {
    "games": "SELECT id, variant, board, player1, player2, params, options, start_fen, rated, status, "
             "ply, result, winner, reason, created_at, finished_at FROM games ORDER BY id",
    "moves": "SELECT game_id, ply, move, notation, auto, played_at FROM moves ORDER BY game_id, ply",
    "players": "SELECT id, created_at, closed_at FROM users ORDER BY id",
    "ratings": "SELECT variant, user_id, rating, deviation, volatility, latest, games, wins, losses, "
               "draws FROM ratings ORDER BY variant, rating DESC",
    "rating_changes": "SELECT variant, user_id, game_id, at, score, before, after, deviation, volatility "
                      "FROM rating_changes ORDER BY at, game_id",
    "elo_history": "SELECT variant, user_id, game_id, at, before, after FROM elo_history ORDER BY at",
    "tournaments": "SELECT id, variant, name, director, system, double, rounds, rated, status, round, "
                   "created_at, started_at, finished_at FROM tournaments ORDER BY id",
    "tournament_entrants": "SELECT tournament_id, user_id, number, rating, withdrawn_at FROM "
                           "tournament_entrants ORDER BY tournament_id, number",
    "tournament_games": "SELECT tournament_id, round, board, white, black, result, game_id FROM "
                        "tournament_games ORDER BY tournament_id, round, id",
}
FORMATS = ("csv", "json")


def export(db: Database, folder: Path, fmt: str, site: str, pgn_folder: Path) -> dict[str, int]:
    """Write the files into `folder` and the PGN files into `pgn_folder` (both made if missing);
    returns how many rows or games each got."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: csv or json")
    folder.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    reader = sqlite_utils.Database(db.conn)
    db.execute("BEGIN")                 # one read transaction: every file shows the same moment
    try:
        for name, sql in TABLES.items():
            counts[name] = _write(folder / f"{name}.{fmt}", fmt, reader.query(sql))
        counts["pgn"] = _pgn(db, pgn_folder, site)
        counts["trf"] = _trf(db, folder / "trf")
    finally:
        db.execute("COMMIT")
    return counts


def _write(path: Path, fmt: str, rows: Iterable[dict]) -> int:
    rows = list(rows)
    with path.open("w", encoding="utf-8", newline="") as out:
        if fmt == "json":
            json.dump(rows, out, ensure_ascii=False, indent=1)
            out.write("\n")
        elif rows:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return len(rows)


def _pgn(db: Database, folder: Path, site: str) -> int:
    """Every finished game as `VARIANT-BOARD.pgn`, as `GAME record BOARD` mails it."""
    folder.mkdir(parents=True, exist_ok=True)
    finished = [row[0] for row in db.execute("SELECT id FROM games WHERE status = ? ORDER BY id",
                                             [games.FINISHED])]
    for game_id in finished:
        board = games.get(db, game_id)
        text = pgn.record(board, games.comments(db, board, timed=True), site)
        (folder / pgn.filename(board)).write_text(text, encoding="utf-8")
    return len(finished)


def _trf(db: Database, folder: Path) -> int:
    """Every tournament as `VARIANT-NAME.trf`, as `GAME tournament record NAME` mails it."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = [row[0] for row in db.execute("SELECT id FROM tournaments ORDER BY id")]
    for tournament_id in ids:
        t = tournaments.by_id(db, tournament_id)
        text = trf.write(tournaments.report(db, t), t.tiebreaks)
        (folder / f"{t.variant}-{t.name}.trf").write_text(text, encoding="utf-8")
    return len(ids)
