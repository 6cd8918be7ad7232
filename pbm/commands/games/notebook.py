"""A player's private notes on a game (pbm.model.play.notes): `GAME note BOARD USERID PASSWORD` with
the note in the body, a reply to a game mail whose first line starts with `note:`, a line kept with
`GAME preview BOARD USERID PASSWORD MOVES... save`, and `GAME notes BOARD USERID PASSWORD [share]`.

Only the writer sees their notes while the game runs: in their own board mails (the latest few,
under "Your notes"), on their own page, and all of them with `notes`.  After the end, a writer who
shares (`notes ... share`, or `set ... notes=share` for every game) gives them to the record.
"""
from __future__ import annotations

import rules
from pbm.commands.base import CommandError, Context, authenticate, board_and_user
from pbm.commands.mails import notelines, notify
from pbm.commands.parse import Request
from pbm.i18n import _
from pbm.model.play import games, notes
from pbm.model.play.games import Board
from pbm.outbox import compose


def note(ctx: Context, req: Request) -> None:
    """`GAME note BOARD USERID PASSWORD`, the note in the body."""
    board, user = board_and_user(ctx, req)
    write(ctx, board, user, ctx.comment, [])


def write(ctx: Context, board: Board, user: str, text: str, line: list[str]) -> None:
    """Keep `user`'s note (and line, in coordinates) on `board`, and tell them so."""
    if user not in board.players and user not in games.observers(ctx.db, board):
        raise CommandError(_("Only the players and observers of {title} Board {number} can keep notes "
                             "on it.").format(title=board.title, number=board.number))
    text = ctx.mask(text.strip())
    if not text and not line:
        raise CommandError(_("A note is the body of your mail (or the rest of a reply's first line "
                             "after note:), and it was empty: write your note there."))
    if notes.count(ctx.db, board.id, user) >= notes.MOST:
        raise CommandError(_("You keep {most} notes on {title} Board {number} already, the most "
                             "there may be.").format(most=notes.MOST, title=board.title, number=board.number))
    most = ctx.config.server.comment_chars          # a note is capped as a comment is
    notes.add(ctx.db, board.id, board.ply, user, text[:most], line, ctx.now)
    said = [_("Your note on {title} Board {number} (after move {ply}) is kept; only you see it while "
              "the game runs.").format(title=board.title, number=board.number, ply=board.ply)]
    if len(text) > most:
        said.append(_("It was {n} characters long: only the first {limit} were kept.").format(
            n=len(text), limit=most))
    said.append(_("All your notes on it: {command}").format(
        command=f"{board.variant} notes {board.number} {user} PASSWORD"))
    ctx.out.append(notify.answer(ctx, board, "\n".join(said)))


def list_notes(ctx: Context, req: Request) -> None:
    """`GAME notes BOARD USERID PASSWORD [share]`: all of them mailed; share gives them to the record."""
    if len(req.args) == 4 and req.args[3].lower() != "share":
        raise CommandError(_("notes takes share as its last word, or nothing there; {word} is not "
                             "share.").format(word=req.args[3]))
    board, user = board_and_user(ctx, req)
    said = []
    if len(req.args) == 4:
        notes.share(ctx.db, board.id, user)
        said = [_("Your notes on {title} Board {number} join its record for everyone once the game has "
                  "ended.").format(title=board.title, number=board.number), ""]
    kept = notelines.lines(board.replay(), notes.of(ctx.db, board.id, user), None)
    said += kept or [_("You have no notes on {title} Board {number}.").format(title=board.title,
                                                                              number=board.number)]
    ctx.out.append(compose.answer(
        ctx.incoming, f"{notify.subject(board)} notes", compose.render("note.j2", lines=said),
        root=notify.thread(ctx, board), kind="note"))


def save_line(ctx: Context, req: Request, tried_game: rules.Game, board: Board) -> None:
    """The moves of `GAME preview BOARD USERID PASSWORD MOVES... save` (played on `tried_game`),
    kept as a note of that user with the body as its text."""
    user = authenticate(ctx, req.args[1], req.args[2])
    write(ctx, board, user, ctx.comment, tried_game.moves[board.ply:])
