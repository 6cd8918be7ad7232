"""The limits on challenges, so that nobody's challenges flood a player's mailbox.

A challenge is taken from any address registered to the challenger, and a From is forged at no
cost: without limits, one mail of 50 `challenge` lines made 50 games and 50 mails to the player
challenged.  Counted from the games table (no counter to keep in step): per mail (the first
`challenges_per_mail` challenges run; the next line is refused once, the rest unanswered), per
challenger and opponent (`challenges_pending_per_player` challenges not yet taken up), per
challenger (`challenges_pending` not yet taken up, `challenges_per_day` made in a day), and the
caps players set on their running games of a game (`GAME limit`, pbm.commands.pending).
"""
from __future__ import annotations

from datetime import timedelta

from pbm import catalogue
from pbm.commands.base import CommandError, Context, Unanswered
from pbm.i18n import ngettext
from pbm.model.db import Database, timestamp

_PENDING = "status = 'active' AND accepted_at IS NULL AND challenger = ?"


def check(ctx: Context, variant: str, challenger: str, opponent: str) -> None:
    """Refuse the challenge (CommandError) if it would pass a limit."""
    server = ctx.config.server
    if ctx.challenges >= server.challenges_per_mail:
        ctx.challenges += 1
        if ctx.challenges > server.challenges_per_mail + 1:
            raise Unanswered("over the challenges of one mail")
        raise CommandError(ngettext(
            "Only the first {n} challenge of a mail is carried out; this one and any after it were not.",
            "Only the first {n} challenges of a mail are carried out; this one and any after it were "
            "not.", server.challenges_per_mail).format(n=server.challenges_per_mail))
    pending_to = ctx.db.execute(f"SELECT count(*) FROM games WHERE {_PENDING} AND ? IN (player1, player2)",
                                [challenger, opponent]).fetchone()[0]
    if pending_to >= server.challenges_pending_per_player:
        raise CommandError(ngettext(
            "{user} already has {n} challenge to {opponent} that {opponent} has not taken up; wait "
            "until {opponent} moves in one of them, or they lapse.",
            "{user} already has {n} challenges to {opponent} that {opponent} has not taken up; wait "
            "until {opponent} moves in one of them, or they lapse.", pending_to).format(
            user=challenger, n=pending_to, opponent=opponent))
    pending = ctx.db.execute(f"SELECT count(*) FROM games WHERE {_PENDING}", [challenger]).fetchone()[0]
    if pending >= server.challenges_pending:
        raise CommandError(ngettext(
            "{user} already has {n} challenge not yet taken up, the most this server allows at once.",
            "{user} already has {n} challenges not yet taken up, the most this server allows at once.",
            pending).format(user=challenger, n=pending))
    for user in (opponent, challenger):
        full = room(ctx.db, variant, user)
        if full:
            raise CommandError(ngettext(
                "{user} plays at most {n} running game of {title} at once (GAME limit), and has "
                "{running}.",
                "{user} plays at most {n} running games of {title} at once (GAME limit), and has "
                "{running}.", full[1]).format(user=user, n=full[1], title=catalogue.title(variant),
                                              running=full[0]))
    today = ctx.db.execute("SELECT count(*) FROM games WHERE challenger = ? AND created_at > ?",
                           [challenger, timestamp(ctx.now - timedelta(days=1))]).fetchone()[0]
    if today >= server.challenges_per_day:
        raise CommandError(ngettext(
            "{user} has made {n} challenge in the last day, the most this server allows; try again "
            "tomorrow.",
            "{user} has made {n} challenges in the last day, the most this server allows; try again "
            "tomorrow.", today).format(user=challenger, n=today))


def room(db: Database, variant: str, user: str) -> tuple[int, int] | None:
    """(running games of `variant`, the cap) where `user` set a cap and has reached it; else None."""
    row = db.execute("SELECT most FROM running_limits WHERE user_id = ? AND variant = ?",
                     [user, variant]).fetchone()
    if row is None:
        return None
    running = db.execute("SELECT count(*) FROM games WHERE status = 'active' AND variant = ? AND "
                         "? IN (player1, player2)", [variant, user]).fetchone()[0]
    return (running, row[0]) if running >= row[0] else None


def started(ctx: Context) -> None:
    """Count a challenge carried out by this mail."""
    ctx.challenges += 1
