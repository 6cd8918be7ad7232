"""`GAME replay BOARD N` for every reader: each notation a game has, in each language, with N below
the moves played (the reader's move names were once made from the shorter, replayed game, an internal
error for every reader of Chinese or Korean notation)."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, text

import rules
from pbm import i18n

pytestmark = pytest.mark.post_office()

GAMES = {"xiangqi": ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1"],
         "janggi": ["a4a5", "a7a6", "b1c3", "i7i6", "i1i2"]}
NOTATIONS = {"xiangqi": ["both", "coordinates", "wxf", "chinese", "chinese-traditional"],
             "janggi": ["both", "coordinates", "korean"]}


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant", "ko"])
@pytest.mark.parametrize("variant, notation", [(v, n) for v, styles in NOTATIONS.items() for n in styles])
def test_replay_to_an_earlier_move_in_every_notation_and_language(post, variant, notation, lang):
    post.signup("alice", "bob")
    post.send(f"{variant} challenge alice bob")
    for ply, move in enumerate(GAMES[variant]):
        user = ("alice", "bob")[ply % 2]
        post.send(f"{variant} move 101 {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    # chosen after the moves, as a `pbm deliver` process starts: no move list made for it yet
    post.send(f"set alice {PASSWORDS['alice']} lang={lang} notation={notation}")
    game = rules.Game.new(variant)
    for move in GAMES[variant][:2]:
        game.play(move)
    for upto in (2, 0, len(GAMES[variant])):
        [page] = post.send(f"{variant} replay 101 {upto}")
        with i18n.speaking(lang):       # pbmserv's subject, its last word in the reader's language
            assert page["Subject"].endswith(f" {i18n._('preview')}"), text(page)
        assert rules.Game.new(variant).fen() in text(page) or upto != 0
        assert game.fen() in text(page) or upto != 2
    [tried] = post.send(f"{variant} replay 101 2 {GAMES[variant][2]}")
    game.play(GAMES[variant][2])
    assert game.fen() in text(tried)
    # and the move list of the next game mail still names every move in alice's notation
    whole = rules.Game.new(variant)
    for move in [*GAMES[variant], "a10a9"]:
        whole.play(move)
    mails = post.send(f"{variant} move 101 bob {PASSWORDS['bob']} a10a9", sender="bob@example.org")
    [mail] = [m for m in mails if m["To"] == "alice@example.org"]
    if notation in whole.variant.notations:
        names = whole.name_moves(notation)
        assert all(f"{ply:>3}. {name}" in text(mail) for ply, name in enumerate(names, start=1)), text(mail)
