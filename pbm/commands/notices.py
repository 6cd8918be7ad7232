"""`GAME notify USERID PASSWORD [BOARD...|off]`: end-of-game notices, as pbmserv's notify gives them.

Decisions: with BOARDs, one short mail when each of those running games ends -- anyone's game, for
those who want the result without a mail after every move (subscribe gives that); without a
BOARD, such a notice at the end of every game of that kind the user plays, now or later (the
one mail to look for: it names the result in its subject and carries the PGN record); `off`
drops all of one's notices in that game kind.  A notice asked for a game is forgotten once sent.
The answer lists the notices one has.
"""
from __future__ import annotations

from pbm.commands.base import (
    CommandError,
    Context,
    authenticate,
    board_number,
    describe_end,
    find_board,
)
from pbm.commands.parse import Request
from pbm.model import accounts, games, notices
from pbm.model.games import Board
from pbm.outbox import compose

MAX_BOARDS = 20


def notify(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    variant = req.game
    words = req.args[2:]
    lines = []
    if [w.lower() for w in words] == ["off"]:
        dropped = notices.remove(ctx.db, user, variant)
        lines.append(f"Your end-of-game notices are off ({dropped} dropped).")
    elif not words:
        notices.add(ctx.db, user, variant, notices.EVERY_GAME)
        lines.append("You will get a notice when any game of yours ends.")
    else:
        if len(words) > MAX_BOARDS:
            raise CommandError(f"Ask for at most {MAX_BOARDS} boards at a time.")
        for word in words:
            number, ply = board_number(word)
            board = find_board(ctx, variant, number)
            if board.status != games.ACTIVE or ply is not None:
                raise CommandError(f"{board.title} Board {board.number} is over, or {word} is not a "
                                   f"board number alone: notices are for running games, such as "
                                   f"{board.number}.")
            notices.add(ctx.db, user, variant, board.id)
        lines.append(f"You will get a notice when {'each of ' * (len(words) > 1)}{', '.join(words)} ends.")
    wanted = notices.wanted(ctx.db, user, variant)
    boards = [games.get(ctx.db, game_id).number for game_id in wanted if game_id != notices.EVERY_GAME]
    if notices.EVERY_GAME in wanted:
        lines.append("Notices now: every game of yours" + (f", and boards {', '.join(map(str, boards))}."
                                                           if boards else "."))
    elif boards:
        lines.append(f"Notices now: boards {', '.join(map(str, boards))}.")
    lines.append(f"To stop them all: {variant} notify {user} PASSWORD off")
    ctx.answer(f"{ctx.config.server.name}: notices", "note.j2", lines=lines)


def send(ctx: Context, board: Board, subject: str, root: str, attachments: tuple) -> None:
    """The notices of `board`'s end (sent with its final mails: their `subject`, thread and PGN)."""
    lines = [f"{board.title} Board {board.number} ({board.player1} - {board.player2}) is over: "
             f"{describe_end(board)}.",
             f"The record is attached. For the final board, send: {board.variant} show {board.number}"]
    for user in notices.readers(ctx.db, board):
        address = accounts.mail_address(ctx.db, user)
        if address:
            ctx.out.append(compose.notify(address, subject, compose.render("note.j2", lines=lines), root=root,
                                          kind="note", attachments=attachments))
