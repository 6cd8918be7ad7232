"""Conditional moves: `GAME conditional BOARD USERID PASSWORD [clear]` with one line per branch in
the body (or `conditional` on the first line of a reply to a game mail, the branches below it).
A line is the opponent's move, one's reply, then maybe the opponent's next move and one's reply to
it, and so on (`h10g8 h1g3 i10h10 i1h1`), in any notation the game reads.

Decisions (the spec leaves them open):
- A tree is sent while it is the opponent's turn (on one's own turn there is a move to make
  first); a new tree replaces the old one whole, and `clear` drops it.
- Every line is played at once on a copy of the game: one with an unreadable or illegal move, an
  odd number of moves, or a reply that differs from another line's reply to the same moves, refuses
  the whole tree, naming the line, the move and the reason.
- When the opponent moves, the lines that begin with that move give the reply, played at once as
  the owner's move and marked (Auto); what follows them is kept, every other line dropped.  A
  move no line foresaw drops the whole tree, and the owner is told in their next game mail; so is
  a tree that no longer starts where the game stands (moves were taken back) and a reply that is
  no longer legal (the opponent chose another Janggi setup).
- A tree wins over the queue: its reply is played instead of the queued move for that turn.  If
  they are the same move the rest of the queue stays; otherwise the queue, planned for another
  line, is cleared and the owner told.
- Nobody but its owner sees a tree: the answer to `conditional` goes to the sender, who proved to
  be the owner, and `status` shows it only in the mail to an address of the owner (a forged From
  gets the answer sent to the owner, not to the forger).  The opponent's mails show only the
  move played, marked (Auto), as for a queued move.
"""
from __future__ import annotations

import re

import rules
from pbm.commands import parse, wording
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, board_and_user, require_active, require_player
from pbm.commands.parse import Request
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import conditionals
from pbm.model.players import accounts
from pbm.model.play.games import Board
from pbm.outbox import compose

MAX_LINES = 30          # branches in one tree
MAX_MOVES = 20          # moves in one branch (ten of the opponent's, ten replies)
_MOVE_NUMBER = re.compile(r"\d+\.+")    # "1." or "1..." between moves, as written in books


