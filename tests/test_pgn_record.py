"""Game records as PGN: a whole game of each kind, played by mail to its end, comes back
in its final mails as a PGN attachment that an independent reader (tests/pgn_reader.py, written from
the PGN standard's grammar) accepts and whose moves, replayed through the rules core from its tags,
reach the game's final position; `GAME record BOARD` mails the same through `pbm deliver`."""
from __future__ import annotations

import random

import pytest
from support.pgn_reader import read
from support.postoffice import PASSWORDS, PostOffice, text

import rules
from pbm import catalogue
from pbm.model.play import games

PLIES = 40


def attachment(mail) -> tuple[str, str]:
    [part] = list(mail.iter_attachments())
    return part.get_filename(), part.get_content().replace("\r\n", "\n")


def replay(tags: dict[str, str], moves: list[str]) -> rules.Game:
    params = {}
    for word in tags.get("VariantOptions", "").split():
        name, _, value = word.lstrip("-").partition("=")
        params[name] = value or True
    game = rules.Game.new(tags["Variant"], params or None, tags.get("FEN"))
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize("variant", catalogue.served())
def test_a_whole_game_comes_back_as_pgn_in_its_final_mails(tmp_path, variant):
    rng = random.Random(variant)
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    [new, *_] = post.send(f"{variant} challenge alice bob")
    assert new["Subject"].startswith(f"New {catalogue.title(variant)} Board 101")
    game = rules.Game.new(variant)
    players = ["alice", "bob"]
    said = []
    while game.result == "*" and game.ply < PLIES:
        move = rng.choice(game.legal_moves())
        user = players[game.ply % 2]
        comment = f"Move {game.ply + 1}, {{noted}}" if game.ply % 7 == 0 else ""
        mails = post.send(f"{variant} move 101 {user} {PASSWORDS[user]} {move}", comment,
                          sender=f"{user}@example.org")
        assert not any("error" in m["Subject"].lower() for m in mails), text(mails[0])
        game.play(move)
        if comment:
            said.append((game.ply, f"{user}: {comment}".replace("{", "(").replace("}", ")")))
    if game.result == "*":
        user = players[game.ply % 2]
        mails = post.send(f"{variant} resign 101 {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    final = [m for m in mails if " over: " in m["Subject"]]
    assert {m["To"] for m in final} == {"alice@example.org", "bob@example.org"}
    pgns = {attachment(m) for m in final}
    assert len(pgns) == 1
    [(name, record)] = pgns
    assert name == f"{variant}-101.pgn"

    parsed = read(record)
    assert parsed.tags["White"] == "alice" and parsed.tags["Black"] == "bob"
    assert parsed.tags["Variant"] == variant
    board = games.load(post.db, variant, 101)
    assert parsed.result == board.result != "*"
    assert replay(parsed.tags, parsed.moves).fen() == board.replay().fen()
    assert len(parsed.moves) == board.ply
    stamps = [c for c in parsed.comments if c[1].startswith("[%timestamp ")]
    played = [row[0] for row in post.db.execute("SELECT played_at FROM moves ORDER BY ply")]
    # each move's time after it (docs/decisions.md), the players' comments before
    assert stamps == [(ply, f"[%timestamp {at[:10]}T{at[11:19]}Z]") for ply, at in enumerate(played, 1)]
    assert [c for c in parsed.comments[:-1] if c not in stamps] == said
    assert board.reason in parsed.comments[-1][1]          # the result's reason, last


def test_a_game_from_a_position_carries_its_fen_and_wxf(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    fen = "4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 1"
    post.send(f"xiangqi challenge -fen={fen.replace(' ', '_')} alice bob")
    post.move(101, "alice", "e2f3")
    [mail] = post.send("xiangqi record 101")
    name, record = attachment(mail)
    assert record in text(mail)
    parsed = read(record)
    assert parsed.tags["SetUp"] == "1" and parsed.tags["FEN"] == fen
    assert parsed.moves == ["A5+4"] and parsed.result == "*"


def test_record_through_pbm_deliver(pbm_env):
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.mail(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3", "The central cannon.")
    pbm_env.replies()
    pbm_env.mail("xiangqi record 101", sender="carol@example.org")
    [mail] = pbm_env.replies()
    assert mail["To"] == "carol@example.org" and mail["Subject"] == "Xiangqi Board 101 record"
    name, record = attachment(mail)
    assert name == "xiangqi-101.pgn"
    parsed = read(record)
    assert parsed.moves == ["C2.5"] and parsed.comments[0] == (1, "alice: The central cannon.")
    assert parsed.comments[1][1].startswith("[%timestamp ")
