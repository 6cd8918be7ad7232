"""Admin commands: adjudicate, forfeit, cancel.

An admin is a user id listed in `[admins] users` of the configuration, authenticated by its
password like anyone else.  Every ruling is stored in the game row (the reason names the admin)
and in the event record with the admin's id and reason, and both players (and the observers) get
the game mail saying so.  Adjudications and forfeits are rated like any result; a cancelled game
has no result and is not rated.  A finished game may be adjudicated again while a player's appeal
against its ruling is open (pbm.commands.games.appeals): the appeal is decided, and the ratings are
rated again from the old result's place on, without it, with the new result rated at the ruling
(pbm.model.players.ratings.rerate_from).
"""
from __future__ import annotations

from collections.abc import Callable

from pbm.commands.games import turns
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, board_and_user, require_active, require_player
from pbm.commands.parse import Request
from pbm.i18n import _, lazy
from pbm.model.play import appeals, games
from pbm.model.players import ratings
from pbm.model.play.games import Board


def _admin(ctx: Context, req: Request, appealed: bool = False) -> tuple[Board, str]:
    """The board and the admin; the game must be running (or, `appealed`, may be under appeal)."""
    board, admin = board_and_user(ctx, req)
    if not is_admin(ctx, admin):
        raise CommandError(_("{user} is not an administrator of this server, so they cannot {verb} "
                             "games.").format(user=admin, verb=req.verb))
    if not (appealed and board.status == games.FINISHED and under_appeal(ctx, board)):
        require_active(board)
    return board, admin


def is_admin(ctx: Context, user: str) -> bool:
    return user in (a.lower() for a in ctx.config.admins.users)


def under_appeal(ctx: Context, board: Board) -> bool:
    return any(a.status == appeals.OPEN for a in appeals.of_game(ctx.db, board))


def _reason(req: Request, words: list[str]) -> str:
    return req.mask(" ".join(words)) or "no reason given"


def adjudicate(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req, appealed=True)
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
        raise CommandError(_("The verdict must be the winner's user id or side, or draw: one of {words}, "
                             "draw.").format(words=", ".join([board.player1, board.player2, *sides])))
    ended = board.finished_at if board.status == games.FINISHED else None
    if ended:                                     # on appeal: the result the ruling gave goes
        appeals.close(ctx.db, board, appeals.DECIDED, admin, ctx.now)
    turns.finish(ctx, board, winner, f"adjudicated by {admin}: {reason}")
    if ended and board.rated and board.accepted:  # rated again from where the old result was on
        games.save(ctx.db, board, ctx.now)
        ratings.rerate_from(ctx.db, board.variant, board.id, since=ended)
    _record(ctx, board, game, admin, "adjudicate", f"{verdict}: {reason}",
            lambda: (_("Administrator {admin} adjudicated {title} Board {number}: a draw. Reason: {why}")
                     if winner is None else
                     _("Administrator {admin} adjudicated {title} Board {number}: won by {user}. Reason: "
                       "{why}")).format(admin=admin, title=board.title, number=board.number, user=winner,
                                        why=reason))


def forfeit(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req)
    loser, reason = req.args[3].lower(), _reason(req, req.args[4:])
    require_player(board, loser)
    turns.finish(ctx, board, board.opponent(loser), f"{loser} forfeited, ruled by {admin}: {reason}")
    _record(ctx, board, board.replay(), admin, "forfeit", f"{loser}: {reason}",
            lambda: _("Administrator {admin} ruled that {user} forfeits {title} Board {number}. Reason: "
                      "{why}").format(admin=admin, user=loser, title=board.title, number=board.number,
                                      why=reason))


def cancel(ctx: Context, req: Request) -> None:
    board, admin = _admin(ctx, req)
    reason = _reason(req, req.args[3:])
    turns.end_without_result(ctx, board, games.CANCELLED, f"by {admin}: {reason}")
    _record(ctx, board, board.replay(), admin, "cancel", reason,
            lambda: _("Administrator {admin} cancelled {title} Board {number}; it has no result and is "
                      "not rated. Reason: {why}").format(admin=admin, title=board.title,
                                                         number=board.number, why=reason))


def _record(ctx: Context, board: Board, game, admin: str, kind: str, detail: str,
            line: Callable[[], str]) -> None:
    """Save the ruling and tell everyone (`line()`, written in each reader's language)."""
    games.add_event(ctx.db, board, kind, admin, detail, ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, game, actor=admin, headline=[lazy(line)])