def conditional(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    if len(req.args) == 4 and req.args[3].lower() != "clear":
        raise CommandError(_("The only word conditional takes after the password is clear; the "
                             "branches go in the body of the mail, one a line, such as: h10g8 h1g3"))
    arrange(ctx, board, user, "clear" if len(req.args) == 4 else ctx.comment)


def arrange(ctx: Context, board: Board, user: str, text: str) -> None:
    """Set `user`'s tree on `board` from `text` (one branch a line), or drop it (`clear`)."""
    require_player(board, user)
    require_active(board)
    where = f"{board.title} Board {board.number}"
    if text.strip().lower() == "clear":
        dropped = conditionals.clear(ctx.db, board, user)
        _answer(ctx, board, user, [ngettext(
            "Your conditional moves on {where} are cleared ({n} line dropped).",
            "Your conditional moves on {where} are cleared ({n} lines dropped).", dropped).format(
            where=where, n=dropped)])
        return
    if board.to_move == user:
        raise CommandError(_("It is your move on {where}: conditional moves answer your opponent's "
                             "next move, so make yours first, then send them.").format(where=where))
    game = board.replay()
    tree = _read(board, user, game, text)
    conditionals.replace(ctx.db, board, user, board.ply, tree)
    _answer(ctx, board, user, [
        ngettext("Your conditional moves on {where} are set ({n} line); they replace any you had. "
                 "{user} does not see them.",
                 "Your conditional moves on {where} are set ({n} lines); they replace any you had. "
                 "{user} does not see them.", len(tree)).format(where=where, n=len(tree),
                                                                user=board.opponent(user)), "",
        *describe(board, game, user, tree), "",
        _("To drop them: {command}").format(
            command=f"{board.variant} conditional {board.number} {user} PASSWORD clear")])


def _read(board: Board, user: str, game: rules.Game, text: str) -> list[list[str]]:
    """The lines of `text` in coordinates, each played on `game` and taken back; CommandError for
    the first line that cannot be played, or that contradicts another."""
    tree: list[list[str]] = []
    replies: dict[tuple[str, ...], str] = {}
    opponent = board.opponent(user)
    for raw in text.splitlines():
        words = [w for w in raw.replace(",", " ").split() if not _MOVE_NUMBER.fullmatch(w)]
        if not words:
            continue
        line = " ".join(raw.split())
        if len(tree) == MAX_LINES:
            raise CommandError(_("A tree holds at most {most} lines; yours has more. Nothing was "
                                 "set.").format(most=MAX_LINES))
        if len(words) % 2 or len(words) > MAX_MOVES:
            raise CommandError(ngettext(
                "The line \"{line}\" has {n} move: a line is pairs of moves, {user}'s then your reply "
                "(h10g8 h1g3), up to {most} moves. Nothing was set; send the tree again with it put "
                "right.",
                "The line \"{line}\" has {n} moves: a line is pairs of moves, {user}'s then your reply "
                "(h10g8 h1g3), up to {most} moves. Nothing was set; send the tree again with it put "
                "right.", len(words)).format(line=line, n=len(words), user=opponent, most=MAX_MOVES))
        played: list[str] = []
        try:
            for i, word in enumerate(words):
                try:
                    played.append(game.play(word))
                except rules.RulesError as e:
                    refused = (_("The line \"{line}\" is refused at its move {n}, {move} ({user}'s): "
                                 "{why} Nothing was set; send the tree again with that line put "
                                 "right.") if i % 2 == 0 else
                               _("The line \"{line}\" is refused at its move {n}, {move} (your "
                                 "reply): {why} Nothing was set; send the tree again with that line "
                                 "put right."))
                    raise CommandError(refused.format(line=parse.cut(line), n=i + 1, move=word, user=opponent,
                                                      why=wording.refusal(e))) from None
        finally:
            for _move in played:
                game.undo()
        for i in range(1, len(played), 2):
            before = tuple(played[:i])
            if replies.setdefault(before, played[i]) != played[i]:
                raise CommandError(_("The line \"{line}\" answers {moves} with {move}, but an earlier "
                                     "line answers it with {earlier}: each position needs one reply. "
                                     "Nothing was set.").format(line=parse.cut(line), moves=" ".join(before),
                                                                move=played[i], earlier=replies[before]))
        tree.append(played)
    if not tree:
        raise CommandError(_("There were no conditional moves in your mail: write one line per branch "
                             "in the body, {user}'s move then your reply, such as h10g8 h1g3.").format(
            user=opponent))
    return tree


def describe(board: Board, game: rules.Game, user: str, tree: list[list[str]]) -> list[str]:
    """The tree as its owner reads it: `If bob plays h10g8 (H8+7), you play h1g3 (H2+3).` with the
    lines that follow indented under it."""
    opponent = board.opponent(user)
    out: list[str] = []

    def walk(lines: list[list[str]], depth: int) -> None:
        branches: dict[str, list[list[str]]] = {}
        for line in lines:
            branches.setdefault(line[0], []).append(line)
        for theirs, group in branches.items():
            mine = group[0][1]
            named = []
            for move in (theirs, mine):         # each named in the reader's notation
                game.play(move)
                named.append(notify.played(move, game.notation[-1], notify.last_move_names(game)))
            said = (_("then if {user} plays {move}, you play {reply}.") if depth else
                    _("If {user} plays {move}, you play {reply}."))
            out.append("  " * depth + said.format(user=opponent, move=named[0], reply=named[1]))
            walk([line[2:] for line in group if len(line) > 2], depth + 1)
            game.undo()
            game.undo()

    try:
        walk(tree, 0)
    except rules.RulesError:            # the game moved on under the tree: it is dropped at the next move
        return [" ".join(line) for line in tree]
    return out


def shown_to_owner(ctx: Context, board: Board, game: rules.Game) -> list[str]:
    """The tree of the player whose address asked (for `status`): nobody else's."""
    user = accounts.user_of_address(ctx.db, ctx.incoming.sender, board.players) if ctx.incoming else None
    if user is None:
        return []
    ply, tree = conditionals.lines(ctx.db, board, user)
    if not tree:
        return []
    if ply != board.ply:
        return [_("Your conditional moves no longer fit the game; they are dropped at the next move.")]
    return [_("Your conditional moves (only you see them):"), *describe(board, game, user, tree)]


def reply(ctx: Context, board: Board, game: rules.Game, owner: str, ply: int, tree: list[list[str]],
          notes: dict[str, list[str]]) -> str | None:
    """`owner`'s answer from their tree (`tree`, from the position after `ply` moves) to the move
    just played on `game` (None: none), the tree kept from there on; a tree that does not fit is
    dropped and its owner told in `notes`."""
    where = f"{board.title} Board {board.number}"
    if ply != board.ply - 1:
        conditionals.clear(ctx.db, board, owner)
        notes.setdefault(owner, []).append(lazy(lambda: _(
            "Your conditional moves on {where} were dropped: the game is no longer where they "
            "started.").format(where=where)))
        return None
    last = game.moves[-1]
    following = [line for line in tree if line[0] == last]
    if not following:
        conditionals.clear(ctx.db, board, owner)
        notation, names = game.notation[-1], notify.last_move_names(game)
        notes.setdefault(owner, []).append(lazy(lambda: _(
            "Your conditional moves did not foresee {user}'s {move}, so they were dropped.").format(
            user=board.opponent(owner), move=notify.played(last, notation, names))))
        return None
    conditionals.replace(ctx.db, board, owner, board.ply + 1,
                         [line[2:] for line in following if len(line) > 2])
    return following[0][1]


def drop(ctx: Context, board: Board, taken: str) -> dict[str, list[str]]:
    """Drop both players' trees (the moves `taken` were taken back); the notes that tell their owners."""
    notes: dict[str, list[str]] = {}
    for user in board.players:
        if conditionals.clear(ctx.db, board, user):
            notes[user] = [lazy(lambda: _(
                "Your conditional moves on {title} Board {number} were dropped: {moves} was taken "
                "back.").format(title=board.title, number=board.number, moves=taken))]
    return notes


def _answer(ctx: Context, board: Board, user: str, lines: list[str]) -> None:
    ctx.out.append(compose.answer(ctx.incoming, notify.subject(board), compose.render("note.j2", lines=lines),
                                  root=notify.thread(ctx, board),
                                  reply_to=notify.reply_address(ctx, board, user), kind="note"))
