"""`GAME notify USERID PASSWORD [BOARD...|off]`: end-of-game notices, as pbmserv's notify gives them.

Decisions: with BOARDs, one short mail when each of those running games ends -- anyone's game, for
those who want the result without a mail after every move (subscribe gives that); without a
BOARD, such a notice at the end of every game of that kind the user plays, now or later (the
one mail to look for: it names the result in its subject and carries the PGN record); `off`
drops all of one's notices in that game kind.  A notice asked for a game is forgotten once sent.
The answer lists the notices one has.
"""
from __future__ import annotations

from collections.abc import Callable

from pbm import i18n
from pbm.commands.base import (
    CommandError,
    Context,
    authenticate,
    board_number,
    describe_end,
    find_board,
)
from pbm.commands.parse import Request
from pbm.i18n import _, ngettext
from pbm.model.play import games, notices
from pbm.model.players import accounts
from pbm.model.play.games import Board
from pbm.outbox import compose

MAX_BOARDS = 20


def notify(ctx: Context, req: Request) -> None:
    user = authenticate(ctx, req.args[0], req.args[1])
    variant = req.game
    words = req.args[2:]
    lines = []
    if [w.lower() for w in words] == ["off"]:
        dropped = notices.remove(ctx.db, user, variant)
        lines.append(_("Your end-of-game notices are off ({n} dropped).").format(n=dropped))
    elif not words:
        notices.add(ctx.db, user, variant, notices.EVERY_GAME)
        lines.append(_("You will get a notice when any game of yours ends."))
    else:
        if len(words) > MAX_BOARDS:
            raise CommandError(_("Ask for at most {most} boards at a time.").format(most=MAX_BOARDS))
        for word in words:
            number, ply = board_number(word)
            board = find_board(ctx, variant, number)
            if board.status != games.ACTIVE or ply is not None:
                raise CommandError(_("{title} Board {number} is over, or {word} is not a board number "
                                     "alone: notices are for running games, such as {number}.").format(
                    title=board.title, number=board.number, word=word))
            notices.add(ctx.db, user, variant, board.id)
        lines.append(ngettext("You will get a notice when {boards} ends.",
                              "You will get a notice when each of {boards} ends.", len(words)).format(
            boards=", ".join(words)))
    wanted = notices.wanted(ctx.db, user, variant)
    boards = [games.get(ctx.db, game_id).number for game_id in wanted if game_id != notices.EVERY_GAME]
    if notices.EVERY_GAME in wanted:
        lines.append(_("Notices now: every game of yours, and boards {boards}.").format(
            boards=", ".join(map(str, boards))) if boards else _("Notices now: every game of yours."))
    elif boards:
        lines.append(_("Notices now: boards {boards}.").format(boards=", ".join(map(str, boards))))
    lines.append(_("To stop them all: {command}").format(command=f"{variant} notify {user} PASSWORD off"))
    ctx.answer(_("{server}: notices").format(server=ctx.config.server.name), "note.j2", lines=lines)


def send(ctx: Context, board: Board, subject: Callable[[], str], root: str, attachments: tuple) -> None:
    """The notices of `board`'s end, each in its reader's language (sent with its final mails:
    their `subject`, written for each reader, thread and PGN)."""
    wanted = notices.readers(ctx.db, board)
    for user, who in (accounts.readers(ctx.db, wanted) if wanted else {}).items():
        if who.address is None:
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            lines = [_("{title} Board {number} ({first} - {second}) is over: {end}.").format(
                         title=board.title, number=board.number, first=board.player1,
                         second=board.player2, end=describe_end(board)),
                     _("The record is attached. For the final board, send: {command}").format(
                         command=f"{board.variant} show {board.number}")]
            ctx.out.append(compose.subscribed(compose.notify(
                who.address, subject(), compose.render("note.j2", lines=lines), root=root, kind="note",
                attachments=attachments), user))
