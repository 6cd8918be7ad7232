"""Xiangqi as xqbase keeps it (`record.zh.pgn`): PGN's tag pairs with `Red`/`Black` for the players
and the moves in Chinese notation, one move pair a line, Black's file numbers in full-width digits
(`1. 炮二平五 马８进７`), in simplified characters or, for a zh-Hant reader, traditional ones; served in
GBK (Big5 for traditional) as xqbase's files are, UTF-8 on request.
"""
from __future__ import annotations

from collections.abc import Mapping

import rules
from pbm.model.play.games import Board
from pbm.model.play.pgn import comment, escape
from pbm.records.layout import fill

# xqbase's programs read GBK bytes, traditional ones Big5 (ElephantEye writes them so); GB18030 is
# GBK byte for byte wherever GBK has the character, and has every other one (a player's name).
ENCODING = "gb18030"
TRADITIONAL_ENCODING = "big5"
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
EVENT = "象棋 Board {number}"


def record(board: Board, comments: list[tuple[int, str | None, str]], site: str, traditional: bool = False,
           glyphs: Mapping[int, str] | None = None) -> str:
    """The Chinese PGN of `board` (a Xiangqi game); `comments` and `glyphs` as pbm.model.play.pgn.record
    takes them."""
    game = board.replay()
    tags = [("Game", "Chinese Chess"), ("Event", EVENT.format(number=board.number)), ("Site", site),
            ("Date", board.created_at[:10].replace("-", ".")), ("Round", "-"),
            ("Red", board.player1), ("Black", board.player2), ("Result", board.result)]
    if rules.Game.new(board.variant).fen() != board.start_fen:
        tags.append(("FEN", board.start_fen))
    lines = [f'[{name} "{escape(value)}"]' for name, value in tags]
    lines.append("")
    said: dict[int, list[str]] = {}
    for ply, author, text in comments:
        said.setdefault(ply, []).append(comment(text if author is None else f"{author}: {text}"))
    if said.get(0):
        lines += fill(" ".join(said[0]).split())
    names = [name.translate(FULL_WIDTH) for name in game.name_moves(
        "chinese-traditional" if traditional else "chinese", record=True)]
    black_first = board.start_fen.split()[1] == "b"
    line: list[str] = []
    for ply, name in enumerate(names, start=1):
        index = ply - 1 + black_first
        if index % 2 == 0:
            line.append(f"{index // 2 + 1}.")
        elif not line:
            line.append(f"{index // 2 + 1}. ...")
        line.append(name + (glyphs or {}).get(ply, ""))
        line += said.get(ply, [])
        if index % 2 == 1 or said.get(ply):
            lines += fill(" ".join(line).split())
            line = []
    if line:
        lines += fill(" ".join(line).split())
    lines.append(board.result)
    return "\n".join(lines) + "\n"
