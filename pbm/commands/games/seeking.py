"""Finding an opponent: `GAME seek` posts an open challenge, `GAME seeks` lists them, and
`GAME accept-seek N` takes one, which starts the game at once.

Decisions: the seeker plays the side that moves first (Red, Cho, White), as the first player of a
challenge does; taking a seek is the taker's consent and posting it the seeker's, so the game counts
from its start (clocks running, rated unless the seek said unrated or gave a -fen); a seek is
checked when it is posted (its -parameters and --options as in a challenge), so that taking it
cannot fail on them.
"""
from __future__ import annotations

import rules
from pbm import catalogue
from pbm.commands import wording
from pbm.commands.games import play, turns
from pbm.commands.mails import notify
from pbm.commands.base import MAX_LISTED, CommandError, Context, authenticate
from pbm.commands.parse import Request
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import games, seeks
from pbm.model.players import accounts
from pbm.outbox import compose


def seek(ctx: Context, req: Request) -> None:
    variant, title = req.game, catalogue.title(req.game)
    user = authenticate(ctx, req.args[0], req.args[1])
    rating = req.args[2].lower() if len(req.args) > 2 else "rated"
    if rating not in ("rated", "unrated"):
        raise CommandError(_("The last word of a seek is rated or unrated (rated if left out)."))
    options = turns.parse_options(req.options, ctx.config.server.min_timeout_days)
    params = dict(req.params)
    play.opening(variant, params)           # refuse now what would refuse the game later
    posted, replaced = seeks.post(ctx.db, variant, user, params, options, rating == "rated", ctx.now,
                                  ctx.config.server.seek_days)
    lines = [_("Your {title} seek {n} ({terms}) is open until {time} UTC.").format(
                 title=wording.name(title), n=posted.id, terms=seeks.terms(posted), time=posted.expires_at[:16])
             + (" " + _("It replaces your earlier one.") if replaced else ""),
             _("Anyone can take it with: {command}").format(
                 command=f"{variant} accept-seek {posted.id} USERID PASSWORD"),
             _("You will play {side}, and the game counts from its start.").format(
                 side=wording.name(rules.get_variant(variant).side_names[0]))]
    ctx.answer(_("{title} seek {n}").format(title=wording.name(title), n=posted.id), "note.j2", lines=lines)


def accept_seek(ctx: Context, req: Request) -> None:
    variant = req.game
    try:
        found = seeks.get(ctx.db, int(req.args[0]))
    except ValueError:
        found = None
    if found is None or found.variant != variant or not seeks.is_open(ctx.db, found, ctx.now):
        raise CommandError(_("There is no open {title} seek {n}. Send \"{command}\" for the list.").format(
            title=wording.name(catalogue.title(variant)), n=req.args[0], command=f"{variant} seeks"))
    user = authenticate(ctx, req.args[1], req.args[2])
    if user == found.user_id:
        raise CommandError(_("That is your own seek; to change it, post a new one (it replaces it)."))
    seeker = accounts.get(ctx.db, found.user_id)
    if seeker is None or seeker.closed:
        raise CommandError(_("{user} has signed off; that seek is gone.").format(user=found.user_id))
    board, game, chosen = play.start(ctx, variant, found.params, found.options, found.user_id, user,
                                     found.user_id, expires_at=None, rated=found.rated)
    seeks.take(ctx.db, found, board.id)
    games.add_event(ctx.db, board, "seek-taken", user, seeks.terms(found), ctx.now)
    play.announce(ctx, board, game, user, [lazy(lambda: _(
        "{user} has taken {seeker}'s seek {n}: the game counts from now.").format(
        user=user, seeker=found.user_id, n=found.id))], chosen)


def list_seeks(ctx: Context, req: Request) -> None:
    title = catalogue.title(req.game)
    found = seeks.open_seeks(ctx.db, req.game, ctx.now, MAX_LISTED)
    lines = [f"{s.id:>5}  {s.user_id:<16} {seeks.terms(s)}  " + _("(until {date})").format(
        date=s.expires_at[:10]) for s in found]
    if not lines:
        lines = [_("No open {title} seeks. Post one: {command}").format(
            title=wording.name(title), command=f"{req.game} seek USERID PASSWORD [-params] [--options] [rated|unrated]")]
    else:
        lines.append(_("Take one with: {command}").format(command=f"{req.game} accept-seek N USERID PASSWORD"))
    ctx.answer(_("{title} seeks").format(title=wording.name(title)), "games.j2",
               heading=_("Open {title} seeks").format(title=wording.name(title)), lines=lines,
               capped=len(found) == MAX_LISTED)


def expire(ctx: Context, limit: int) -> None:
    """Withdraw the seeks nobody took in time, and tell their players (the timers)."""
    for lapsed in seeks.lapse(ctx.db, ctx.now, limit):
        address = accounts.mail_address(ctx.db, lapsed.user_id)
        if address:
            title, days = catalogue.title(lapsed.variant), ctx.config.server.seek_days
            with notify.speaking_to(ctx, lapsed.user_id):
                ctx.out.append(compose.notify(
                    address, _("{title} seek {n} expired").format(title=wording.name(title), n=lapsed.id),
                    compose.render("note.j2", lines=[ngettext(
                        "Nobody took your {title} seek {n} ({terms}) in {days} day, so it is withdrawn. "
                        "Post a new one to try again.",
                        "Nobody took your {title} seek {n} ({terms}) in {days} days, so it is withdrawn. "
                        "Post a new one to try again.", days).format(
                        title=wording.name(title), n=lapsed.id, terms=seeks.terms(lapsed), days=compose.number(days))])))


