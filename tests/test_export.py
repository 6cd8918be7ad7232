"""`pbm export`: an operator's copy of the games, moves, players and ratings (CSV or JSON, read by
sqlite-utils) and every finished game as PGN, through the real command on a real database."""
from __future__ import annotations

import csv
import json

import pytest
from support.pgn_reader import read
from support.processes import PbmEnv

PASSWORDS = {"alice": "Sw0rdfish-alice", "bob": "Sw0rdfish-bobby"}


def play_two_games(env: PbmEnv) -> None:
    for user, password in PASSWORDS.items():
        env.mail(f"signup {user} {password}", sender=f"{user}@example.org")
    env.mail("xiangqi challenge alice bob")
    env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
    env.mail(f"xiangqi move 101 bob {PASSWORDS['bob']} h10g8", sender="bob@example.org")
    env.mail(f"xiangqi resign 101 alice {PASSWORDS['alice']}")           # 101 finished, rated
    env.mail("janggi challenge bob alice", sender="bob@example.org")       # 101 of janggi: running


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_writes_the_tables_and_a_pgn_per_finished_game(pbm_env: PbmEnv, tmp_path, fmt):
    play_two_games(pbm_env)
    dest = tmp_path / "export"
    result = pbm_env.run("export", str(dest), "--format", fmt)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split(", ")[:2] == ["games 2", "moves 2"]

    def rows(name: str) -> list[dict]:
        with (dest / f"{name}.{fmt}").open(encoding="utf-8") as f:
            return list(csv.DictReader(f)) if fmt == "csv" else json.load(f)

    games = rows("games")
    assert [(g["variant"], str(g["board"]), g["status"]) for g in games] == [
        ("xiangqi", "101", "finished"), ("janggi", "101", "active")]
    assert [(m["move"], str(m["ply"])) for m in rows("moves")] == [("h3e3", "1"), ("h10g8", "2")]
    players = rows("players")
    assert [p["id"] for p in players] == ["alice", "bob"] and "password" not in players[0]
    assert {r["user_id"] for r in rows("ratings")} == {"alice", "bob"}
    won = {r["user_id"]: r for r in rows("rating_changes")}
    assert float(won["bob"]["score"]) == 1.0 and float(won["bob"]["after"]) > 1500
    assert float(won["bob"]["deviation"]) < 500 and rows("elo_history") == []
    everything = "".join(path.read_text(encoding="utf-8") for path in dest.rglob("*") if path.is_file())
    assert "scrypt$" not in everything and not any(p in everything for p in PASSWORDS.values())

    [pgn] = (dest / "pgn").iterdir()
    assert pgn.name == "xiangqi-101.pgn"
    game = read(pgn.read_text(encoding="utf-8"))
    assert game.tags["Result"] == "0-1" and game.tags["White"] == "alice" and len(game.moves) == 2


def test_export_to_another_pgn_folder(pbm_env: PbmEnv, tmp_path):
    play_two_games(pbm_env)
    result = pbm_env.run("export", str(tmp_path / "tables"), "--pgn", str(tmp_path / "games"))
    assert result.returncode == 0, result.stderr
    assert [p.name for p in (tmp_path / "games").iterdir()] == ["xiangqi-101.pgn"]
    assert not (tmp_path / "tables" / "pgn").exists()
