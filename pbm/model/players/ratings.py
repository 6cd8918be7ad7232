"""Elo ratings, one table per game: start 1600, K = 32.

Provisional (a project decision): a player is provisional until they have finished PROVISIONAL_GAMES
rated games of that game.  Their own rating moves with the full K, so it finds its level quickly;
an established player who meets a provisional one moves by only half K, because the provisional
rating says little yet about how strong the opponent is.  Standings mark provisional ratings.

Rated games are those the rules or a ruling decided (mate, resignation, agreement, time, admin
adjudication or forfeit) and that started from the normal start position; declined and cancelled
games, and games from a -fen position or with -unrated, change nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbm.model.db import Database

START = 1600.0
K = 32.0
PROVISIONAL_GAMES = 20


@dataclass(frozen=True)
class Rating:
    user_id: str
    rating: float
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def expected(rating: float, opponent: float) -> float:
    """The score `rating` is expected to make against `opponent` (0..1)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def get(db: Database, variant: str, user_id: str) -> Rating:
    row = db.execute("SELECT user_id, rating, games, wins, losses, draws FROM ratings "
                     "WHERE variant = ? AND user_id = ?", [variant, user_id]).fetchone()
    return Rating(*row) if row else Rating(user_id, START, 0, 0, 0, 0)


def record(db: Database, variant: str, first: str, second: str, score: float,
           game_id: int, at: str) -> None:
    """Record a rated game between `first` and `second`; `score` is first's (1, 0.5 or 0)."""
    a, b = get(db, variant, first), get(db, variant, second)
    change_a = K * (score - expected(a.rating, b.rating))
    change_b = K * ((1 - score) - expected(b.rating, a.rating))
    if b.provisional and not a.provisional:
        change_a /= 2
    if a.provisional and not b.provisional:
        change_b /= 2
    for player, change, points in ((a, change_a, score), (b, change_b, 1 - score)):
        db.execute(
            "INSERT INTO ratings (variant, user_id, rating, games, wins, losses, draws) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (variant, user_id) DO UPDATE SET "
            "rating = excluded.rating, games = excluded.games, wins = excluded.wins, "
            "losses = excluded.losses, draws = excluded.draws",
            [variant, player.user_id, player.rating + change, player.games + 1,
             player.wins + (points == 1), player.losses + (points == 0), player.draws + (points == 0.5)])
        db.execute("INSERT INTO rating_changes (variant, user_id, game_id, at, before, after) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   [variant, player.user_id, game_id, at, player.rating, player.rating + change])


def withdraw(db: Database, variant: str, game_id: int, scores: dict[str, float]) -> None:
    """Take back what a rated game did to its players' ratings (its result changed on appeal):
    each rating goes back by the change the game made, and the game leaves the counts.  `scores`:
    each player's score in the result withdrawn.  Games rated since keep the changes they made."""
    for user, before, after in db.execute("SELECT user_id, before, after FROM rating_changes "
                                          "WHERE variant = ? AND game_id = ?", [variant, game_id]).fetchall():
        points = scores[user]
        db.execute("UPDATE ratings SET rating = rating - ?, games = games - 1, wins = wins - ?, "
                   "losses = losses - ?, draws = draws - ? WHERE variant = ? AND user_id = ?",
                   [after - before, points == 1, points == 0, points == 0.5, variant, user])
    db.execute("DELETE FROM rating_changes WHERE variant = ? AND game_id = ?", [variant, game_id])


@dataclass(frozen=True)
class Change:
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
        "WHERE c.variant = ? AND c.user_id = ? ORDER BY c.at DESC, c.rowid DESC LIMIT ?",
        [variant, user_id, limit])]


def standings(db: Database, variant: str, limit: int = 200) -> list[Rating]:
    """The best `limit` ratings of `variant`, best first."""
    return [Rating(*row) for row in db.execute(
        "SELECT user_id, rating, games, wins, losses, draws FROM ratings WHERE variant = ? "
        "ORDER BY rating DESC, user_id LIMIT ?", [variant, limit])]

