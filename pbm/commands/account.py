"""Server commands about accounts: signup, change password, change address, signoff.

Decisions (the spec is silent): a user id is never reused, so old game records keep their meaning;
signoff is refused while the user still plays a running game (nothing is lost by accident); mail
goes to the first address given, every listed address is accepted as the user's; addresses are
not confirmed by mail (as in pbmserv).
"""
from __future__ import annotations

from pbm import accounts, games
from pbm.commands.base import CommandError, Context, authenticate
from pbm.commands.parse import Request


def signup(ctx: Context, req: Request) -> None:
    user_word, password, *given = req.args
    user_id = user_word.lower()
    problem = accounts.user_id_problem(user_id)
    if problem:
        raise CommandError(f"{user_word} cannot be a user id: {problem}.")
    if accounts.get(ctx.db, user_id):
        raise CommandError(f"The user id {user_id} is already taken; choose another one.")
    problem = accounts.password_problem(password, user_id)
    if problem:
        raise CommandError(f"That password cannot be used: {problem}.")
    addresses = _addresses(ctx, given or [ctx.inbound.sender])
    accounts.create(ctx.db, user_id, password, addresses, ctx.now)
    ctx.answer(f"Welcome to {ctx.config.server.name}, {user_id}", "welcome.j2", user=user_id,
               addresses=addresses, server=ctx.config.server.address, games=games.served())


def change_password(ctx: Context, req: Request) -> None:
    user_word, old, new = req.args
    user_id = authenticate(ctx, user_word, old)
    problem = accounts.password_problem(new, user_id)
    if problem:
        raise CommandError(f"The new password cannot be used: {problem}.")
    accounts.set_password(ctx.db, user_id, new)
    ctx.answer(f"{ctx.config.server.name}: password changed for {user_id}", "account.j2",
               lines=[f"The password of {user_id} has been changed.",
                      "Use the new one from now on; the old one no longer works."])


def change_address(ctx: Context, req: Request) -> None:
    user_word, password, *given = req.args
    user_id = authenticate(ctx, user_word, password)
    addresses = _addresses(ctx, given)
    accounts.set_addresses(ctx.db, user_id, addresses)
    ctx.answer(f"{ctx.config.server.name}: addresses changed for {user_id}", "account.j2",
               lines=[f"The mail addresses of {user_id} are now:", "",
                      *(f"    {a}" for a in addresses), "",
                      f"Game mail goes to {addresses[0]}; commands are accepted from all of them."])


def signoff(ctx: Context, req: Request) -> None:
    user_word, password = req.args
    user_id = authenticate(ctx, user_word, password)
    running = games.listing(ctx.db, None, [user_id], "active", 50)
    if running:
        names = ", ".join(f"{b.title} Board {b.number}" for b in running)
        raise CommandError(f"{user_id} still plays in {names}. Finish or resign those games first "
                           f"(GAME resign BOARD USERID PASSWORD), then sign off.")
    accounts.close(ctx.db, user_id, ctx.now)
    ctx.answer(f"{ctx.config.server.name}: {user_id} signed off", "account.j2",
               lines=[f"{user_id} has signed off. The account can no longer be used, and no more",
                      "mail will be sent to it. Finished games keep the name in their records."])


def _addresses(ctx: Context, given: list[str]) -> list[str]:
    addresses = [a.strip("<>").lower() for a in given]
    if len(addresses) > accounts.MAX_ADDRESSES:
        raise CommandError(f"At most {accounts.MAX_ADDRESSES} addresses can be registered to a user.")
    own_local, _, own_domain = ctx.config.server.address.lower().rpartition("@")
    for address in addresses:
        problem = accounts.address_problem(address)
        if problem:
            raise CommandError(f"{problem}.")
        local, _, domain = address.rpartition("@")
        if domain == own_domain and local.split("+")[0] == own_local:
            raise CommandError(f"{address} is this server's own address; give your own.")
    return addresses
