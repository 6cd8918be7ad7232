"""The games this server plays, and every fact about each that is not a rule, in one place.

A game's rules (its title, pieces, board style and notations among them) are the rules core's
variant; what the server adds is here: its help page and where its positions can be analysed.
Adding a game means its variant module in rules/variants/, its help template in mail_templates/
and one entry below.
"""
from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from functools import cache

import rules
from rules.variants import get_variant


@dataclass(frozen=True)
class Game:
    """A game this server may play: its name and what pbm adds to the rules core's variant."""
    name: str                   # the game word of commands, and the rules core's variant name
    help_template: str = "game_help.j2"  # its help page in mail_templates/ (else the generic one)
    analysis: str | None = None  # pychess-variants' name of the game (https://www.pychess.org/variants)

    @property
    def title(self) -> str:
        return get_variant(self.name).title


GAMES = {game.name: game for game in (
    Game("xiangqi", "xiangqi_help.j2", "xiangqi"),
    Game("janggi", "janggi_help.j2", "janggi"),
    Game("padwarqi", "padwarqi_help.j2"),
    Game("giqi", "giqi_help.j2"),
)}


@cache
def served() -> tuple[str, ...]:
    """The games players can play here: in this catalogue and in the rules core."""
    known = set(rules.variant_names())
    return tuple(name for name in GAMES if name in known)


@cache
def title(name: str) -> str:
    """How mails and help pages name the game: `Xiangqi`, `Padwar qi`."""
    return GAMES[name].title


def analysis_link(name: str, fen: str) -> str:
    """Where the position can be analysed (pychess-variants reads Fairy-Stockfish's FEN), or ""."""
    site_name = GAMES[name].analysis
    if site_name is None:
        return ""
    return f"https://www.pychess.org/analysis/{site_name}?{urllib.parse.urlencode({'fen': fen})}"
