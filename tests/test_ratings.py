"""Glicko-2 as Glickman's paper works it, Lichess's game-by-game use with time, and the stored
ratings: a random history rated game by game, with results changed by rulings, equals a fresh
replay; the migration from Elo replays an Elo database into the same numbers (real SQLite files)."""
from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from support.postoffice import PostOffice

from pbm.config import load_config
from pbm.model import schema, store
from pbm.model.db import Database, timestamp
from pbm.model.players import ratings
from pbm.ratings import correspondence
from pbm.ratings.glicko2 import CENTRE, SCALE, Glicko, rate

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def test_glickmans_worked_example():
    """"Example of the Glicko-2 system": 1500/200/0.06 against 1400/30, 1550/100, 1700/300 with
    1, 0, 0 and tau 0.5 gives mu' -0.2069, phi' 0.8722, sigma' 0.05999: 1464.06 / 151.52."""
    after = rate(Glicko(1500, 200, 0.06), [(Glicko(1400, 30, 0.06), 1.0), (Glicko(1550, 100, 0.06), 0.0),
                                          (Glicko(1700, 300, 0.06), 0.0)], tau=0.5)
    assert round((after.rating - CENTRE) / SCALE, 4) == -0.2069
    assert round(after.deviation / SCALE, 4) == 0.8722
    assert after.volatility == pytest.approx(0.05999, abs=1e-5) and after.volatility < 0.06
    assert round(-0.2069 * SCALE + CENTRE, 2) == 1464.06 and after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(0.8722 * SCALE, 2) == 151.52 and after.deviation == pytest.approx(151.52, abs=0.01)


def test_a_period_without_games_only_widens_the_deviation():
    assert rate(Glicko(1500, 200, 0.06), [], tau=0.5) == Glicko(1500, pytest.approx(200.2714, abs=1e-4), 0.06)


def test_idle_for_a_year_the_deviation_widens_to_provisional_where_lichess_puts_it():
    """Lichess's constants: "a typical player's RD goes from 60 to 110 in 1 year"; 110 is where ?
    begins.  Volatility 0.06: 60 -> 110.00 after 365 days, provisional from the 365th day on."""
    typical = Glicko(1843, 60, 0.06)
    assert correspondence.shown(correspondence.live(typical, START, START)) == "1843 ±120"
    month = correspondence.live(typical, START, START + timedelta(days=30))
    assert correspondence.shown(month) == "1843 ±131" and correspondence.sure(month)
    sure_days = [correspondence.sure(correspondence.live(typical, START, START + timedelta(days=d)))
                 for d in (86, 87)]
    assert sure_days == [True, False]       # sure (deviation <= 75) for 86 days without a game
    day_before = correspondence.live(typical, START, START + timedelta(days=364))
    year = correspondence.live(typical, START, START + timedelta(days=365))
    assert day_before.deviation < correspondence.PROVISIONAL <= year.deviation
    assert correspondence.shown(day_before) == "1843 ±220" and correspondence.shown(year) == "1843? ±220"
    ten_years = correspondence.live(typical, START, START + timedelta(days=3650))
    assert ten_years.deviation == pytest.approx(297.66, abs=0.01) and ten_years.rating == 1843
    forever = correspondence.live(typical, START, START + timedelta(days=100000))
    assert forever.deviation == correspondence.MAX_DEVIATION     # never less sure than a newcomer


def test_a_game_rates_both_players_against_each_other_as_they_stood_at_its_end():
    sure = Glicko(1800, 50, 0.06)
    new = correspondence.START
    won, lost = correspondence.game(new, sure, 1.0)
    assert won.rating > 1800 and won.deviation < 500 and lost.rating < 1800
    assert lost.deviation >= correspondence.MIN_DEVIATION and 1800 - lost.rating < 10   # a newcomer says little
    assert won.volatility <= correspondence.MAX_VOLATILITY
    floor = correspondence.game(Glicko(400, 45, 0.06), Glicko(2500, 45, 0.06), 0.0)[0]
    assert floor.rating == correspondence.MIN_RATING and floor.deviation == correspondence.MIN_DEVIATION


