"""The record command: the game's record in the format asked for, in the mail and attached (the
record writers, pbm.records, are loaded by this command alone)."""
from __future__ import annotations

from pbm import i18n
from pbm.commands import wording
from pbm.commands.base import CommandError, Context, load_board
from pbm.commands.mails import notify
from pbm.commands.parse import Request
from pbm.i18n import _
from pbm.model.play import games
from pbm.model.play.games import Board
from pbm.outbox import compose
from pbm.records import formats


def record(ctx: Context, req: Request) -> None:
    """The game's record in the format asked for (by default PGN, or the one in the reader's
    notation: `_own_format`), in the mail and attached."""
    board = load_board(ctx, req.game, req.args[0])
    words = list(req.args[1:])
    utf8 = bool(words) and words[-1].lower() in formats.UTF8_WORDS     # `record 101 zh utf-8`
    if utf8:
        words.pop()
    fmt = record_format(board, words[0] if words else _own_format(board))
    lang = i18n.language()
    text = fmt.write(board, games.comments(ctx.db, board, timed=True), ctx.config.server.address, lang)
    name = formats.filename(fmt, board)
    data, charset = formats.encoded(fmt, text, utf8, lang)
    attached = (name, text) if charset == "utf-8" else (name, data, f"{fmt.media}; charset={charset}")
    ctx.out.append(compose.answer(
        ctx.incoming, _("{title} Board {number} record").format(title=board.title, number=board.number),
        compose.render("record.j2", title=board.title, number=board.number, filename=name, pgn=text,
                       form=fmt.key),
        root=notify.thread(ctx, board), attachments=(attached,)))


def _own_format(board: Board) -> str:
    """The record a reader gets without naming one: in their notation where a format has it (Chinese
    PGN for a reader of Chinese notation, `.gib` for one of Korean kibo), else PGN."""
    style = i18n.notation()
    own = "zh" if style.startswith("chinese") else "gib" if style == "korean" else "pgn"
    return own if formats.FORMATS.get(own) in formats.of(board.variant) else "pgn"


def record_format(board: Board, word: str) -> formats.Format:
    """The record format named `word`, if the game has it."""
    fmt = formats.FORMATS.get(word.lower())
    available = formats.of(board.variant)
    if fmt not in available:
        raise CommandError(_("{title} has no record called {word}; its records are: {forms}").format(
            title=wording.name(board.title), word=word, forms=", ".join(f.key for f in available)))
    return fmt
