"""Server commands about accounts: signup, change password, change address, signoff, and the
forgotten password (password reset, password set).

Decisions (the spec is silent): a user id is never reused, so old game records keep their meaning;
signoff is refused while the user still plays a running game (nothing is lost by accident); mail
goes to the first address given, every listed address is accepted as the user's; addresses are
not confirmed by mail (as in pbmserv).  A forgotten password: `password reset USERID` mails a
one-time code (an hour, single use) to every registered address of the user, at most one per 15
minutes -- a request inside that time is recorded but not answered, so that nobody can fill a
player's mailbox; `password set USERID CODE NEW` then sets the new password, a wrong code counting
as a wrong password for the guessing limit (pbm.model.guard).  Any new password revokes the user's reply
tokens, and every registered address is told that it changed.
"""
from __future__ import annotations

from pbm import catalogue
from pbm.commands.base import CommandError, Context, Unanswered, authenticate, prove
from pbm.commands.parse import Request
from pbm.model import accounts, games, guard, tournaments
from pbm.outbox import compose


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
    addresses = _addresses(ctx, given or [ctx.incoming.sender])
    accounts.create(ctx.db, user_id, password, addresses, ctx.now)
    ctx.answer(f"Welcome to {ctx.config.server.name}, {user_id}", "welcome.j2", user=user_id,
               addresses=addresses, server=ctx.config.server.address, games=catalogue.served())


def change_password(ctx: Context, req: Request) -> None:
    user_word, old, new = req.args
    _set_password(ctx, authenticate(ctx, user_word, old), new)


def reset_password(ctx: Context, req: Request) -> None:
    user = accounts.get(ctx.db, req.args[0])
    if user is None or user.closed:
        raise CommandError("The user id in your command is not registered here (send \"help "
                           "password reset\" for the form of the command).")
    req.safe.add(req.args[0])
    code = accounts.issue_reset_code(ctx.db, ctx.config.secret, user.id, ctx.now)
    if code is None:
        raise Unanswered("a code was mailed less than 15 minutes ago")
    mailed = accounts.addresses(ctx.db, user.id)
    name = ctx.config.server.name
    for address in mailed:
        ctx.out.append(compose.notify(address, f"{name}: password reset code for {user.id}", compose.render(
            "account.j2", lines=[f"Someone (you, we hope) asked to reset the password of {user.id}.",
                                 "To set a new password, send the subject", "",
                                 f"    password set {user.id} {code} NEWPASSWORD", "",
                                 "within an hour; the code works once. If you did not ask for it, "
                                 "ignore this mail:", "your password stays as it is."])))
    if ctx.incoming.sender.lower() not in mailed:
        ctx.answer(f"{name}: password reset for {user.id}", "account.j2",
                   lines=[f"A one-time code was mailed to the registered addresses of {user.id}.",
                          "It works for an hour."])


def set_forgotten_password(ctx: Context, req: Request) -> None:
    user_word, code, new = req.args
    user_id = prove(ctx, user_word, lambda user: accounts.use_reset_code(
        ctx.db, ctx.config.secret, user.id, code, ctx.now),
        "That is not the code mailed for {user}, or it has expired (a code works once, for an "
        "hour). Ask for a new one with: password reset {user}", guard.reset_subjects)
    _set_password(ctx, user_id, new, still=" The code still works.")


def _set_password(ctx: Context, user_id: str, new: str, still: str = "") -> None:
    """Set `user_id`'s password to `new` if it can be one; confirm to the sender, and tell every
    registered address (the change may not be theirs)."""
    problem = accounts.password_problem(new, user_id)
    if problem:
        raise CommandError(f"The new password cannot be used: {problem}.{still}")
    accounts.set_password(ctx.db, user_id, new)
    name = ctx.config.server.name
    lines = [f"The password of {user_id} has been changed.",
             "Use the new one from now on; the old one no longer works, nor do the reply",
             "addresses of game mails sent before: answer newer ones."]
    ctx.answer(f"{name}: password changed for {user_id}", "account.j2", lines=lines)
    for address in accounts.addresses(ctx.db, user_id):
        if address != ctx.incoming.sender.lower():
            ctx.out.append(compose.notify(address, f"{name}: password changed for {user_id}",
                                          compose.render("account.j2", lines=lines)))


def set_preferences(ctx: Context, req: Request) -> None:
    user_word, password, *settings = req.args
    user_id = authenticate(ctx, user_word, password)
    chosen = {}
    for setting in settings:
        name, _, value = setting.lower().partition("=")
        values = accounts.PREFERENCES.get(name)
        if values is None or value not in values:
            known = "; ".join(f"{n}={'|'.join(v)}" for n, v in accounts.PREFERENCES.items())
            raise CommandError(f"{setting} is not a preference. The preferences are: {known} "
                               f"(the first value of each is the default).")
        chosen[name] = value
    accounts.set_preferences(ctx.db, user_id, chosen)
    now = accounts.preferences(ctx.db, user_id)
    ctx.answer(f"{ctx.config.server.name}: preferences of {user_id}", "account.j2",
               lines=[f"The preferences of {user_id} are now:", "",
                      *(f"    {name}={value}" for name, value in now.items()), "",
                      "board: own draws each board from your side, red from the first player's,",
                      "off leaves it out, svg draws it from your side in SVG (not for Gmail",
                      "or Outlook); notation: the move list in coordinates, WXF or both."])


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
    entered = tournaments.entered(ctx.db, user_id)
    if entered:
        names = ", ".join(f"{catalogue.title(t.variant)} {t.name}" for t in entered)
        them = "them" if len(entered) > 1 else "it"
        raise CommandError(f"{user_id} is entered in the tournament{'s' * (len(entered) > 1)} "
                           f"{names}. Leave {them} first (GAME tournament leave NAME USERID "
                           f"PASSWORD), then sign off.")
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
