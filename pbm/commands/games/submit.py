"""pbmserv's move in two steps: `GAME submit BOARD USERID PASSWORD MOVE` answers with a preview of
the move (nothing is played), and `GAME confirm BOARD USERID PASSWORD` plays it.

Decisions: a move is submitted on one's own turn, as a move is sent; a new submission replaces the
last.  `confirm` plays the submitted move only in the very position it was submitted in (the same
FEN: a take-back and the same number of moves since does not pass); otherwise it is refused, saying
so (the player then looks again and submits anew).  Submitting does not stop the clock.  Both may also be sent
as a reply to a game mail (`submit MOVE`, `confirm`).
"""
from __future__ import annotations

from pbm.commands.games import play, queries
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, board_and_user, require_active, require_player
from pbm.commands.parse import Request
from pbm.i18n import _
from pbm.model.play import submissions
from pbm.model.play.games import Board


def submit(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    propose(ctx, board, user, req.args[3])


def propose(ctx: Context, board: Board, user: str, move: str) -> None:
    """Keep `user`'s move `move` for `confirm`, and show them the board after it."""
    require_player(board, user)
    require_active(board)
    if board.to_move != user:
        raise CommandError(_("It is not your move on {title} Board {number}: it is {user}'s turn, so "
                             "there is nothing to submit yet.").format(title=board.title,
                                                                       number=board.number,
                                                                       user=board.to_move))
    game = board.replay()
    fen = game.fen()
    game, played, outcome = queries.tried(board, game, [move], _("submission"))
    submissions.put(ctx.db, board, user, move, fen)
    v, n = board.variant, board.number
    queries.answer_tried(
        ctx, board, game, _("Preview: nothing was played yet. After your {move}, {outcome}.").format(
            move=played[0], outcome=outcome),
        footer=[_("To play it, reply to this mail with: {command}").format(command="confirm"),
                _("or send: {command}").format(command=f"{v} confirm {n} {user} PASSWORD"),
                _("To play another move, submit or move it instead.")],
        reply_to=notify.reply_address(ctx, board, user))


def confirm(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    carry_out(ctx, board, user)


def carry_out(ctx: Context, board: Board, user: str) -> None:
    """Play `user`'s submitted move, if the game still stands where it was submitted."""
    require_player(board, user)
    require_active(board)
    where = f"{board.title} Board {board.number}"
    kept = submissions.take(ctx.db, board, user)
    if kept is None:
        raise CommandError(_("You have no submitted move on {where} to confirm: submit one first "
                             "({command}).").format(
            where=where, command=f"{board.variant} submit {board.number} {user} PASSWORD MOVE"))
    move, fen = kept
    if board.to_move != user or board.replay().fen() != fen:
        raise CommandError(_("Your submitted move {move} was not played: the position on {where} has "
                             "changed since you submitted it (it is {user}'s turn at move {number}). "
                             "Look at the game again ({command}) and submit or send your move "
                             "anew.").format(move=move, where=where, user=board.to_move,
                                             number=board.ply + 1,
                                             command=f"{board.variant} show {board.number}"))
    play.play(ctx, board, user, move)
