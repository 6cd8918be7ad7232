"""Ratings, one per player and game (Xiangqi, Janggi, Padwar qi, Gi-Qi apart): Glicko-2 game by
game with time, as Lichess rates correspondence (pbm.ratings.correspondence; docs/ratings.md).

The `ratings` row keeps each player's rating, deviation and volatility as of their last rated
game (`latest`); what a reader sees is that deviation widened to the moment they read it (`at`).
`rating_changes` keeps every game's result for each player, in the order the games ended: the
history from which any point on can be rated again (`rerate_from`, when a ruling changes a
result) and the whole replayed (`to_glicko_2`, the move from Elo, whose history stays in
`elo_history` for reference).

Rated games are those the rules or a ruling decided (mate, resignation, agreement, time, admin
adjudication or forfeit) and that started from the normal start position or a thematic
tournament's (rated in their own game); declined and cancelled games, and games from a -fen
position or with -unrated, change nothing.  The games table says which: RATED below.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm.model.db import Database, parse_timestamp
from pbm.ratings import correspondence
from pbm.ratings.glicko2 import Glicko

START = correspondence.START
# The games pbm.commands.games.turns.finish rates (board.rated and board.accepted), as SQL.
RATED = "status = 'finished' AND rated = 1 AND accepted_at IS NOT NULL"


@dataclass(frozen=True)
class Rating:
    """A player's rating in one game, as stored."""
    user_id: str
    rating: float
    deviation: float            # as of `latest`
    volatility: float
    latest: str | None          # when their last rated game ended; None: no rated game yet
    games: int
    wins: int
    losses: int
    draws: int

    def at(self, now: datetime) -> Glicko:
        """The rating as of `now`: the deviation widened for the days since the last game."""
        return correspondence.live(Glicko(self.rating, self.deviation, self.volatility),
                                   parse_timestamp(self.latest) if self.latest else None, now)

    def shown(self, now: datetime) -> str:
        """`1843 ±96` (`1843? ±240` while provisional)."""
        return correspondence.shown(self.at(now))


_COLUMNS = "user_id, rating, deviation, volatility, latest, games, wins, losses, draws"


def get(db: Database, variant: str, user_id: str) -> Rating:
    row = db.execute(f"SELECT {_COLUMNS} FROM ratings WHERE variant = ? AND user_id = ?",
                     [variant, user_id]).fetchone()
    return Rating(*row) if row else Rating(user_id, START.rating, START.deviation, START.volatility,
                                           None, 0, 0, 0, 0)


def record(db: Database, variant: str, first: str, second: str, score: float,
           game_id: int, at: str) -> None:
    """Rate a game between `first` and `second` that ended `at`; `score` is first's (1, 0.5, 0)."""
    a, b = get(db, variant, first), get(db, variant, second)
    when = parse_timestamp(at)
    after = correspondence.game(a.at(when), b.at(when), score)
    for player, new, points in ((a, after[0], score), (b, after[1], 1 - score)):
        _store(db, variant, Rating(player.user_id, new.rating, new.deviation, new.volatility, at,
                                   player.games + 1, player.wins + (points == 1),
                                   player.losses + (points == 0), player.draws + (points == 0.5)))
        db.execute("INSERT INTO rating_changes (variant, user_id, game_id, at, before, after, "
                   "deviation, volatility, score) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [variant, player.user_id, game_id, at, player.rating, new.rating, new.deviation,
                    new.volatility, points])


def _store(db: Database, variant: str, r: Rating) -> None:
    db.execute(f"INSERT OR REPLACE INTO ratings (variant, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, "
               f"?, ?, ?)", [variant, r.user_id, r.rating, r.deviation, r.volatility, r.latest,
                             r.games, r.wins, r.losses, r.draws])


def rerate_from(db: Database, variant: str, game_id: int, since: str | None = None) -> None:
    """Rate again, in the order they ended, the game `game_id` (its result, as saved, changed) and
    every rated game of `variant` that ended after it: each player starts again from their rating
    before it.  The one call for any ruling that changes a finished result: an adjudication on
    appeal (an upheld appeal), a corrected tournament result.  `since`: when the game ended before,
    if the ruling moved its end (its old result was rated there); None: where it is saved."""
    ended = since or db.execute("SELECT finished_at FROM games WHERE id = ?", [game_id]).fetchone()[0]
    key = [ended, ended, game_id]
    later = "variant = ? AND (at > ? OR (at = ? AND game_id >= ?))"
    users = {u for (u,) in db.execute(f"SELECT DISTINCT user_id FROM rating_changes WHERE {later}",
                                      [variant, *key])}
    db.execute(f"DELETE FROM rating_changes WHERE {later}", [variant, *key])
    for user in users:
        _restore(db, variant, user)
    _replay(db, variant, key)


