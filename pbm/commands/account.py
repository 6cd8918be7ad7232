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

from pbm import catalogue, i18n
from pbm.commands import notify, wording
from pbm.commands.base import CommandError, Context, Unanswered, authenticate, prove
from pbm.commands.parse import Request
from pbm.i18n import N_, _, ngettext
from pbm.model import accounts, games, guard, tournaments
from pbm.outbox import compose

# A new account in Chinese or Korean reads the moves in its own notation (in the games that have
# it: Xiangqi for Chinese, Janggi for Korean; the others as `both`) unless it asks otherwise.
NOTATION_OF = {"zh-Hans": "chinese", "zh-Hant": "chinese-traditional", "ko": "korean"}


def signup(ctx: Context, req: Request) -> None:
    user_word, password, *words = req.args
    given = [word for word in words if "=" not in word]
    chosen = _chosen([word for word in words if "=" in word])
    user_id = user_word.lower()
    problem = accounts.user_id_problem(user_id)
    if problem:
        raise CommandError(_("{word} cannot be a user id: {why}.").format(word=user_word,
                                                                            why=wording.said_in(problem)))
    if accounts.get(ctx.db, user_id):
        raise CommandError(_("The user id {user} is already taken; choose another one.").format(user=user_id))
    problem = accounts.password_problem(password, user_id)
    if problem:
        raise CommandError(_("That password cannot be used: {why}.").format(why=wording.said_in(problem)))
    addresses = _addresses(ctx, given or [ctx.incoming.sender])
    accounts.create(ctx.db, user_id, password, addresses, ctx.now)
    told = i18n.from_header(ctx.incoming.language)
    if "lang" not in chosen and told:
        chosen["lang"] = told
    if "notation" not in chosen and chosen.get("lang") in NOTATION_OF:   # a reader's own notation
        chosen["notation"] = NOTATION_OF[chosen["lang"]]
    if chosen:
        accounts.set_preferences(ctx.db, user_id, chosen)
    prefs = accounts.preferences(ctx.db, user_id)
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        ctx.answer(_("Welcome to {server}, {user}").format(server=ctx.config.server.name, user=user_id),
                   "welcome.j2", user=user_id, addresses=addresses, server=ctx.config.server.address,
                   games=catalogue.served())


def change_password(ctx: Context, req: Request) -> None:
    user_word, old, new = req.args
    _set_password(ctx, authenticate(ctx, user_word, old), new)


def reset_password(ctx: Context, req: Request) -> None:
    user = accounts.get(ctx.db, req.args[0])
    if user is None or user.closed:
        raise CommandError(_("The user id in your command is not registered here (send \"help "
                             "password reset\" for the form of the command)."))
    req.safe.add(req.args[0])
    code = accounts.issue_reset_code(ctx.db, ctx.config.secret, user.id, ctx.now)
    if code is None:
        raise Unanswered("a code was mailed less than 15 minutes ago")
    mailed = accounts.addresses(ctx.db, user.id)
    name = ctx.config.server.name
    with notify.speaking_to(ctx, user.id):          # the code goes to the user, in their language
        for address in mailed:
            ctx.out.append(compose.notify(
                address, _("{server}: password reset code for {user}").format(server=name, user=user.id),
                compose.render("account.j2", lines=[
                    _("Someone (you, we hope) asked to reset the password of {user}.").format(user=user.id),
                    _("To set a new password, send the subject"), "",
                    f"    password set {user.id} {code} NEWPASSWORD", "",
                    *_("within an hour; the code works once. If you did not ask for it, ignore this mail:\n"
                       "your password stays as it is.").split("\n")])))
    if ctx.incoming.sender.lower() not in mailed:
        ctx.answer(_("{server}: password reset for {user}").format(server=name, user=user.id), "account.j2",
                   lines=[_("A one-time code was mailed to the registered addresses of {user}.").format(
                       user=user.id), _("It works for an hour.")])


def set_forgotten_password(ctx: Context, req: Request) -> None:
    user_word, code, new = req.args
    user_id = prove(ctx, user_word, lambda user: accounts.use_reset_code(
        ctx.db, ctx.config.secret, user.id, code, ctx.now),
        N_("That is not the code mailed for {user}, or it has expired (a code works once, for an "
           "hour). Ask for a new one with: password reset {user}"), guard.reset_subjects)
    _set_password(ctx, user_id, new, still=" " + _("The code still works."))


def _set_password(ctx: Context, user_id: str, new: str, still: str = "") -> None:
    """Set `user_id`'s password to `new` if it can be one; confirm to the sender, and tell every
    registered address (the change may not be theirs)."""
    problem = accounts.password_problem(new, user_id)
    if problem:
        raise CommandError(_("The new password cannot be used: {why}.").format(why=wording.said_in(problem))
                           + still)
    accounts.set_password(ctx.db, user_id, new)
    name = ctx.config.server.name
    lines = [_("The password of {user} has been changed.").format(user=user_id),
             *_("Use the new one from now on; the old one no longer works, nor do the reply\n"
                "addresses of game mails sent before: answer newer ones.").split("\n")]
    ctx.answer(_("{server}: password changed for {user}").format(server=name, user=user_id), "account.j2",
               lines=lines)
    for address in accounts.addresses(ctx.db, user_id):
        if address != ctx.incoming.sender.lower():
            ctx.out.append(compose.notify(address, _("{server}: password changed for {user}").format(
                                              server=name, user=user_id),
                                          compose.render("account.j2", lines=lines)))


