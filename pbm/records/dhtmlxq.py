"""Xiangqi as the Chinese forums embed it (`record.dhtmlxq`): a `[DhtmlXQ]` block, each field between
its `[DhtmlXQ_name]` and `[/DhtmlXQ_name]`.  A move is four digits, the from-point then the to-point,
each the file (0-8 from Red's left) and the rank (0-9 from Black's edge): 炮二平五 is `7747`.  A game
from a position of its own carries `binit`: the points of the 32 pieces in a fixed order (Red's
chariot, horse, elephant, advisor, king, advisor, elephant, horse, chariot, two cannons, five
soldiers, then Black's the same), `99` for a piece not on the board.
"""
from __future__ import annotations

import re

import rules
from pbm.model.play.games import Board

ORDER = "RNBAKABNRCCPPPPP"
STANDARD_BINIT = "8979695949392919097717866646260600102030405060708012720323436383"
RESULTS = {"1-0": "红胜", "0-1": "黑胜", "1/2-1/2": "和棋"}
UNKNOWN = "未知"
_MOVE = re.compile(r"^([a-i])(\d+)([a-i])(\d+)$")


def point(file: str, rank: str) -> str:
    """`h3` as `77`: the file from Red's left, the rank from Black's edge."""
    return f"{ord(file) - ord('a')}{10 - int(rank)}"


def binit(fen: str) -> str:
    """The 64 digits of the position's pieces (every Xiangqi position has at most the 32 of the
    start, as pieces never promote); Red's in the order of the standard binit, Black's likewise."""
    found: dict[str, list[str]] = {}
    for row, rank in enumerate(fen.split()[0].split("/")):
        file = 0
        for c in rank:
            if c.isdigit():
                file += int(c)
                continue
            found.setdefault(c, []).append(f"{file}{row}")
            file += 1
    # the standard order lists Red's pieces from Red's right, Black's from Red's left
    for letter in found:
        found[letter].sort(key=lambda p: (p[0], p[1]), reverse=letter.isupper())
    digits = []
    for letter in ORDER + ORDER.lower():
        pieces = found.get(letter, [])
        digits.append(pieces.pop(0) if pieces else "99")
    return "".join(digits)


def record(board: Board, comments: list[tuple[int, str | None, str]]) -> str:
    """The DhtmlXQ block of `board` (a Xiangqi game); `comments` as pbm.model.play.pgn.record takes them
    (a field has no place for a move's mark: a review puts it in the comment)."""
    fields = [("title", f"象棋 Board {board.number}"), ("event", f"象棋 Board {board.number}"),
              ("date", board.created_at[:10]), ("red", board.player1), ("black", board.player2)]
    if rules.Game.new(board.variant).fen() != board.start_fen:
        fields.append(("binit", binit(board.start_fen)))
    moves = []
    for played in board.moves:
        fr_file, fr_rank, to_file, to_rank = _MOVE.match(played.move).groups()
        moves.append(point(fr_file, fr_rank) + point(to_file, to_rank))
    fields.append(("movelist", "".join(moves)))
    fields.append(("result", RESULTS.get(board.result, UNKNOWN)))
    said: dict[int, list[str]] = {}
    for ply, author, text in comments:
        said.setdefault(ply, []).append(text if author is None else f"{author}: {text}")
    fields += [(f"comment{ply}", "||".join(texts)) for ply, texts in sorted(said.items())]
    body = "\n".join(f"[DhtmlXQ_{name}]{_clean(value)}[/DhtmlXQ_{name}]" for name, value in fields)
    return f"[DhtmlXQ]\n{body}\n[/DhtmlXQ]\n"


def _clean(value: str) -> str:
    """A field's text: no brackets (they would close the field) and one line (`||` breaks it)."""
    lines = value.replace("[", "(").replace("]", ")").splitlines()
    return "||".join(" ".join(line.split()) for line in lines if line.strip())
