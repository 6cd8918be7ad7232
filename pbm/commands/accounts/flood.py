"""The limits on challenges, so that nobody's challenges flood a player's mailbox.

A challenge is taken from any address registered to the challenger, and a From is forged at no
cost: without limits, one mail of 50 `challenge` lines made 50 games and 50 mails to the player
challenged.  Counted from the games table (no counter to keep in step): per mail (the first
`challenges_per_mail` challenges run; the next line is refused once, the rest unanswered), per
challenger and opponent (`challenges_pending_per_player` challenges not yet taken up), per
challenger (`challenges_pending` not yet taken up, `challenges_per_day` made in a day), per
challenged player from everyone together (`challenges_waiting`: many throwaway accounts; only
challenges from players who have finished no game with them count, and those who have always get
through, so that throwaway accounts cannot shut a player's door to the opponents they know), and the
caps players set on their running games of a game (`GAME limit`, pbm.commands.games.pending).
"""
from __future__ import annotations

from datetime import timedelta

from pbm import catalogue
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, Unanswered
from pbm.i18n import _, ngettext
from pbm.model.players import accounts, refusals
from pbm.model.db import Database, timestamp
from pbm.outbox import compose

_PENDING = "status = 'active' AND accepted_at IS NULL AND challenger = ?"
# a finished game of the players of games row `g` (with the index on player1, status)
_KNOWN = ("EXISTS (SELECT 1 FROM games f WHERE f.status = 'finished' AND ((f.player1 = g.player1 AND "
          "f.player2 = g.player2) OR (f.player1 = g.player2 AND f.player2 = g.player1)))")


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
    _waiting_for(ctx, challenger, opponent)
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


def _waiting_for(ctx: Context, challenger: str, opponent: str) -> None:
    """Refuse a challenge past `[server] challenges_waiting` waiting for `opponent`, from everyone
    together (throwaway accounts get around the per-challenger limits); the opponent is told of the
    refusals once a day, so that the refusals themselves make no flood."""
    most = ctx.config.server.challenges_waiting
    known = ctx.db.execute(f"SELECT {_KNOWN} FROM (SELECT ? AS player1, ? AS player2) g",
                           [challenger, opponent]).fetchone()[0]
    if known:
        return
    waiting = ctx.db.execute(f"SELECT count(*) FROM games g WHERE status = 'active' AND accepted_at IS NULL "
                             f"AND challenger != ? AND ? IN (player1, player2) AND NOT {_KNOWN}",
                             [opponent, opponent]).fetchone()[0]
    if waiting < most:
        return
    ctx.regardless.append(lambda: _refused(ctx, challenger, opponent, waiting))
    raise CommandError(ngettext(
        "{opponent} has {n} challenge waiting to be taken up or declined from a player they have "
        "not finished a game with, the most this server lets wait for one player; try again once "
        "{opponent} has answered it. Players who have finished a game with {opponent} are not "
        "refused.",
        "{opponent} has {n} challenges waiting to be taken up or declined from players they have "
        "not finished a game with, the most this server lets wait for one player; try again once "
        "{opponent} has answered them. Players who have finished a game with {opponent} are not "
        "refused.", waiting).format(opponent=opponent, n=waiting))


def _refused(ctx: Context, challenger: str, opponent: str, waiting: int) -> None:
    tell = not refusals.refused(ctx.db, "challenge", opponent, ctx.now - timedelta(days=1), told=True)
    refusals.refuse(ctx.db, "challenge", opponent, challenger, ctx.now, told=tell)
    address = accounts.mail_address(ctx.db, opponent)
    if not tell or address is None:
        return
    name = ctx.config.server.name
    with notify.speaking_to(ctx, opponent):
        lines = [*ngettext(
            "A challenge to you from {user} was refused: {n} challenge is already waiting\n"
            "for your answer, the most this server lets wait. Take it up by moving, or\n"
            "decline it (GAME reject USERID PASSWORD declines all of a game's).",
            "A challenge to you from {user} was refused: {n} challenges are already waiting\n"
            "for your answer, the most this server lets wait. Take them up by moving, or\n"
            "decline them (GAME reject USERID PASSWORD declines all of a game's).", waiting).format(
            user=challenger, n=waiting).split("\n"), "",
            *_("Until then further challenges to you are refused; you are told of them at most\n"
               "once a day.").split("\n")]
        ctx.out.append(compose.notify(address, _("{server}: challenges to you refused").format(server=name),
                                      compose.render("account.j2", lines=lines)))


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
