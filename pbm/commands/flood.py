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
from pbm.model.db import Database, timestamp

_PENDING = "status = 'active' AND accepted_at IS NULL AND challenger = ?"


def check(ctx: Context, variant: str, challenger: str, opponent: str) -> None:
    """Refuse the challenge (CommandError) if it would pass a limit."""
    server = ctx.config.server
    if ctx.challenges >= server.challenges_per_mail:
        ctx.challenges += 1
        if ctx.challenges > server.challenges_per_mail + 1:
            raise Unanswered("over the challenges of one mail")
        raise CommandError(f"Only the first {_count(server.challenges_per_mail, 'challenge')} of a "
                           f"mail are carried out; this one and any after it were not.")
    pending_to = ctx.db.execute(f"SELECT count(*) FROM games WHERE {_PENDING} AND ? IN (player1, player2)",
                                [challenger, opponent]).fetchone()[0]
    if pending_to >= server.challenges_pending_per_player:
        raise CommandError(f"{challenger} already has {_count(pending_to, 'challenge')} to {opponent} "
                           f"that {opponent} has not taken up; wait until {opponent} moves in one "
                           f"of them, or they lapse.")
    pending = ctx.db.execute(f"SELECT count(*) FROM games WHERE {_PENDING}", [challenger]).fetchone()[0]
    if pending >= server.challenges_pending:
        raise CommandError(f"{challenger} already has {_count(pending, 'challenge')} not yet taken "
                           f"up, the most this server allows at once.")
    for user in (opponent, challenger):
        full = room(ctx.db, variant, user)
        if full:
            raise CommandError(f"{user} plays at most {_count(full[1], 'running game')} of "
                               f"{catalogue.title(variant)} at once (GAME limit), and has "
                               f"{full[0]}.")
    today = ctx.db.execute("SELECT count(*) FROM games WHERE challenger = ? AND created_at > ?",
                           [challenger, timestamp(ctx.now - timedelta(days=1))]).fetchone()[0]
    if today >= server.challenges_per_day:
        raise CommandError(f"{challenger} has made {_count(today, 'challenge')} in the last day, the "
                           f"most this server allows; try again tomorrow.")


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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
