"""`GAME challenge -record USER1 USER2`: a game from the position after the moves of a record the
challenge mail carries, attached (a `.pgn`, `.gib`, ...) or in its body: PGN (moves in coordinates,
WXF or Chinese), a DhtmlXQ block or a `.gib` (pbm.records.importing).  Each move is played by the
rules core; the first that cannot be read or played is named, with the reason.
"""
from __future__ import annotations

import rules
from pbm.commands import wording
from pbm.commands.base import CommandError, Context
from pbm.i18n import _, ngettext
from pbm.records import importing

FORMS = {"pgn": "pgn", "zh": "pgn", "dhtmlxq": "dhtmlxq", "gib": "gib"}   # -record=WORD: the form


def position(ctx: Context, variant: str, asked: str | bool) -> tuple[str, int]:
    """The FEN after the record's moves, and how many there were (`asked`: -record's value)."""
    if asked is not True and str(asked).lower() not in FORMS:
        raise CommandError(_("-record={word} is not a record format; write -record, or -record= one "
                             "of: {forms}.").format(word=asked, forms=", ".join(FORMS)))
    found = None
    try:
        for name, data in [*ctx.incoming.attachments, ("", ctx.incoming.body.encode())]:
            if len(data) > importing.LIMIT:
                size, limit = f"{-(-len(data) // 1024):,}", f"{importing.LIMIT // 1024:,}"
                if name:
                    raise CommandError(_("The record {name} is {size} KB; records of up to {limit} KB "
                                         "are read.").format(name=name, size=size, limit=limit))
                raise CommandError(_("The record in the mail's text is {size} KB; records of up to "
                                     "{limit} KB are read.").format(size=size, limit=limit))
            found = importing.read(variant, importing.text_of(data))
            if found is not None:
                break
    except rules.RulesError as e:          # a start position no board can hold
        raise CommandError(_("The record's start position cannot be used: {why}").format(
            why=wording.refusal(e))) from None
    if found is None:
        raise CommandError(_("-record needs the game's record (PGN, Chinese PGN, DhtmlXQ or .gib), "
                             "attached to the mail or in its body; this mail has none."))
    if asked is not True and FORMS[str(asked).lower()] != found.form:
        raise CommandError(_("-record={word} was asked for, but the record in this mail is {form}.").format(
            word=asked, form=found.form))
    try:
        game = importing.replay(variant, found)
    except importing.Unplayable as e:
        raise CommandError(_("Move {number} of the record ({move}) cannot be played: {why}").format(
            number=e.number, move=e.text, why=wording.refusal(e.error))) from None
    except rules.RulesError as e:          # its start position
        raise CommandError(_("The record's start position cannot be used: {why}").format(
            why=wording.refusal(e))) from None
    return game.fen(), len(found.moves)


def started(count: int) -> str:
    """The headline that says where the game starts, in the reader's language."""
    return ngettext("The game starts from the position after the {n} move of the record.",
                    "The game starts from the position after the {n} moves of the record.",
                    count).format(n=count)
