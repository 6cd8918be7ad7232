"""`GAME challenge -record USER1 USER2`: a game from the position after the moves of a record the
challenge mail carries, attached (a `.pgn`, `.gib`, ...) or in its body: PGN (moves in coordinates,
WXF or Chinese), a DhtmlXQ block or a `.gib` (pbm.records.importing).  Each move is played by the
rules core; the first that cannot be read or played is named, with the reason.

The record is read, and its moves played, before the write transaction begins (`read_ahead`,
from pbm.intake's `arrive`), once per mail and game however many lines of a `multiple` mail use it:
a hostile record then costs only its own mail's preparation, never the write lock every other
mail and the timers wait for.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import rules
from pbm import catalogue
from pbm.commands import parse, wording
from pbm.commands.base import CommandError, Context
from pbm.i18n import _, ngettext
from pbm.mail.messages import Incoming
from pbm.records import importing

FORMS = {"pgn": "pgn", "zh": "pgn", "dhtmlxq": "dhtmlxq", "gib": "gib"}   # -record=WORD: the form


@dataclass(frozen=True)
class Reading:
    """A mail's record read for one game ahead of the write lock: the record (None: the mail has
    none), the game after its moves, or what went wrong (raised again where the command needs it)."""
    found: importing.Record | None = None
    in_body: bool = False               # the record is the mail's body: no comment then
    fen: str = ""
    error: Exception | None = None      # from reading the record (raised as it was)
    unplayable: Exception | None = None     # from playing its moves: Unplayable or RulesError


def read_ahead(incoming: Incoming) -> Incoming:
    """`incoming` with its record read and played for each game a `-record` line of it names (plain
    data, so that an SMTP process of `pbm serve` can hand it on)."""
    named = {words[0].lower() for line in [incoming.subject, *incoming.body.splitlines()]
             if "-record" in line.lower() and (words := parse.split(parse.strip_reply_prefix(line)).words)}
    variants = [variant for variant in catalogue.served() if variant in named]
    return replace(incoming, records=tuple((variant, _reading(incoming, variant)) for variant in variants)
                   ) if variants else incoming


def _reading(incoming: Incoming, variant: str) -> Reading:
    try:
        found, in_body = _find(incoming, variant)
    except Exception as e:          # a reader's failure fails the command, in the transaction
        return Reading(error=e)
    if found is None:
        return Reading()
    try:
        return Reading(found, in_body, importing.replay(variant, found).fen())
    except (importing.Unplayable, rules.RulesError) as e:
        return Reading(found, in_body, unplayable=e)


class TooLarge(Exception):
    """A record over importing.LIMIT bytes: `name` (the attachment's; "" for the body), its size."""

    def __init__(self, name: str, size: int) -> None:
        super().__init__(name, size)
        self.name, self.size = name, size


def _find(incoming: Incoming, variant: str) -> tuple[importing.Record | None, bool]:
    """The first record among the attachments and the body, and whether it is the body."""
    files = list(incoming.attachments)
    for i, (name, data) in enumerate([*files, ("", incoming.body.encode())]):
        if len(data) > importing.LIMIT:
            raise TooLarge(name, len(data))
        found = importing.read(variant, importing.text_of(data))
        if found is not None:
            return found, i == len(files)
    return None, False


def position(ctx: Context, variant: str, asked: str | bool) -> tuple[str, int]:
    """The FEN after the record's moves, and how many there were (`asked`: -record's value)."""
    if asked is not True and str(asked).lower() not in FORMS:
        raise CommandError(_("-record={word} is not a record format; write -record, or -record= one "
                             "of: {forms}.").format(word=asked, forms=", ".join(FORMS)))
    reading = dict(ctx.incoming.records).get(variant) or _reading(ctx.incoming, variant)
    if isinstance(reading.error, TooLarge):
        size, limit = f"{-(-reading.error.size // 1024):,}", f"{importing.LIMIT // 1024:,}"
        if reading.error.name:
            raise CommandError(_("The record {name} is {size} KB; records of up to {limit} KB "
                                 "are read.").format(name=reading.error.name, size=size, limit=limit))
        raise CommandError(_("The record in the mail's text is {size} KB; records of up to "
                             "{limit} KB are read.").format(size=size, limit=limit))
    if isinstance(reading.error, rules.RulesError):     # a start position no board can hold
        raise CommandError(_("The record's start position cannot be used: {why}").format(
            why=wording.refusal(reading.error))) from None
    if reading.error is not None:
        raise reading.error
    found = reading.found
    if reading.in_body:         # the body is the record, not a word to the opponent
        ctx.comment = ""
    if found is None:
        raise CommandError(_("-record needs the game's record (PGN, Chinese PGN, DhtmlXQ or .gib), "
                             "attached to the mail or in its body; this mail has none."))
    if asked is not True and FORMS[str(asked).lower()] != found.form:
        raise CommandError(_("-record={word} was asked for, but the record in this mail is {form}.").format(
            word=asked, form=found.form))
    try:
        if reading.unplayable is not None:
            raise reading.unplayable
    except importing.Unplayable as e:
        raise CommandError(_("Move {number} of the record ({move}) cannot be played: {why}").format(
            number=e.number, move=e.text, why=wording.refusal(e.error))) from None
    except rules.RulesError as e:          # its start position
        raise CommandError(_("The record's start position cannot be used: {why}").format(
            why=wording.refusal(e))) from None
    return reading.fen, len(found.moves)


def started(count: int) -> str:
    """The headline that says where the game starts, in the reader's language."""
    return ngettext("The game starts from the position after the {n} move of the record.",
                    "The game starts from the position after the {n} moves of the record.",
                    count).format(n=count)
