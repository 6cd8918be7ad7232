"""What a game page costs against its board mail, in the same run: pages per second and board mails
per second for the same games, readers and data.

    python bench/pages.py [--games 10] [--plies 80] [--rounds 3] [--seed 1]

A database (a temporary folder) is filled through real mail bytes (tests/support/postoffice) with
`--games` Xiangqi games of `--plies` random moves, alice and bob reading in English/WXF and in
simplified Chinese. Then, for each game and each of its two players, `--rounds` times:

- a page: pbm.web.pages.page through a read-only connection, from the link's check to the HTML, as
  `pbm web` makes it (the game loaded and replayed, the move list named, the template rendered);
- a board mail: the game loaded and replayed, then pbm.commands.mails.notify.board_mails to that player
  alone (text and HTML parts, the move list and board in their language and notation), then the
  MIME bytes as the outbox renders them (pbm.outbox.render) with the picture's placeholder in place.

Neither counts the picture, which both take from the same cache (the page's is its own request).
Prints JSON: both rates and the page's cost in board mails (the target: at most 2).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

from support.postoffice import PASSWORDS, PostOffice  # noqa: E402

import rules  # noqa: E402
from pbm.commands.mails import notify  # noqa: E402
from pbm.commands.base import Context  # noqa: E402
from pbm.model.play import games  # noqa: E402
from pbm.model.players import accounts, tokens  # noqa: E402
from pbm.model.store import open_reader  # noqa: E402
from pbm.outbox.render import render  # noqa: E402
from pbm.web import pages  # noqa: E402


def fill(post: PostOffice, count: int, plies: int, rnd: random.Random) -> None:
    post.signup("alice", "bob")
    post.send(f"set bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    for number in range(101, 101 + count):
        post.send("xiangqi challenge alice bob")
        game = rules.Game.new("xiangqi")
        while game.ply < plies and game.result == "*":
            move = rnd.choice(game.legal_moves())
            user = ("alice", "bob")[game.ply % 2]
            post.send(f"xiangqi move {number} {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
            game.play(move)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--plies", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        post = PostOffice(pathlib.Path(folder))
        fill(post, args.games, args.plies, random.Random(args.seed))
        config, now = post.config, datetime.now(timezone.utc)
        reader = open_reader(config)
        readers = [(number, user, tokens.page(config.secret, "xiangqi", number, user,
                                              accounts.token_epoch(reader, user)))
                   for number in range(101, 101 + args.games) for user in ("alice", "bob")]

        def page(number: int, user: str, token: str) -> int:
            return len(pages.page(reader, config, pages.reader(reader, config, token), token, None, now))

        def mail(number: int, user: str, token: str) -> int:
            ctx = Context(db=reader, config=config, incoming=None, now=now)
            board = games.load(reader, "xiangqi", number)
            notify.board_mails(ctx, board, board.replay(), actor=None, headline=[], recipients=[user])
            return sum(len(render(config, out, now)[1]) for out in ctx.out)

        rates = {}
        for name, work in (("pages", page), ("board_mails", mail)) * 2:    # the second pass counts
            start = time.perf_counter()
            made = 0
            for _ in range(args.rounds):
                for number, user, token in readers:
                    work(number, user, token)
                    made += 1
            rates[name] = made / (time.perf_counter() - start)
    report = {"games": args.games, "plies": args.plies, "made_each": made,
              "pages_per_second": round(rates["pages"], 1),
              "board_mails_per_second": round(rates["board_mails"], 1),
              "page_costs_board_mails": round(rates["board_mails"] / rates["pages"], 2)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
