"""Addresses confirmed by reply before they get mail (no floods through new accounts).

An address given at signup or by `change address` that is not the sender's own (nor, for `change
address`, already the user's) gets one mail asking it to confirm -- at most one a day -- and no
other mail until it answers: its reply, to the confirmation's Reply-To, comes from that address and
carries a token only the server can make for it (pbm.model.players.tokens.confirmation).  The sender's own
address counts as its own only where its From is taken as genuine (`Incoming.standing`).
"""
from __future__ import annotations

from pbm.commands.base import CommandError, Context, Unanswered
from pbm.i18n import _
from pbm.model.players import accounts, confirmations, guard, tokens
from pbm.outbox import compose


def settle(ctx: Context, user_id: str, given: list[str], known: list[str] = ()) -> list[str]:
    """Of the addresses `given` for `user_id`, those taken at once (the sender's own, and `known`
    ones); the others wait for their confirmation, which is mailed to them."""
    own = {ctx.incoming.standing.lower(), *known} - {""}
    taken = [address for address in given if address in own]
    confirmations.forget(ctx.db, user_id, keep=given)
    for position, address in enumerate(given):
        if address not in own and confirmations.ask(ctx.db, user_id, address, position, ctx.now):
            _ask(ctx, user_id, address)
    return taken


def _ask(ctx: Context, user_id: str, address: str) -> None:
    name = ctx.config.server.name
    token = tokens.confirmation(ctx.config.secret, user_id, address)
    lines = [_("{sender} asked that the mail of {user} on {server} come to this address.").format(
                 sender=ctx.incoming.sender, user=user_id, server=name), "",
             *_("To confirm it, answer this mail (whatever you write). If you did not ask for it,\n"
                "ignore this mail: this server sends nothing more here.").split("\n")]
    ctx.out.append(compose.notify(address, _("{server}: confirm your address for {user}").format(
                                      server=name, user=user_id),
                                  compose.render("account.j2", lines=lines),
                                  reply_to=tokens.reply_address(ctx.config.server.address, token)))


def waiting_lines(ctx: Context, user_id: str) -> list[str]:
    """What an answer says of the user's addresses waiting for their confirmation."""
    waiting = confirmations.waiting(ctx.db, user_id)
    if not waiting:
        return []
    return ["", _("Waiting for confirmation (answer the mail sent there; until then they get no mail):"),
            "", *(f"    {a}" for a in waiting)]


def reply(ctx: Context) -> None:
    """An answer to a confirmation mail: its address becomes the user's."""
    sender = ctx.incoming.sender.lower()
    user = tokens.confirmed_user(ctx.config.secret, ctx.incoming.token, sender)
    if user is None or not confirmations.confirm(ctx.db, user, sender):
        counted = guard.token_subjects(sender)
        ctx.failures += counted
        if guard.locked_until(ctx.db, ctx.config, counted, ctx.now):
            raise Unanswered("too many wrong reply addresses")
        raise CommandError(_("The address you replied to confirms no address waiting for it: the "
                             "confirmation was for another address, was answered already, or was "
                             "replaced. Answer it from the address it was mailed to."))
    ctx.answer(_("{server}: address confirmed for {user}").format(server=ctx.config.server.name, user=user),
               "account.j2", lines=[_("{address} now gets the mail of {user}.").format(address=sender, user=user),
                                    "", _("The mail addresses of {user} are now:").format(user=user), "",
                                    *(f"    {a}" for a in accounts.addresses(ctx.db, user))])
