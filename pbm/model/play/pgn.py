"""A game's record as PGN (the "export format" of the PGN standard, 1994), the form game databases,
pychess-variants and Fairy-Stockfish's tools read: the Seven Tag Roster, then `Variant`, and `FEN` with
`SetUp` when the game did not begin from the standard start; moves in the game's own notation (WXF
for Xiangqi, with `[Format "WXF"]` and written as ElephantEye and vschess write and read it:
rules.notation.wxf_record; coordinates otherwise), the players' comments and chat as
`{author: text}` after the move they came with, and the result with its reason as the last comment.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping

import rules
from pbm import catalogue
from pbm.model.play import banks
from pbm.model.play.banks import DAY
from pbm.model.play.games import Board

LINE = 78                               # under the standard's 80, and a mail line's 78


def filename(board: Board) -> str:
    return f"{board.variant}-{board.number}.pgn"


def record(board: Board, comments: list[tuple[int, str | None, str]], site: str,
           glyphs: Mapping[int, str] | None = None) -> str:
    """The PGN of `board`; `comments` are (moves played then, author, text) in order (no author: the
    text alone, as an engine review's); `glyphs` marks moves by ply (`?!`, `?`, `??`: a review's)."""
    standard = rules.Game.new(board.variant).fen() == board.start_fen     # Janggi's setups are not
    tags = [("Event", f"{catalogue.title(board.variant)} Board {board.number}"), ("Site", site),
            ("Date", board.created_at[:10].replace("-", ".")), ("Round", "-"),
            ("White", board.player1), ("Black", board.player2), ("Result", board.result),
            ("Variant", board.variant), ("TimeControl", time_control(board.options))]
    wxf = rules.get_variant(board.variant).notation == "wxf"
    if wxf:
        tags.append(("Format", "WXF"))     # xqbase's readers take moves as WXF only with this tag
    if not standard:
        tags += [("SetUp", "1"), ("FEN", board.start_fen)]
    if board.params:
        tags.append(("VariantOptions", " ".join(_param(k, v) for k, v in sorted(board.params.items()))))
    header = "\n".join(f'[{name} "{escape(value)}"]' for name, value in tags)

    names = board.replay().name_moves("wxf", record=True) if wxf else [p.move for p in board.moves]
    fields = board.start_fen.split()
    black_first = fields[1] == "b"
    first_number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1   # the FEN's
    said: dict[int, list[str]] = {}
    lines: dict[int, list[str]] = {}      # after move N: the variations of a shared note's lines
    for ply, author, text in comments:
        said.setdefault(ply, []).append(comment(text if author is None else f"{author}: {text}"))
        if getattr(text, "line", ()) and ply < board.ply:
            lines.setdefault(ply + 1, []).append(_variation(board, ply, text.line, wxf, first_number,
                                                            black_first))
    tokens = said.get(0, [])
    for ply in range(1, len(board.moves) + 1):
        index = ply - 1 + black_first          # half-moves from a White move
        number = index // 2 + first_number
        if index % 2 == 0:
            tokens.append(f"{number}.")
        elif ply == 1 or said.get(ply - 1) or lines.get(ply - 1):    # its number again after these
            tokens.append(f"{number}...")
        tokens.append(names[ply - 1] + (glyphs or {}).get(ply, ""))
        tokens += lines.get(ply, [])
        tokens += said.get(ply, [])
    if board.reason:
        tokens.append(comment(_ending(board)))
    tokens.append(board.result)
    movetext = textwrap.fill(" ".join(tokens), LINE, break_long_words=False, break_on_hyphens=False)
    return f"{header}\n\n{movetext}\n"


def _variation(board: Board, ply: int, line: tuple[str, ...], wxf: bool, first_number: int,
               black_first: bool) -> str:
    """A saved line (coordinates) from the position after `ply` moves as a PGN variation (RAV), an
    alternative to move `ply` + 1: `(2... H8+7 3. H2+3)`; the moves that cannot be played there (a
    line an undo took back) are left out."""
    game = board.replay().at(ply)
    for move in line:
        try:
            game.play(move)
        except rules.RulesError:
            break
    played = game.ply - ply
    names = game.name_moves("wxf", record=True)[ply:] if wxf else game.moves[ply:]   # as the record's
    tokens = []
    for i, name in enumerate(names[:played]):
        index = ply + i + black_first
        if index % 2 == 0 or not tokens:
            tokens.append(f"{index // 2 + first_number}{'.' if index % 2 == 0 else '...'}")
        tokens.append(name)
    return "(" + " ".join(tokens) + ")"


def time_control(options: dict) -> str:
    """The time limit in PGN's TimeControl forms, in seconds, as correspondence servers write it:
    `864000+86400` for a bank of 10 days and a day a move (--clock=10+1), `1/259200` for 3 days per
    move (--timeout=3), `-` for none."""
    clock = banks.terms(options)
    if clock is not None:
        return f"{round(clock[0] * DAY)}+{round(clock[1] * DAY)}"
    if options.get("timeout"):
        return f"1/{round(options['timeout'] * DAY)}"
    return "-"


def _ending(board: Board) -> str:
    if board.result == "1/2-1/2":
        return f"drawn: {board.reason}"
    if board.winner:
        return f"{board.winner} won: {board.reason}"
    return board.reason or ""


def _param(name: str, value: str | bool) -> str:
    return f"-{name}" if value is True else f"-{name}={value}"


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def comment(text: str) -> str:
    """A brace comment: it cannot hold "}" (nor, for some readers, "{"); one line reads best."""
    return "{" + " ".join(text.replace("{", "(").replace("}", ")").split()) + "}"
