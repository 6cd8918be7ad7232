"""pbmserv's answers to every pending challenge at once, and a cap on one's running games.

`GAME accept USERID PASSWORD` takes up every challenge of this game made to USERID that they have
not taken up yet (each game counts from now, as after a first move); `GAME reject USERID PASSWORD`
declines them all (each game is deleted, as a resignation before the first move does).  `GAME limit
USERID PASSWORD N|off` caps USERID's running games of this game: a challenge that would pass the
cap, theirs or the challenger's, is refused (`pbm.commands.accounts.flood.room`).  The caps live in the
`running_limits` table.
"""
from __future__ import annotations

from pbm import catalogue
from pbm.commands.games import play, turns
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, authenticate
from pbm.commands.parse import Request
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import games
from pbm.model.play.games import Board

MOST = 1000         # the highest cap one may set


def accept(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    for board in _pending(ctx, req.game, user, _(
            "No challenge of {title} to {user} is waiting to be taken up, so there was nothing to "
            "take up.")):
        turns.consent(ctx, board, user)
        if board.to_move == user:
            turns.schedule(ctx, board)      # their clock starts now
        games.add_event(ctx.db, board, "accept", user, "", ctx.now)
        games.save(ctx.db, board, ctx.now)
        notify.board_mails(ctx, board, board.replay(), actor=user, headline=[lazy(
            lambda board=board: _("{user} has taken up {challenger}'s challenge: the game counts from "
                                  "now.").format(user=user, challenger=board.challenger))])


def reject(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    for board in _pending(ctx, req.game, user, _(
            "No challenge of {title} to {user} is waiting to be taken up, so there was nothing to "
            "decline.")):
        play.act(ctx, board, user, "resign")


def limit(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    word, title = req.args[2].lower(), catalogue.title(req.game)
    if word != "off" and not (word.isdigit() and 1 <= int(word) <= MOST):
        raise CommandError(_("{word} is not a limit: give a number of games from 1 to {most}, or off "
                             "for none.").format(word=req.args[2], most=MOST))
    ctx.db.execute("DELETE FROM running_limits WHERE user_id = ? AND variant = ?", [user, req.game])
    if word != "off":
        ctx.db.execute("INSERT INTO running_limits (user_id, variant, most) VALUES (?, ?, ?)",
                       [user, req.game, int(word)])
    line = (_("{user} now takes no limit on running games of {title}.").format(user=user, title=title)
            if word == "off" else
            ngettext("{user} now plays at most {n} running game of {title} at once: challenges past "
                     "that are refused.",
                     "{user} now plays at most {n} running games of {title} at once: challenges past "
                     "that are refused.", int(word)).format(user=user, n=int(word), title=title))
    ctx.answer(_("{server}: limit of {user}").format(server=ctx.config.server.name, user=user),
               "note.j2", lines=[line])


def _pending(ctx: Context, variant: str, user: str, none: str) -> list[Board]:
    """The challenges of `variant` waiting for `user`; `none` says there are none."""
    numbers = [row[0] for row in ctx.db.execute(
        "SELECT board FROM games WHERE status = 'active' AND accepted_at IS NULL AND variant = ? AND "
        "challenger != ? AND ? IN (player1, player2) ORDER BY board", [variant, user, user])]
    if not numbers:
        raise CommandError(none.format(title=catalogue.title(variant), user=user))
    return [games.load(ctx.db, variant, number) for number in numbers]