def set_preferences(ctx: Context, req: Request) -> None:
    user_word, password, *settings = req.args
    user_id = authenticate(ctx, user_word, password)
    chosen = _chosen(settings)
    accounts.set_preferences(ctx.db, user_id, chosen)
    now = accounts.preferences(ctx.db, user_id)
    with i18n.speaking(now["lang"], now["notation"]):
        ctx.answer(_("{server}: preferences of {user}").format(server=ctx.config.server.name, user=user_id),
                   "account.j2", lines=[
                       _("The preferences of {user} are now:").format(user=user_id), "",
                       *(f"    {name}={value}" for name, value in now.items()), "",
                       *_("board: own draws each board from your side, red from the first player's,\n"
                          "off leaves it out, svg draws it from your side in SVG (not for Gmail\n"
                          "or Outlook); notation: the move list in coordinates, WXF or both,\n"
                          "or in Chinese (Xiangqi) or Korean (Janggi) notation; lang: the language\n"
                          "of your mails; board_faces: Janggi's pieces in the drawn board;\n"
                          "autoleave: on spends a vacation day instead of a game lost on time;\n"
                          "digest: daily mails you the games waiting for your move.").split("\n")])


def _chosen(settings: list[str]) -> dict[str, str]:
    """NAME=VALUE words as preferences (any case; stored as PREFERENCES spells them), or CommandError."""
    chosen = {}
    for setting in settings:
        name, _sep, value = setting.lower().partition("=")
        values = {v.lower(): v for v in accounts.PREFERENCES.get(name, ())}
        if value not in values:
            known = "; ".join(f"{n}={'|'.join(v)}" for n, v in accounts.PREFERENCES.items())
            raise CommandError(_("{setting} is not a preference. The preferences are: {known} (the first "
                                 "value of each is the default).").format(setting=setting, known=known))
        chosen[name] = values[value]
    return chosen


def change_address(ctx: Context, req: Request) -> None:
    user_word, password, *given = req.args
    user_id = authenticate(ctx, user_word, password)
    addresses = _addresses(ctx, given)
    accounts.set_addresses(ctx.db, user_id, addresses)
    ctx.answer(_("{server}: addresses changed for {user}").format(server=ctx.config.server.name, user=user_id),
               "account.j2", lines=[_("The mail addresses of {user} are now:").format(user=user_id), "",
                                    *(f"    {a}" for a in addresses), "",
                                    _("Game mail goes to {address}; commands are accepted from all of "
                                      "them.").format(address=addresses[0])])


def signoff(ctx: Context, req: Request) -> None:
    user_word, password = req.args
    user_id = authenticate(ctx, user_word, password)
    running = games.listing(ctx.db, None, [user_id], "active", 50)
    if running:
        names = ", ".join(f"{b.title} Board {b.number}" for b in running)
        raise CommandError(_("{user} still plays in {boards}. Finish or resign those games first (GAME "
                             "resign BOARD USERID PASSWORD), then sign off.").format(user=user_id, boards=names))
    entered = tournaments.entered(ctx.db, user_id)
    if entered:
        names = ", ".join(f"{catalogue.title(t.variant)} {t.name}" for t in entered)
        raise CommandError(ngettext(
            "{user} is entered in the tournament {names}. Leave it first (GAME tournament leave NAME "
            "USERID PASSWORD), then sign off.",
            "{user} is entered in the tournaments {names}. Leave them first (GAME tournament leave "
            "NAME USERID PASSWORD), then sign off.", len(entered)).format(user=user_id, names=names))
    accounts.close(ctx.db, user_id, ctx.now)
    ctx.answer(_("{server}: {user} signed off").format(server=ctx.config.server.name, user=user_id),
               "account.j2", lines=_(
                   "{user} has signed off. The account can no longer be used, and no more\n"
                   "mail will be sent to it. Finished games keep the name in their records.").format(
                   user=user_id).split("\n"))


def _addresses(ctx: Context, given: list[str]) -> list[str]:
    addresses = [a.strip("<>").lower() for a in given]
    if len(addresses) > accounts.MAX_ADDRESSES:
        raise CommandError(_("At most {n} addresses can be registered to a user.").format(n=accounts.MAX_ADDRESSES))
    own_local, _at, own_domain = ctx.config.server.address.lower().rpartition("@")
    for address in addresses:
        problem = accounts.address_problem(address)
        if problem:
            raise CommandError(_("{why}.").format(why=wording.said_in(problem)))
        local, _at, domain = address.rpartition("@")
        if domain == own_domain and local.split("+")[0] == own_local:
            raise CommandError(_("{address} is this server's own address; give your own.").format(address=address))
    return addresses