@pytest.fixture
def office(tmp_path):
    post = PostOffice(tmp_path)
    for user in "abcdefgh":
        post.db.execute("INSERT INTO users (id, password, created_at) VALUES (?, 'x', 'now')", [user])
    return post


def _history(db, seed: int, count: int) -> list[int]:
    """`count` random rated games, two variants, ending at random moments hours to months apart
    (some at the same moment), each rated as it ends, as pbm.commands.games.turns.finish does."""
    rng = random.Random(seed)
    moment, ids = START, []
    for n in range(count):
        variant = rng.choice(["xiangqi", "janggi"])
        first, second = rng.sample("abcdefgh", 2)
        winner = rng.choice([first, second, None])
        moment += timedelta(hours=rng.choice([0, 1, 30, 24 * 40, 24 * 200]))
        at = timestamp(moment)
        cursor = db.execute(
            "INSERT INTO games (variant, board, player1, player2, start_fen, rated, status, winner, "
            "created_at, updated_at, finished_at, accepted_at) VALUES (?, ?, ?, ?, '', 1, 'finished', "
            "?, ?, ?, ?, ?)", [variant, 101 + n, first, second, winner, at, at, at, at])
        ids.append(cursor.lastrowid)
        score = 1.0 if winner == first else 0.0 if winner == second else 0.5
        ratings.record(db, variant, first, second, score, cursor.lastrowid, at)
    return ids


def _stored(db) -> list[tuple]:
    return db.execute("SELECT * FROM ratings ORDER BY variant, user_id").fetchall()


def _history_rows(db) -> list[tuple]:
    return db.execute("SELECT * FROM rating_changes ORDER BY variant, at, game_id, user_id").fetchall()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_history_with_changed_results_equals_a_fresh_replay(office, seed):
    db, rng = office.db, random.Random(seed)
    ids = _history(db, seed, 60)
    for _ in range(3):                      # rulings change results here and there
        game_id = rng.choice(ids)
        variant, first, second, winner = db.execute(
            "SELECT variant, player1, player2, winner FROM games WHERE id = ?", [game_id]).fetchone()
        new = rng.choice([w for w in (first, second, None) if w != winner])
        db.execute("UPDATE games SET winner = ? WHERE id = ?", [new, game_id])
        ratings.rerate_from(db, variant, game_id)
    stored, history = _stored(db), _history_rows(db)
    ratings.replay_all(db)
    assert _stored(db) == stored and _history_rows(db) == history
    assert len(history) == 2 * 60 and {row[0] for row in stored} == {"xiangqi", "janggi"}
    counts = db.execute("SELECT variant, sum(games), sum(wins), sum(losses), sum(draws) FROM ratings "
                        "GROUP BY variant").fetchall()
    assert all(games == wins + losses + draws and wins == losses for _, games, wins, losses, draws in counts)


def test_rerating_from_a_game_leaves_the_games_before_it_alone(office):
    db = office.db
    ids = _history(db, 7, 30)
    before = db.execute("SELECT * FROM rating_changes WHERE game_id < ? ORDER BY game_id, user_id",
                        [ids[15]]).fetchall()
    db.execute("UPDATE games SET winner = NULL WHERE id = ?", [ids[15]])
    variant = db.execute("SELECT variant FROM games WHERE id = ?", [ids[15]]).fetchone()[0]
    ratings.rerate_from(db, variant, ids[15])
    assert db.execute("SELECT * FROM rating_changes WHERE game_id < ? ORDER BY game_id, user_id",
                      [ids[15]]).fetchall() == before
    assert db.execute("SELECT score FROM rating_changes WHERE game_id = ?", [ids[15]]).fetchall() == [(0.5,), (0.5,)]


