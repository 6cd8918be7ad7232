"""`GAME review BOARD [USERID PASSWORD]`, and the reviews of `review=on` players queued when a game
ends: never for a game in play.

Decisions (the issue is silent):
- Every game's record and page are public, so any registered user may ask for a finished game's
  review (a player or an observer); without USERID PASSWORD the asker is the user whose registered
  address sent the command (vouched for by the MTA where it checks), and the review goes to that
  user's address.  A stranger's mail therefore costs nobody anything but a review they never asked
  for at most once a game.
- Asking for a review already done mails it at once (no engine runs); asking again for one already
  asked repeats nothing but the answer.  `per_day` counts the requests of the last 24 hours, a
  player's review=on games included (those past the limit are simply not queued).
"""
from __future__ import annotations

from datetime import timedelta

from pbm.commands import wording
from pbm.commands.base import CommandError, Context, authenticate, describe_end, load_board
from pbm.commands.parse import Request
from pbm.i18n import _, ngettext
from pbm.model.play import games, reviews
from pbm.model.play.games import Board
from pbm.model.players import accounts
from pbm.review import report
from pbm.review.engine import Settings
from pbm.review.search import supported

DAY = timedelta(days=1)


def review(ctx: Context, req: Request) -> None:
    board = load_board(ctx, req.game, req.args[0])
    if len(req.args) == 2:
        raise CommandError(_("Give both your user id and your password after the board number, or "
                             "neither (then the review goes to the user of your address)."))
    user = authenticate(ctx, req.args[1], req.args[2]) if len(req.args) == 3 else _sender(ctx)
    refusal = refused(ctx, board)
    if refusal:
        raise CommandError(refusal)
    known = reviews.load(ctx.db, board.id)
    asked_before = known is not None and user in reviews.askers(ctx.db, known.id)
    if not asked_before:
        _within_limit(ctx, user)
    settings = Settings.of(ctx.config)
    assert settings is not None             # refused() said so otherwise
    done, _new = reviews.ask(ctx.db, board.id, user, settings.nodes, ctx.now)
    if done.status == "done" and done.evaluations is not None:
        ctx.out.append(report.mail(ctx.db, ctx.config, report.work_out(board, done.evaluations), user,
                                   ctx.incoming))
        reviews.mailed(ctx.db, done.id, user, ctx.now)
        return
    wait = reviews.wait_seconds(ctx.db, ctx.config.review.workers)
    lines = [_("The engine's review of {title} Board {number} is queued; it will be mailed to {user}, "
               "in about {time}.").format(title=board.title, number=board.number, user=user,
                                          time=duration(wait))]
    if wait > DAY.total_seconds():
        lines.append(_("The queue holds more than a day's work for this server's engine."))
    ctx.answer(_("{title} Board {number}: review queued").format(title=board.title, number=board.number),
               "account.j2", lines=lines)


def refused(ctx: Context, board: Board) -> str | None:
    """Why `board` cannot be reviewed now (translated), or None."""
    if board.status == games.ACTIVE:
        return _("{title} Board {number} is still being played. An engine's review is made only after "
                 "the end, never during play; ask again once the game is over.").format(
            title=board.title, number=board.number)
    if board.status != games.FINISHED:
        return _("{title} Board {number} ended without a result ({how}): there is nothing to review.").format(
            title=board.title, number=board.number, how=describe_end(board))
    if not supported(board.variant, board.params):
        return _("The engine cannot be given the rules of {title}, so it cannot review its games; "
                 "reviews are made of Xiangqi and Janggi games.").format(title=wording.name(board.title))
    if Settings.of(ctx.config) is None:
        return _("Reviews are off on this server: it has no engine installed.")
    return None


def duration(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    if minutes < 120:
        return ngettext("{n} minute", "{n} minutes", minutes).format(n=minutes)
    hours = round(minutes / 60)
    return ngettext("{n} hour", "{n} hours", hours).format(n=hours)


def _sender(ctx: Context) -> str:
    user = accounts.user_of_address(ctx.db, ctx.incoming.standing) if ctx.incoming else None
    if user is None:
        raise CommandError(_("Your address is not registered here: give your user id and password after "
                             "the board number."))
    ctx.actor = user
    return user


def _within_limit(ctx: Context, user: str) -> None:
    most = ctx.config.review.per_day
    if reviews.asked_since(ctx.db, user, ctx.now - DAY) >= most:
        raise CommandError(ngettext("{user} has asked for {n} review in the last 24 hours, the most a "
                                    "day here; ask again tomorrow.",
                                    "{user} has asked for {n} reviews in the last 24 hours, the most "
                                    "a day here; ask again tomorrow.", most).format(user=user, n=most))


def game_ended(ctx: Context, board: Board) -> None:
    """Queue the review of a game just finished for each player who chose review=on (within their
    daily limit), if the engine can review it."""
    if board.status != games.FINISHED or not supported(board.variant, board.params):
        return
    settings = Settings.of(ctx.config)
    if settings is None:
        return
    for user in board.players:
        if accounts.preferences(ctx.db, user)["review"] != "on":
            continue
        if reviews.asked_since(ctx.db, user, ctx.now - DAY) < ctx.config.review.per_day:
            reviews.ask(ctx.db, board.id, user, settings.nodes, ctx.now)

