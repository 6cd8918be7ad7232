"""An appeal that changes a rated result: the ratings become what the new result gives, as if the
ruling's result had never been rated, and the games rated since are rated again; a day after the
appeal window, no appeal is taken."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, flat

from pbm.model.players import ratings as stored_ratings

pytestmark = pytest.mark.post_office("alice", "bob", "carol", "root")

# Horses out and back from the start: the start position stands a third time after eight plies,
# both sides idle: a draw by repetition, rated (a game from the start).
SHUFFLE = ["b1c3", "b10c8", "c3b1", "c8b10"] * 2


def ratings(post) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in post.db.execute(
        "SELECT user_id, round(rating, 3), games, wins, losses, draws FROM ratings WHERE variant = 'xiangqi'")}


def test_an_adjudication_on_appeal_replaces_the_rating_of_the_ruling(post):
    board = post.challenge()
    for ply, move in enumerate(SHUFFLE):
        post.move(board, ("alice", "bob")[ply % 2], move)
    assert post.db.execute("SELECT result, reason FROM games").fetchall() == [("1/2-1/2", "repetition: draw")]
    drawn = ratings(post)
    assert drawn["alice"] == (1500.0, 1, 0, 0, 1) and drawn["bob"] == (1500.0, 1, 0, 0, 1)

    post.send(f"xiangqi appeal {board} alice Sw0rdfish", "Bob repeated on purpose.")
    post.send(f"xiangqi adjudicate {board} root R00t-admin alice bob repeated to save the game",
              sender="root@example.org")
    won = ratings(post)
    assert won["alice"] == (1741.476, 1, 1, 0, 0) and won["bob"] == (1258.524, 1, 0, 1, 0)
    assert post.db.execute("SELECT count(*) FROM rating_changes").fetchone() == (2,)

    [refused] = post.send(f"xiangqi adjudicate {board} root R00t-admin bob", sender="root@example.org")
    assert "is over" in flat(refused)               # the appeal is decided: the game is closed again


def test_an_appeal_comes_within_seven_days(post):
    board = post.challenge()
    for ply, move in enumerate(SHUFFLE):
        post.move(board, ("alice", "bob")[ply % 2], move)
    post.tick(7.1)
    [refused] = post.send(f"xiangqi appeal {board} bob Hunter22", "Too late?", sender="bob@example.org")
    assert "an appeal is made within 7 days of it" in flat(refused)


def test_an_upheld_appeal_rates_again_the_games_rated_since(post):
    """Bob loses a later game to carol; then the draw before it becomes alice's win on appeal: bob
    met carol weaker than he was rated then, so carol's gain is rated again, and the ratings are
    what a fresh replay of the results gives."""
    board = post.challenge()
    for ply, move in enumerate(SHUFFLE):
        post.move(board, ("alice", "bob")[ply % 2], move)
    post.tick(1)
    later = post.challenge("bob", "carol")
    post.move(later, "bob", "h3e3")
    post.move(later, "carol", "h10g8")
    post.send(f"xiangqi resign {later} bob {PASSWORDS['bob']}", sender="bob@example.org")
    gained = post.db.execute("SELECT after - before FROM rating_changes c JOIN games g ON g.id = "
                             "c.game_id WHERE g.board = ? AND user_id = 'carol'", [later]).fetchone()
    post.send(f"xiangqi appeal {board} alice Sw0rdfish", "Bob repeated on purpose.")
    post.send(f"xiangqi adjudicate {board} root R00t-admin alice bob repeated to save the game",
              sender="root@example.org")
    again = post.db.execute("SELECT after - before FROM rating_changes c JOIN games g ON g.id = "
                            "c.game_id WHERE g.board = ? AND user_id = 'carol'", [later]).fetchone()
    assert again[0] < gained[0]                 # bob was weaker when he met carol
    now = ratings(post)
    assert now["alice"][1:] == (1, 1, 0, 0) and now["bob"][1:] == (2, 0, 2, 0) and now["carol"][1:] == (1, 1, 0, 0)
    kept = post.db.execute("SELECT * FROM rating_changes ORDER BY at, game_id, user_id").fetchall()
    stored_ratings.replay_all(post.db)
    assert ratings(post) == now
    assert post.db.execute("SELECT * FROM rating_changes ORDER BY at, game_id, user_id").fetchall() == kept
