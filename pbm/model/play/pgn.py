"""A game's record as PGN (the "export format" of the PGN standard, 1994), the form game databases,
pychess-variants and Fairy-Stockfish's tools read: the Seven Tag Roster, then `Variant`, and `FEN` with
`SetUp` when the game did not begin from the standard start; moves in the game's own notation (WXF
for Xiangqi, coordinates otherwise), the players' comments and chat as `{author: text}` after the move
they came with, and the result with its reason as the last comment.
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
    if not standard:
        tags += [("SetUp", "1"), ("FEN", board.start_fen)]
    if board.params:
        tags.append(("VariantOptions", " ".join(_param(k, v) for k, v in sorted(board.params.items()))))
    header = "\n".join(f'[{name} "{escape(value)}"]' for name, value in tags)

    wxf = rules.get_variant(board.variant).notation == "wxf"
    fields = board.start_fen.split()
    black_first = fields[1] == "b"
    first_number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1   # the FEN's
    said: dict[int, list[str]] = {}
    for ply, author, text in comments:
        said.setdefault(ply, []).append(comment(text if author is None else f"{author}: {text}"))
    tokens = said.get(0, [])
    for ply, played in enumerate(board.moves, start=1):
        index = ply - 1 + black_first          # half-moves from a White move
        number = index // 2 + first_number
        if index % 2 == 0:
            tokens.append(f"{number}.")
        elif ply == 1 or said.get(ply - 1):
            tokens.append(f"{number}...")
        tokens.append((played.notation if wxf else played.move) + (glyphs or {}).get(ply, ""))
        tokens += said.get(ply, [])
    if board.reason:
        tokens.append(comment(_ending(board)))
    tokens.append(board.result)
    movetext = textwrap.fill(" ".join(tokens), LINE, break_long_words=False, break_on_hyphens=False)
    return f"{header}\n\n{movetext}\n"


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
