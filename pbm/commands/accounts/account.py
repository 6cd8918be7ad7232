"""Server commands about accounts: signup, change password, change address, signoff, and the
forgotten password (password reset, password set).

Decisions (the spec is silent): a user id is never reused, so old game records keep their meaning;
signoff is refused while the user still plays a running game (nothing is lost by accident); mail
goes to the first address given, every listed address is accepted as the user's once confirmed
(pbm.commands.accounts.confirming).  A forgotten password: `password reset USERID` mails a one-time code
(a day, single use) to every registered address of the user, at most `[server]
reset_codes_per_day` a day asked for from the user's own addresses and as many asked for by anyone
else (pbm.model.players.resets; the asker is told when the next can come); `password
set USERID CODE NEW` then sets the new password (pbm.model.players.guard says how wrong codes are counted).
Any new password revokes the user's reply tokens, and every registered address is told that it
changed, with the new reply addresses of the user's running games.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.accounts import confirming
from pbm.commands.mails import notify
from pbm.commands.base import (
    MAX_LISTED,
    CommandError,
    Context,
    Unanswered,
    authenticate,
    proven,
    unregistered,
)
from pbm.commands.parse import Request
from pbm.i18n import _, ngettext
from pbm.model.play import games, tournaments
from pbm.model.players import accounts, confirmations, guard, refusals, resets
from pbm.outbox import compose

# A new account in Chinese or Korean reads the moves in its own notation (in the games that have
# it: Xiangqi for Chinese, Janggi for Korean; the others as `both`) unless it asks otherwise.
DAY = timedelta(days=1)
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
    _signups_left(ctx)
    accounts.create(ctx.db, user_id, password, [], ctx.now, signed_up_from=ctx.incoming.sender)
    accounts.set_addresses(ctx.db, user_id, confirming.settle(ctx, user_id, addresses))
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
                   "welcome.j2", user=user_id, addresses=accounts.addresses(ctx.db, user_id),
                   waiting=confirmations.waiting(ctx.db, user_id), server=ctx.config.server.address,
                   games=catalogue.served())


def _signups_left(ctx: Context) -> None:
    """Refuse a signup past `[server] signups_per_day` from the sender; answered the first time
    in a day only (a forged From must not bring its owner a mail per signup)."""
    sender, most = ctx.incoming.sender.lower(), ctx.config.server.signups_per_day
    made = accounts.signups(ctx.db, sender, ctx.now - DAY)
    if made < most:
        return
    if refusals.refused(ctx.db, "signup", sender, ctx.now - DAY):
        raise Unanswered("over the signups of a day")
    ctx.regardless.append(lambda: refusals.refuse(ctx.db, "signup", sender, "", ctx.now))
    raise CommandError(ngettext(
        "{n} account has been made from {address} in the last day, the most this server allows; "
        "try again tomorrow. Further signups from this address today are not answered.",
        "{n} accounts have been made from {address} in the last day, the most this server allows; "
        "try again tomorrow. Further signups from this address today are not answered.", made).format(
        n=made, address=sender))


def change_password(ctx: Context, req: Request) -> None:
    user_word, old, new = req.args
    _set_password(ctx, authenticate(ctx, user_word, old), new)


def reset_password(ctx: Context, req: Request) -> None:
    user = accounts.get(ctx.db, req.args[0])
    if user is None or user.closed:
        raise CommandError(_("The user id in your command is not registered here (send \"help "
                             "password reset\" for the form of the command)."))
    req.safe.add(req.args[0])
    most = ctx.config.server.reset_codes_per_day
    mailed = accounts.addresses(ctx.db, user.id)
    # the player's own request: from a registered address, vouched for where an MTA vouches
    own = ctx.incoming.sender.lower() in mailed and (ctx.incoming.verified
                                                     or not ctx.config.security.authserv_id)
    code = resets.issue(ctx.db, ctx.config.secret, user.id, ctx.now, most, own)
    if isinstance(code, datetime):
        raise CommandError(ngettext(
            "{user} has been mailed {n} reset code in the last day, the most this server sends in "
            "a day. The next one can be asked for from {time} UTC; a code mailed works for a day, "
            "once.",
            "{user} has been mailed {n} reset codes in the last day, the most this server sends in "
            "a day. The next one can be asked for from {time} UTC; each code mailed works for a "
            "day, once.", most).format(user=user.id, n=most, time=f"{code:%Y-%m-%d %H:%M}"))
    name = ctx.config.server.name
    with notify.speaking_to(ctx, user.id):          # the code goes to the user, in their language
        for address in mailed:
            ctx.out.append(compose.notify(
                address, _("{server}: password reset code for {user}").format(server=name, user=user.id),
                compose.render("account.j2", lines=[
                    _("Someone (you, we hope) asked to reset the password of {user}.").format(user=user.id),
                    _("To set a new password, send the subject"), "",
                    f"    password set {user.id} {code} NEWPASSWORD", "",
                    *_("within a day; the code works once. If you did not ask for it, ignore this mail:\n"
                       "your password stays as it is.").split("\n")])))
    if ctx.incoming.sender.lower() not in mailed:
        ctx.answer(_("{server}: password reset for {user}").format(server=name, user=user.id), "account.j2",
                   lines=[_("A one-time code was mailed to the registered addresses of {user}.").format(
                       user=user.id), _("It works for a day.")])


def set_forgotten_password(ctx: Context, req: Request) -> None:
    """`password set USERID CODE NEW`.  A right code is taken whatever the guessing limit says (it
    proves the mailbox: pbm.model.players.guard); it then lifts every lock on the user and their
    addresses.  A wrong one counts against the code mailed and the sender, never the user id."""
    user_word, code, new = req.args
    user = accounts.get(ctx.db, user_word)
    if user is None or user.closed or not resets.use(ctx.db, ctx.config.secret, user.id, code, ctx.now):
        counted = guard.code_subjects(user and resets.outstanding(ctx.db, user.id, ctx.now), ctx.incoming)
        ctx.failures += counted
        if guard.locked_until(ctx.db, ctx.config, counted, ctx.now):
            raise Unanswered("too many wrong reset codes")
        if user is None:
            raise unregistered()
        raise CommandError(_("That is not the code mailed for {user}, or it has expired (a code works "
                             "once, for a day). Ask for a new one with: password reset {user}").format(
                             user=user.id))
    req.safe.add(user_word)
    _set_password(ctx, proven(ctx, user), new, still=" " + _("The code still works."))
    guard.clear(ctx.db, user.id, accounts.addresses(ctx.db, user.id))


def _set_password(ctx: Context, user_id: str, new: str, still: str = "") -> None:
    """Set `user_id`'s password to `new` if it can be one; confirm to the sender, and tell every
    registered address (the change may not be theirs), with the new reply addresses of the user's
    running games: the old ones stop working, and a player must not be cut off from a game."""
    problem = accounts.password_problem(new, user_id)
    if problem:
        raise CommandError(_("The new password cannot be used: {why}.").format(why=wording.said_in(problem))
                           + still)
    accounts.set_password(ctx.db, user_id, new)
    name = ctx.config.server.name
    lines = [_("The password of {user} has been changed.").format(user=user_id),
             *_("Use the new one from now on; the old one no longer works, nor do the reply\n"
                "addresses of game mails sent before: answer newer ones.").split("\n")]
    registered = accounts.addresses(ctx.db, user_id)
    running = _new_reply_addresses(ctx, user_id)
    sender = ctx.incoming.sender.lower()
    ctx.answer(_("{server}: password changed for {user}").format(server=name, user=user_id), "account.j2",
               lines=lines + running * (sender in registered))
    for address in registered:
        if address != sender:
            ctx.out.append(compose.notify(address, _("{server}: password changed for {user}").format(
                                              server=name, user=user_id),
                                          compose.render("account.j2", lines=lines + running)))


def _new_reply_addresses(ctx: Context, user_id: str) -> list[str]:
    """The lines listing the user's running games, each with its new reply address (and page link,
    where the server has pages)."""
    boards = games.listing(ctx.db, None, [user_id], "active", MAX_LISTED)
    if not boards:
        return []
    epoch = accounts.token_epoch(ctx.db, user_id)
    pages = bool(ctx.config.web.base_url)       # the old page links stopped working too
    heading = (_("The new reply addresses and page links of your running games (answer a game with a "
                 "mail to its address, the move on the first line):") if pages else
               _("The new reply addresses of your running games (answer a game with a mail to its "
                 "address, the move on the first line):"))
    return ["", heading, "",
            *(line for board in boards for line in (
                f"    {board.title} Board {board.number} ({board.player1} - {board.player2})",
                f"      {notify.reply_address(ctx, board, user_id, epoch)}",
                *([f"      {notify.page_link(ctx, board, user_id, epoch)}"] if pages else [])))]


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
                          "digest: daily mails you the games waiting for your move;\n"
                          "subscribed: off stops digests, reminders, end-of-game notices, the\n"
                          "games you observe and tournament news.").split("\n"),
                       *_("board=list gives the pieces in words instead of a board (for a screen\n"
                          "reader); movetimes: on lists when each move was made and how long it\n"
                          "took, in your zone tz (Area/City, such as Asia/Seoul); calendar: off\n"
                          "leaves your deadline's calendar event out of board mails; notes: share\n"
                          "gives your notes to each game's record once the game has ended.").split("\n"),
                       _("review: on mails you an engine's review of each game you finish.")])


def _chosen(settings: list[str]) -> dict[str, str]:
    """NAME=VALUE words as preferences (any case; stored as PREFERENCES spells them), or CommandError."""
    chosen = {}
    for setting in settings:
        name, _sep, value = setting.lower().partition("=")
        values = {v.lower(): v for v in accounts.PREFERENCES.get(name, ())}
        if value not in values:
            known = "; ".join(f"{n}={'|'.join(v) if len(v) < 10 else v[0] + '|Area/City'}"
                              for n, v in accounts.PREFERENCES.items())
            raise CommandError(_("{setting} is not a preference. The preferences are: {known} (the first "
                                 "value of each is the default).").format(setting=setting, known=known))
        chosen[name] = values[value]
    return chosen


def change_address(ctx: Context, req: Request) -> None:
    user_word, password, *given = req.args
    user_id = authenticate(ctx, user_word, password)
    addresses = _addresses(ctx, given)
    taken = confirming.settle(ctx, user_id, addresses, known=accounts.addresses(ctx.db, user_id))
    if taken:           # else the old addresses stay until a new one is confirmed
        accounts.set_addresses(ctx.db, user_id, taken)
    now = accounts.addresses(ctx.db, user_id)
    ctx.answer(_("{server}: addresses changed for {user}").format(server=ctx.config.server.name, user=user_id),
               "account.j2", lines=[_("The mail addresses of {user} are now:").format(user=user_id), "",
                                    *(f"    {a}" for a in now), "",
                                    *[_("Game mail goes to {address}; commands are accepted from all of "
                                        "them.").format(address=now[0])] * bool(now),
                                    *confirming.waiting_lines(ctx, user_id)])


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