def test_the_rating_list_shows_sure_ratings_only_as_of_now(office):
    db = office.db
    moment = START
    for n in range(40):                     # a and b play often: their ratings become sure
        moment += timedelta(days=2)
        at = timestamp(moment)
        cursor = db.execute(
            "INSERT INTO games (variant, board, player1, player2, start_fen, rated, status, winner, "
            "created_at, updated_at, finished_at, accepted_at) VALUES ('xiangqi', ?, 'a', 'b', '', 1, "
            "'finished', ?, ?, ?, ?, ?)", [101 + n, "a" if n % 3 else "b", at, at, at, at])
        ratings.record(db, "xiangqi", "a", "b", 0.0 if n % 3 == 0 else 1.0, cursor.lastrowid, at)
    assert [r.user_id for r in ratings.rating_list(db, "xiangqi", moment)] == ["a", "b"]
    assert all(correspondence.sure(r.at(moment)) for r in ratings.rating_list(db, "xiangqi", moment))
    later = moment + timedelta(days=365)    # a year idle: no longer sure, off the list
    assert ratings.rating_list(db, "xiangqi", later) == []
    assert [r.user_id for r in ratings.standings(db, "xiangqi")] == ["a", "b"]


def test_the_migration_replays_an_elo_database_into_glicko_2_and_keeps_the_elo(tmp_path):
    """A real database at the version before the move, with Elo ratings and rated games, comes out
    of the upgrade with the ratings a fresh Glicko-2 replay gives, and its Elo in elo_history."""
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    config = load_config(tmp_path / "pbm.toml")
    config.storage.data_dir.mkdir(mode=0o700)
    before = schema.MIGRATIONS.index(ratings.to_glicko_2)
    conn = sqlite3.connect(config.storage.data_dir / "pbm.sqlite3", isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for number, migration in enumerate(schema.MIGRATIONS[:before], start=1):
        if isinstance(migration, str):
            conn.executescript(migration)
        else:
            migration(Database(conn))
        conn.execute("INSERT INTO schema_version VALUES (?, 't')", [number])
    rng, moment, elo = random.Random(5), START, {}
    for user in "abcdef":
        conn.execute("INSERT INTO users (id, password, created_at) VALUES (?, 'x', 'now')", [user])
    for n in range(40):
        first, second = rng.sample("abcdef", 2)
        winner = rng.choice([first, second, None])
        moment += timedelta(days=rng.choice([0.5, 3, 90]))
        at = timestamp(moment)
        rated = int(n % 10 != 9)            # every tenth game unrated: the replay leaves it out
        cursor = conn.execute(
            "INSERT INTO games (variant, board, player1, player2, start_fen, rated, status, winner, "
            "created_at, updated_at, finished_at, accepted_at) VALUES ('xiangqi', ?, ?, ?, '', ?, "
            "'finished', ?, ?, ?, ?, ?)", [101 + n, first, second, rated, winner, at, at, at, at])
        if rated:
            for user in (first, second):
                old = elo.get(user, 1600.0)
                elo[user] = old + rng.uniform(-16, 16)
                conn.execute("INSERT INTO rating_changes (variant, user_id, game_id, at, before, after) "
                             "VALUES ('xiangqi', ?, ?, ?, ?, ?)", [user, cursor.lastrowid, at, old, elo[user]])
                conn.execute("INSERT OR REPLACE INTO ratings (variant, user_id, rating, games) "
                             "VALUES ('xiangqi', ?, ?, 1)", [user, elo[user]])
    elo_rows = conn.execute("SELECT * FROM rating_changes ORDER BY rowid").fetchall()
    conn.close()
    db = store.open_db(config)
    assert db.execute("SELECT * FROM elo_history ORDER BY rowid").fetchall() == elo_rows
    migrated, history = _stored(db), _history_rows(db)
    assert len(history) == len(elo_rows) == 2 * 36
    assert all(row[3] != 1600.0 for row in history)         # Glicko-2 numbers, not the Elo ones
    ratings.replay_all(db)
    assert _stored(db) == migrated and _history_rows(db) == history
    assert db.execute("SELECT sum(games) FROM ratings").fetchone() == (2 * 36,)
