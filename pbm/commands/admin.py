"""Admin commands: adjudicate, forfeit, cancel.

An admin is a user id listed in `[admins] users` of the configuration, authenticated by its
password like anyone else.  Every ruling is stored in the game row (the reason names the admin)
and in the event record with the admin's id and reason, and both players (and the observers) get
the game mail saying so.  Adjudications and forfeits are rated like any result; a cancelled game
has no result and is not rated.
"""
from __future__ import annotations

from pbm.commands import notify, turns
from pbm.commands.base import (
    CommandError,
    Context,
    authenticate,
    load_board,
    require_active,
    require_player,
)
from pbm.commands.parse import Request
from pbm.model import games
from pbm.model.games import Board


def _admin(ctx: Context, req: Request) -> tuple[Board, str]:
    board = load_board(ctx, req.game, req.args[0])
    admin = authenticate(ctx, req.args[1], req.args[2])
    if admin not in (a.lower() for a in ctx.config.admins.users):
        raise CommandError(f"{admin} is not an administrator of this server, so they cannot "
                           f"{req.verb} games.")
    require_active(board)
    return board, admin


def _reason(req: Request, words: list[str]) -> str:
    return req.mask(" ".join(words)) or "no reason given"


def adjudicate(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req)
    verdict, reason = req.args[3].lower(), _reason(req, req.args[4:])
    game = board.replay()
    sides = [name.lower() for name in game.side_names]
    if verdict == "draw":
        winner = None
    elif verdict in board.players:
        winner = verdict
    elif verdict in sides:
        winner = board.player_of("wb"[sides.index(verdict)])
    else:
        raise CommandError(f"The verdict must be the winner's user id or side, or draw: one of "
                           f"{board.player1}, {board.player2}, {', '.join(sides)}, draw.")
    turns.finish(ctx, board, winner, f"adjudicated by {admin}: {reason}")
    _record(ctx, board, game, admin, "adjudicate", f"{verdict}: {reason}",
            f"Administrator {admin} adjudicated {board.title} Board {board.number}: "
            f"{'a draw' if winner is None else f'won by {winner}'}. Reason: {reason}")


def forfeit(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req)
    loser, reason = req.args[3].lower(), _reason(req, req.args[4:])
    require_player(board, loser)
    turns.finish(ctx, board, board.opponent(loser), f"{loser} forfeited, ruled by {admin}: {reason}")
    _record(ctx, board, board.replay(), admin, "forfeit", f"{loser}: {reason}",
            f"Administrator {admin} ruled that {loser} forfeits {board.title} Board {board.number}. "
            f"Reason: {reason}")


def cancel(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req)
    reason = _reason(req, req.args[3:])
    turns.end_without_result(ctx, board, games.CANCELLED, f"by {admin}: {reason}")
    _record(ctx, board, board.replay(), admin, "cancel", reason,
            f"Administrator {admin} cancelled {board.title} Board {board.number}; it has no result "
            f"and is not rated. Reason: {reason}")


def _record(ctx: Context, board: Board, game, admin: str, kind: str, detail: str, line: str) -> None:
    games.add_event(ctx.db, board, kind, admin, detail, ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, game, actor=admin, headline=[line])
