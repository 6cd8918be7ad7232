"""The daily digest (`set USERID PASSWORD digest=daily`): once a day, at the first timer run at or
after `[clocks] digest_hour` (UTC), each player who asked for it gets one mail listing every game
waiting for their move, the least time first (a game without a time limit last), with the
opponent, the time left, the last move in the reader's notation and the game's reply address.
Nothing is sent to a player nobody waits for.
"""
from __future__ import annotations

from datetime import timedelta

from pbm.commands.mails import notify
from pbm.commands.timing import away, clocks
from pbm.commands.base import Context
from pbm.i18n import _, ngettext
from pbm.model.play import games
from pbm.model.players import accounts
from pbm.model.server import heartbeats
from pbm.model.db import parse_timestamp
from pbm.model.play.games import Board
from pbm.outbox import compose

NO_LIMIT = timedelta.max


def due(ctx: Context) -> None:
    """Send the day's digests, if this is the first timer run of the day at or after the hour."""
    start = ctx.now.replace(hour=ctx.config.clocks.digest_hour, minute=0, second=0, microsecond=0)
    if ctx.now < start:
        return
    last = heartbeats.beat(ctx.db, "digest", ctx.now)
    if last is not None and last >= start:
        return
    for user, in ctx.db.execute("SELECT id FROM users WHERE closed_at IS NULL AND "
                                "json_extract(preferences, '$.digest') = 'daily' ORDER BY id").fetchall():
        _send(ctx, user)


def _left(ctx: Context, board: Board) -> timedelta:
    """The time the player to move has left (a stopped clock: what it holds)."""
    if board.deadline:
        return max(parse_timestamp(board.deadline) - ctx.now, timedelta(0))
    return NO_LIMIT if board.paused_left is None else timedelta(seconds=board.paused_left)


def _send(ctx: Context, user: str) -> None:
    waiting = sorted(games.listing(ctx.db, None, [user], "next", away.ALL_GAMES),
                     key=lambda board: (_left(ctx, board), board.variant, board.number))
    address = accounts.mail_address(ctx.db, user)
    if not waiting or not address:
        return
    with notify.speaking_to(ctx, user):
        lines = [ngettext("{n} game is waiting for your move, the least time first:",
                          "{n} games are waiting for your move, the least time first:",
                          len(waiting)).format(n=len(waiting))]
        for board in waiting:
            lines += ["", *_entry(ctx, board, user)]
        ctx.out.append(compose.subscribed(compose.notify(address, ngettext(
            "{server}: your move in {n} game", "{server}: your move in {n} games", len(waiting)).format(
            server=ctx.config.server.name, n=len(waiting)), compose.render("account.j2", lines=lines)), user))


def _entry(ctx: Context, board: Board, user: str) -> list[str]:
    """A game of the digest, in the reader's language and notation."""
    left = _left(ctx, board)
    game = games.get(ctx.db, board.id).replay()
    head = _("{title} Board {number}, against {opponent}").format(
        title=board.title, number=board.number, opponent=board.opponent(user))
    time = (_("no time limit") if left == NO_LIMIT else
            _("{time} left (stopped)").format(time=clocks.span(left)) if not board.deadline else
            _("{time} left").format(time=clocks.span(left)))
    lines = [_("{game}: {time}").format(game=head, time=time)]     # a Chinese colon in Chinese
    if game.moves:
        named = notify.played(game.moves[-1], game.notation[-1], notify.last_move_names(game))
        lines.append("  " + _("Last move: {move}").format(move=named))
    lines.append("  " + _("Reply with your move to: {address}").format(
        address=notify.reply_address(ctx, board, user)))
    return lines
