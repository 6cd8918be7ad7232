"""A player's notes as their mails show them: `After move 12: text`, then the saved line in the
reader's notation (pbm.model.play.notes; the commands are pbm.commands.games.notebook)."""
from __future__ import annotations

import rules
from pbm import i18n
from pbm.commands.mails.movelist import cell
from pbm.commands.mails.next_steps import reader_styles
from pbm.i18n import _, ngettext
from pbm.model.db import Database
from pbm.model.play import notes
from pbm.model.play.games import Board, PlayedMove

SHOWN = 3               # notes a board mail shows (the latest); `GAME notes` mails them all
SHOWN_CHARACTERS = 600  # of each of them in a board mail


def lines(game: rules.Game, kept: list[notes.Note], most: int | None) -> list[str]:
    """`kept` as a mail shows them: the latest `most` (None: all, whole), and how many more there are."""
    shown = kept if most is None else kept[-most:]
    out = []
    if len(kept) > len(shown):
        out.append(ngettext("({n} earlier note: GAME notes mails them all)",
                            "({n} earlier notes: GAME notes mails them all)",
                            len(kept) - len(shown)).format(n=len(kept) - len(shown)))
    for item in shown:
        text = item.text if most is None or len(item.text) <= SHOWN_CHARACTERS else \
            item.text[:SHOWN_CHARACTERS] + " [...]"
        out.append(_("After move {ply}: {text}").format(ply=item.ply, text=text) if text else
                   _("After move {ply}:").format(ply=item.ply))
        if item.line:
            out.append("    " + _("Line: {moves}").format(moves=" ".join(_named(game, item))))
    return out


def _named(game: rules.Game, item: notes.Note) -> list[str]:
    """The note's line in the reader's notation, played from the position after its move."""
    shown = game.at(min(item.ply, game.ply))
    style = i18n.notation()
    names = []
    for move in item.line:
        try:
            shown.play(move)
        except rules.RulesError:            # a line from a position an undo took back
            return names + item.line[len(names):]
        move, named = shown.moves[-1], shown.notation[-1]
        names.append(shown.name_last(style) if style in reader_styles(shown.variant) else
                     f"{move} ({named})" if style not in ("coordinates", "wxf") and named != move else
                     cell(PlayedMove(move, named, False), style))
    return names


def own(db: Database, board: Board, game: rules.Game, user: str) -> list[str]:
    """The "Your notes" lines of `user`'s board mail (the game's notes read once per event)."""
    if "notes" not in board.rendered:
        board.rendered["notes"] = notes.by_writer(db, board.id)
    return lines(game, board.rendered["notes"].get(user, []), SHOWN)
