"""What a move's mail says it did: a castling and a promotion are named in the headline, as a
player would say them ("alice castled (e9c9).", "promoted to arrow"), in every mail of the move."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, text

pytestmark = pytest.mark.post_office("alice", "bob")


@pytest.mark.parametrize("fen, move, headline", [
    ("l3k2hb/2renggel/h1f2yfpf/fpN1f4/3Y5/y1YG3PF/FPF1F1F2/1B2R3L/LHEGK1EH1[] b Qq - 29 15", "e9c9",
     "alice castled (e9c9)."),
    ("lhfg3hl/2r1ke1b1/2fgf1f1f/f7Y/Pp1ny2F1/2y6/FPF1e1NPF/1B2GER1L/LHE2KGH1[y] b - - 3 29", "e3d2+",
     "alice played e3d2+, promoted to arrow."),
])
def test_castling_and_promotion_are_named(post, fen, move, headline):
    post.send(f"giqi challenge -fen={fen.replace(' ', '_')} alice bob")
    for mail in post.send(f"giqi move 101 alice {PASSWORDS['alice']} {move}"):
        assert headline in text(mail)


PROMOTING = "lhfg3hl/2r1ke1b1/2fgf1f1f/f7Y/Pp1ny2F1/2y6/FPF1e1NPF/1B2GER1L/LHE2KGH1[y] b - - 3 29"


@pytest.mark.parametrize("lang, headline", [
    ("zh-Hans", "alice 走了 e3d2+，升变为箭。"),
    ("zh-Hant", "alice 走了 e3d2+，升變為箭。"),
    ("ko", "alice 님이 e3d2+를 두고 화살로 승격했습니다."),      # the particles chosen: 를, 로
])
def test_the_promoted_piece_is_named_in_the_readers_language(post, lang, headline):
    post.send(f"set bob {PASSWORDS['bob']} lang={lang}", sender="bob@example.org")
    post.send(f"giqi challenge -fen={PROMOTING.replace(' ', '_')} alice bob")
    [mail] = [m for m in post.send(f"giqi move 101 alice {PASSWORDS['alice']} e3d2+")
              if m["To"] == "bob@example.org"]
    assert headline in text(mail)
