"""Games played out at random, for tests and benchmarks that want positions of every stage."""
from __future__ import annotations

import random

import rules


def random_games(name: str, count: int, rnd: random.Random, longest: int = 150) -> list[rules.Game]:
    """`count` games of `name`, each played out for 10 to `longest` random legal moves (or to its end)."""
    out = []
    for _ in range(count):
        game = rules.Game.new(name)
        for _ in range(rnd.randrange(10, longest)):
            if game.result != "*":
                break
            game.play(rnd.choice(game.legal_moves()))
        out.append(game)
    return out
