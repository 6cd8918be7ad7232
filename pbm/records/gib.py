"""Janggi as Korean programs keep it (`record.gib`): tag pairs in Korean (`[초대국자 "..."]`) in the order
of the programs' own files (a tag pbm cannot fill says 미상, as theirs do), then the
moves numbered one a ply in kibo (`1. 79졸78 2. 41병42`, rules.notation_korean: the row from Han's
edge, 0 for Cho's back row, then the file from Cho's left), a capture followed by the piece taken
(`74상42병`), a check by `장군`, a pass as `한수쉼`; a blank line ends the game, lines end in LF, as
in the real files (tests/data/gib).  The programs read it in CP949.
"""
from __future__ import annotations

import rules
from pbm.model.play.games import Board
from pbm.records import parsing
from pbm.records.layout import fill
from rules import notation, notation_korean
from rules.fen import parse_fen
from rules.tables import compile_variant

ENCODING = "cp949"
UNKNOWN = "미상"                          # what the programs write for a tag they do not know
CHECK = "장군"
# How the result is said (the side, then how it was won): the Korean programs' words.
WON = (("checkmate", "완승"), ("resigned", "기권승"), ("did not move", "시간승"),
       ("time", "시간승"), ("on points", "점수승"))
DECIDED = "판정승"                        # a ruling, a repetition, bikjang on points
DRAW = "무승부"


def record(board: Board, site: str) -> str:
    """The `.gib` text of `board` (a Janggi game); encode it in ENCODING for the programs."""
    tags = [("대회명", f"장기 Board {board.number}"), ("회전", UNKNOWN), ("대국일자", board.created_at[:10]),
            ("대국장소", site), ("초대국자", board.player1), ("한대국자", board.player2)]
    ranks = board.start_fen.split()[0].split("/")
    cho, han = arrangement(ranks[-1]), arrangement(ranks[0])
    if parsing.setup(han, cho) == board.start_fen:      # a plain setup, however the game began
        tags += [("초차림", cho), ("한차림", han)]
    else:
        tags.append(("FEN", board.start_fen))     # a position of its own: no setup names it
    tags += [("제한시간", UNKNOWN), ("총수", str(len(board.moves)))]
    if board.result != "*":
        tags.append(("대국결과", result(board)))
    lines = [f'[{name} "{value.replace(chr(34), chr(39))}"]' for name, value in tags]
    kibo = moves(board)
    numbered = [f"{ply}. {text}" for ply, text in enumerate(kibo, start=1)]
    lines.append("")
    lines += fill(numbered)
    return "\n".join(lines) + "\n\n"       # the readers store a game when a blank line ends it


def arrangement(rank: str) -> str:
    """A back rank's horses and elephants as the programs name them: files b, c, g and h read from
    Cho's left for both sides (`상마상마` is an elephant on b), unlike pbm's names, which read each
    side from its own seat.  `rank` is the rank as a FEN writes it."""
    files = "".join("." * int(c) if c.isdigit() else c for c in rank).lower()
    return "".join({"n": "마", "b": "상"}.get(files[i], "?") for i in (1, 2, 6, 7))


def result(board: Board) -> str:
    """`초 완승`, `한 시간승`, `무승부`: the winner's side and how."""
    if board.result == "1/2-1/2":
        return DRAW
    side = "초" if board.result == "1-0" else "한"
    reason = board.reason or ""
    how = next((word for key, word in WON if key in reason), DECIDED)
    return f"{side} {how}"


def moves(board: Board) -> list[str]:
    """Each ply in kibo, with the piece taken and `장군` where the move gives check."""
    variant = rules.get_variant(board.variant, board.params or None)
    pos = parse_fen(compile_variant(variant), board.start_fen)
    out = []
    for played in board.moves:
        move = notation.parse_move(pos, played.move)
        text = notation_korean.write(pos, move)
        taken = pos.board[move[1]] if move[0] != move[1] else 0
        if taken:
            text += notation_korean.HANGUL[pos.t.piece_type(taken).role][taken & 1]
        pos.push(move)
        if pos.in_check():
            text += CHECK
        out.append(text)
    return out
