"""How many mails the answers to one inbound mail make: a `multiple` mail's answers go back as one
mail, and an address that is no player's is answered a few times a day at most.

A From is forged at no cost: without these bounds one mail of 60 `show` lines, forged from any
address, brought that address 51 mails (855 KB), and every forged `ruling`, `show` or `help` a
40 KB mail -- the server a mail cannon aimed wherever a stranger liked.  Players' own addresses are
not capped here (their floods are bounded by the commands' own limits).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from html import escape

from pbm import i18n
from pbm.commands.base import Context
from pbm.i18n import _, ngettext
from pbm.mail.messages import Outgoing
from pbm.model.players import accounts, refusals
from pbm.outbox import compose

DAY = timedelta(days=1)
HEADING = 66            # columns of an answer's subject over its part of the collected mail
KIND = "answer"         # the refusals row noting one mail to an address that is no player's


def collected(ctx: Context, out: list[Outgoing]) -> list[Outgoing]:
    """`out` with the answers to the sender (several, from the lines of a `multiple` mail) made one
    mail, where the first of them stood; the mails to others stay as they are.  The one mail is
    plain text (the boards as text): several drawn boards would not fit one HTML part.  It keeps a
    reply address only where every answer had the same one (one game's)."""
    incoming = ctx.incoming
    assert incoming is not None
    mine = [i for i, mail in enumerate(out) if _answers(mail, incoming.sender, incoming.message_id)]
    if len(mine) < 2:
        return out
    answers = [out[i] for i in mine]
    same = len({mail.reply_to for mail in answers}) == 1 and len({mail.kind for mail in answers}) == 1
    body = compose.render("answers.j2", n=len(answers),
                          answers=[(_heading(mail.subject), mail.body) for mail in answers])
    one = compose.answer(incoming, _("{server}: the answers to your {n} commands").format(
                             server=ctx.config.server.name, n=len(answers)), body,
                         reply_to=answers[0].reply_to if same else None, kind=answers[0].kind if same else "",
                         attachments=tuple(part for mail in answers for part in mail.attachments))
    gone = set(mine[1:])
    return [one if i == mine[0] else mail for i, mail in enumerate(out) if i not in gone]


def daily(ctx: Context, out: list[Outgoing]) -> list[Outgoing]:
    """`out` without the mails to the sender past `[server] answers_per_day` in the last day, when
    the sender's address is no player's; the last one answered says that the rest of the day is
    silence.  Each mail answered is noted (the refusals table, purged after a day by the timers)."""
    incoming = ctx.incoming
    assert incoming is not None
    address = incoming.sender.lower()
    mine = [i for i, mail in enumerate(out) if mail.to.lower() == address]
    # a sender proven a player (password or reply token) is no stranger: not counted
    if not mine or ctx.actor is not None or accounts.user_of_address(ctx.db, address) is not None:
        return out
    most = ctx.config.server.answers_per_day
    answered = refusals.count(ctx.db, KIND, address, ctx.now - DAY)
    kept = mine[:max(0, most - answered)]
    for _i in kept:
        refusals.refuse(ctx.db, KIND, address, "", ctx.now)
    out, gone = list(out), set(mine[len(kept):])
    if kept and answered + len(kept) >= most:
        out[kept[-1]] = _last(out[kept[-1]], answered + len(kept))
    return [mail for i, mail in enumerate(out) if i not in gone]


def _last(mail: Outgoing, n: int) -> Outgoing:
    """The mail with the note that no more mails go to its address today."""
    note = ngettext(
        "This address belongs to no player here, and has now been answered {n} time in the last "
        "day, the most this server answers such an address: further mails from it are not "
        "answered until a day has passed.",
        "This address belongs to no player here, and has now been answered {n} times in the last "
        "day, the most this server answers such an address: further mails from it are not "
        "answered until a day has passed.", n).format(n=n)
    body = mail.body.rstrip("\n") + "\n\n" + compose.render("note.j2", lines=[note])
    html = mail.html.replace("</body>", f"<p>{escape(note)}</p></body>", 1) if mail.html else ""
    return replace(mail, body=body, html=html)


def _heading(subject: str) -> str:
    """An answer's subject as the heading of its part: cut to fit a line."""
    return subject if i18n.width(subject) <= HEADING else i18n.wrap(subject, HEADING - 3)[0] + "..."


def _answers(mail: Outgoing, sender: str, message_id: str) -> bool:
    return mail.in_reply_to == message_id and mail.to == sender