def _restore(db: Database, variant: str, user: str) -> None:
    """`user`'s ratings row as their remaining history leaves it (none: no row)."""
    last = db.execute("SELECT after, deviation, volatility, at FROM rating_changes WHERE variant = ? "
                      "AND user_id = ? ORDER BY at DESC, game_id DESC LIMIT 1", [variant, user]).fetchone()
    if last is None:
        db.execute("DELETE FROM ratings WHERE variant = ? AND user_id = ?", [variant, user])
        return
    games, wins, losses, draws = db.execute(
        "SELECT count(*), total(score = 1), total(score = 0), total(score = 0.5) FROM rating_changes "
        "WHERE variant = ? AND user_id = ?", [variant, user]).fetchone()
    _store(db, variant, Rating(user, *last, games, int(wins), int(losses), int(draws)))


def _replay(db: Database, variant: str, since: list) -> None:
    """Rate the rated games of `variant` that ended at or after `since` (finished_at twice, then
    the game id), in order."""
    for game_id, first, second, winner, at in db.execute(
            f"SELECT id, player1, player2, winner, finished_at FROM games WHERE variant = ? AND {RATED} "
            f"AND (finished_at > ? OR (finished_at = ? AND id >= ?)) ORDER BY finished_at, id",
            [variant, *since]).fetchall():
        score = 1.0 if winner == first else 0.0 if winner == second else 0.5
        record(db, variant, first, second, score, game_id, at)


def replay_all(db: Database) -> None:
    """Every rating from nothing: each variant's rated games in the order they ended."""
    db.execute("DELETE FROM rating_changes")
    db.execute("DELETE FROM ratings")
    for (variant,) in db.execute(f"SELECT DISTINCT variant FROM games WHERE {RATED}").fetchall():
        _replay(db, variant, ["", "", 0])


def to_glicko_2(db: Database) -> None:
    """Migration: from Elo to Glicko-2.  The Elo history is kept in `elo_history` (for reference,
    and `pbm export`); every finished rated game is then replayed, in order, into Glicko-2."""
    for sql in ("CREATE TABLE elo_history AS SELECT variant, user_id, game_id, at, before, after "
                "FROM rating_changes",
                "ALTER TABLE ratings ADD COLUMN deviation REAL NOT NULL DEFAULT 500",
                "ALTER TABLE ratings ADD COLUMN volatility REAL NOT NULL DEFAULT 0.09",
                "ALTER TABLE ratings ADD COLUMN latest TEXT",
                "ALTER TABLE rating_changes ADD COLUMN deviation REAL NOT NULL DEFAULT 500",
                "ALTER TABLE rating_changes ADD COLUMN volatility REAL NOT NULL DEFAULT 0.09",
                "ALTER TABLE rating_changes ADD COLUMN score REAL NOT NULL DEFAULT 0.5",
                "CREATE INDEX rating_changes_order ON rating_changes (variant, at, game_id)",
                # --band=MIN-MAX --sure: only sure ratings (deviation <= SURE) may join
                "ALTER TABLE tournaments ADD COLUMN band_sure INTEGER NOT NULL DEFAULT 0"):
        db.execute(sql)
    replay_all(db)


@dataclass(frozen=True)
class Change:
    """One rated game's change to a player's rating."""
    at: str
    board: int
    opponent: str
    before: float
    after: float


def changes(db: Database, variant: str, user_id: str, limit: int = 20) -> list[Change]:
    """The user's last `limit` rating changes in `variant`, newest first."""
    return [Change(*row) for row in db.execute(
        "SELECT c.at, g.board, CASE WHEN g.player1 = c.user_id THEN g.player2 ELSE g.player1 END, "
        "c.before, c.after FROM rating_changes c JOIN games g ON g.id = c.game_id "
        "WHERE c.variant = ? AND c.user_id = ? ORDER BY c.at DESC, c.game_id DESC LIMIT ?",
        [variant, user_id, limit])]


def standings(db: Database, variant: str, limit: int = 200) -> list[Rating]:
    """The best `limit` ratings of `variant`, best first, sure or not."""
    return [Rating(*row) for row in db.execute(
        f"SELECT {_COLUMNS} FROM ratings WHERE variant = ? ORDER BY rating DESC, user_id LIMIT ?",
        [variant, limit])]


def rating_list(db: Database, variant: str, now: datetime, limit: int = 200) -> list[Rating]:
    """The best `limit` sure ratings of `variant` as of `now` (deviation at most SURE), best
    first: those the rating list shows, as Lichess's leaderboards show only rankable ones."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM ratings WHERE variant = ? AND deviation <= ? "
                      f"ORDER BY rating DESC, user_id", [variant, correspondence.SURE])
    return [r for r in map(lambda row: Rating(*row), rows)
            if correspondence.sure(r.at(now))][:limit]


def require_sure(db: Database, tournament_id: int) -> None:
    """The tournament's band takes sure ratings only (`--sure`)."""
    db.execute("UPDATE tournaments SET band_sure = 1 WHERE id = ?", [tournament_id])


def sure_required(db: Database, tournament_id: int) -> bool:
    return bool(db.execute("SELECT band_sure FROM tournaments WHERE id = ?",
                           [tournament_id]).fetchone()[0])
