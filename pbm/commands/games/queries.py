"""Commands that only look: list, all show, show, status, games, history, standings, preview,
replay (record: pbm.commands.games.record_mail).

None needs a password.  Lists are capped (the newest first for finished games), so that a server
with 100,000 finished games answers as fast as one with a hundred.
"""
from __future__ import annotations

import rules
from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.games import conditional, notebook
from pbm.commands.mails import movelist, movetimes, notify
from pbm.commands.base import (
    MAX_LISTED,
    CommandError,
    Context,
    board_number,
    describe_end,
    find_board,
    load_board,
)
from pbm.commands.parse import Request
from pbm.i18n import _, ngettext
from pbm.model.play import games
from pbm.model.players import accounts, ratings, reliability, vacations
from pbm.ratings import correspondence
from pbm.model.play.games import Board
from pbm.outbox import bounces, compose

MAX_BOARDS = 20         # board mails for one show command
WHICH = ("active", "inactive", "next")


def list_games(ctx: Context, req: Request) -> None:
    rows = [(name, catalogue.title(name), games.count(ctx.db, name, games.ACTIVE)) for name in catalogue.served()]
    ctx.answer(_("{server}: games").format(server=ctx.config.server.name), "list.j2", rows=rows)


def all_show(ctx: Context, req: Request) -> None:
    users, which = _users_and_which(ctx, req.args)
    if len(users) != 1:
        raise CommandError(_("all show takes one user id (and optionally next, active or inactive)."))
    _show_users(ctx, None, users, which)


def show(ctx: Context, req: Request) -> None:
    if all(_is_board(word) for word in req.args):
        numbers = [board_number(word) for word in req.args]
        if len(numbers) > MAX_BOARDS:
            raise CommandError(_("Ask for at most {n} boards at a time.").format(n=MAX_BOARDS))
        for number, ply in numbers:
            _show(ctx, find_board(ctx, req.game, number), ply)
        return
    users, which = _users_and_which(ctx, req.args)
    _show_users(ctx, req.game, users, which)


def _is_board(word: str) -> bool:
    number, sep, ply = word.partition("#")
    return number.isdigit() and (not sep or ply.isdigit())


def _users_and_which(ctx: Context, words: list[str]) -> tuple[list[str], str]:
    which = "active"
    users = [w.lower() for w in words]
    if users and users[-1] in WHICH:
        which = users.pop()
    for user in users:
        if accounts.get(ctx.db, user) is None:
            raise CommandError(_("There is no user {user} here. (A board number is written as 101, or "
                                 "101#7 for the position after move 7.)").format(user=user))
    return users, which


def _show_users(ctx: Context, variant: str | None, users: list[str], which: str) -> None:
    boards = games.listing(ctx.db, variant, users, which, MAX_BOARDS + 1)
    if not boards:
        where = f"{catalogue.title(variant)} " if variant else ""
        said = {"active": _("{users} has no active {game}games."),
                "inactive": _("{users} has no inactive {game}games."),
                "next": _("{users} has no next {game}games.")}[which]
        if len(users) > 1:
            said = {"active": _("{users} have no active {game}games."),
                    "inactive": _("{users} have no inactive {game}games."),
                    "next": _("{users} have no next {game}games.")}[which]
        ctx.answer(_("{server}: no games").format(server=ctx.config.server.name), "note.j2",
                   lines=[said.format(users=_(" and ").join(users), game=where)])
        return
    for board in boards[:MAX_BOARDS]:
        _show(ctx, games.load(ctx.db, board.variant, board.number), None)
    if len(boards) > MAX_BOARDS:
        ctx.answer(_("{server}: more games").format(server=ctx.config.server.name), "note.j2",
                   lines=[_("Only the first {n} games were sent; ask for the others by number.").format(
                       n=MAX_BOARDS)])


def _show(ctx: Context, board: Board, ply: int | None) -> None:
    game = board.replay()
    if ply is not None and ply > board.ply:
        raise CommandError(ngettext(
            "{title} Board {number} has {n} move so far, so there is no position after move {ply}.",
            "{title} Board {number} has {n} moves so far, so there is no position after move {ply}.",
            board.ply).format(title=board.title, number=board.number, n=board.ply, ply=ply))
    values = notify.for_sender(ctx, board, game, upto=ply)
    values.update(headline=[], notes=[], comment=None, footer=[])
    ctx.out.append(notify.shown(ctx, board, notify.subject(board), values))


def status(ctx: Context, req: Request) -> None:
    number, _ply = board_number(req.args[0])
    board = find_board(ctx, req.game, number)
    game = board.replay()
    values = notify.for_sender(ctx, board, game)
    last = board.moves[-1] if board.moves else None
    headline = [(ngettext("{n} move so far; the last was {move}.", "{n} moves so far; the last was {move}.",
                          board.ply) if last else ngettext("{n} move so far.", "{n} moves so far.",
                                                           board.ply)).format(
        n=board.ply, move=notify.played(last.move, last.notation, notify.last_move_names(game)) if last else "")]
    if board.deadline and board.status == games.ACTIVE:
        headline.append(_("{user} must move by {time} UTC or lose on time.").format(
            user=board.to_move, time=board.deadline[:16]))
    headline += conditional.shown_to_owner(ctx, board, game)
    watchers = games.observers(ctx.db, board)
    if watchers:
        headline.append(_("Observed by {users}.").format(users=", ".join(watchers)))
    mailboxes = {accounts.mail_address(ctx.db, user): user for user in board.players}
    for address, reason in bounces.refused_addresses(ctx.db, filter(None, mailboxes)).items():
        headline.append(_("Mail to {user} ({address}) was refused for good: {reason}").format(
            user=mailboxes[address], address=address, reason=reason))
    record = [f"  {at[:16]}  " + wording.event(
        kind, user, movelist.moves_named(game, ply, detail) if kind == "undo" else detail, game.variant.arrangements)
        for at, kind, user, detail, ply in games.events(ctx.db, board)]
    user = accounts.user_of_address(ctx.db, ctx.incoming.sender, board.players)
    prefs = accounts.preferences(ctx.db, user) if user else accounts.defaults()
    values.update(board="", moves=movetimes.listed(board, game, prefs), drawn=None,
                  headline=headline, notes=[], comment=None, footer=[], record=record, pieces=[])
    ctx.out.append(notify.shown(ctx, board, notify.subject(board), values))


def player(ctx: Context, req: Request) -> None:
    """A player's profile in one game: rating and its last changes, record against each opponent,
    games in progress."""
    [user], _which = _users_and_which(ctx, req.args)
    title = catalogue.title(req.game)
    rating = ratings.get(ctx.db, req.game, user)
    running = games.listing(ctx.db, req.game, [user], "active", MAX_LISTED)
    ctx.answer(_("{title} player {user}").format(title=wording.name(title), user=user), "player.j2", title=title, user=user, rating=rating,
               shown=rating.shown(ctx.now), provisional=correspondence.provisional(rating.at(ctx.now)),
               limit=correspondence.PROVISIONAL, changes=ratings.changes(ctx.db, req.game, user),
               opponents=games.head_to_head(ctx.db, req.game, user), running=[_line(b) for b in running],
               vacation=vacations.describe(ctx.db, user), reliability=_reliability(ctx, user))


def _reliability(ctx: Context, user: str) -> list[str]:
    """How reliably the player moves, in every game (pbm.model.players.reliability)."""
    lines = [_("Time-outs in the last 12 months: {n}").format(
        n=reliability.timeouts(ctx.db, user, ctx.now))]
    pace = reliability.days_per_move(ctx.db, user)
    if pace is not None:
        lines.append(ngettext("Days per move, on average over the last move (vacations left out): {days}",
                              "Days per move, on average over the last {n} moves (vacations left out): "
                              "{days}", pace[1]).format(n=pace[1], days=f"{pace[0]:.1f}"))
    return lines


def games_list(ctx: Context, req: Request) -> None:
    users, which = _users_and_which(ctx, req.args)
    boards = games.listing(ctx.db, req.game, users, which, MAX_LISTED)
    title = catalogue.title(req.game)
    names = ", ".join(users)
    if not users:
        heading = {"active": _("Running {title} games"),
                   "next": _("{title} games waiting for their move"),
                   "inactive": _("Finished {title} games, newest first")}[which]
    else:
        heading = {"active": _("Running {title} games of {users}"),
                   "next": ngettext("{title} games of {users} waiting for their move",
                                    "{title} games of {users} waiting for them to move", len(users)),
                   "inactive": _("Finished {title} games of {users}, newest first")}[which]
    heading = heading.format(title=wording.name(title), users=names)
    ctx.answer(_("{title} games").format(title=title), "games.j2", heading=heading, lines=[_line(b) for b in boards],
               capped=len(boards) == MAX_LISTED)


def history(ctx: Context, req: Request) -> None:
    users, _which = _users_and_which(ctx, req.args)
    boards = games.history(ctx.db, req.game, users[0] if users else None, MAX_LISTED)
    title = catalogue.title(req.game)
    heading = (_("Finished {title} games of {users}, newest first") if users else
               _("Finished {title} games, newest first")).format(title=wording.name(title),
                                                                 users=users[0] if users else "")
    ctx.answer(_("{title} history").format(title=title), "games.j2", heading=heading,
               lines=[_line(b) for b in boards], capped=len(boards) == MAX_LISTED)


def _line(board: Board) -> str:
    players = f"{board.player1} - {board.player2}"
    if board.status == games.ACTIVE:
        state = _("move {n}, {user} to move").format(n=board.ply + 1, user=board.to_move)
    else:
        state = f"{describe_end(board)} ({(board.finished_at or '')[:10]})"
    line = f"{board.number:>5}  {players:<24} {state}"
    return line if len(line) <= compose.LINE else f"{board.number:>5}  {players}\n{'':7}{state}"


def standings(ctx: Context, req: Request) -> None:
    """Every rating of the game, sure or not."""
    title = catalogue.title(req.game)
    _rating_table(ctx, _("{title} standings").format(title=wording.name(title)), ratings.standings(ctx.db, req.game),
                  sure_only=False)


def rating_list(ctx: Context, req: Request) -> None:
    """`GAME ratings`: the sure ratings only, as Lichess's leaderboards list only rankable ones."""
    title = catalogue.title(req.game)
    _rating_table(ctx, _("{title} ratings").format(title=wording.name(title)),
                  ratings.rating_list(ctx.db, req.game, ctx.now), sure_only=True)


def _rating_table(ctx: Context, heading: str, rows: list[ratings.Rating], sure_only: bool) -> None:
    ctx.answer(heading, "standings.j2", heading=heading, sure_only=sure_only, now=ctx.now, rows=rows,
               start=correspondence.shown(ratings.START), provisional=correspondence.PROVISIONAL,
               sure=correspondence.SURE)


def preview(ctx: Context, req: Request) -> None:
    """`GAME preview BOARD MOVE...`; with `USERID PASSWORD` before the moves and `save` after them,
    the line is kept as the user's note (pbm.commands.games.notebook)."""
    number, _ply = board_number(req.args[0])
    board = find_board(ctx, req.game, number)
    saving = len(req.args) >= 5 and req.args[-1].lower() == "save"
    game, played, outcome = tried(board, board.replay(), req.args[3:-1] if saving else req.args[1:],
                                  _("preview"))
    if saving:
        notebook.save_line(ctx, req, game, board)
        return
    answer_tried(ctx, board, game, _("Preview only, nothing was saved: after {moves} {outcome}.").format(
        moves=" ".join(played), outcome=outcome))


def replay(ctx: Context, req: Request) -> None:
    """`GAME replay BOARD MOVENO [MOVES...]`: the board after move MOVENO, with MOVES tried on it."""
    number = board_number(req.args[0])[0]
    board = find_board(ctx, req.game, number)
    if not req.args[1].isdigit() or int(req.args[1]) > board.ply:
        raise CommandError(_("MOVENO is a number of moves from 0 to {n} (the moves played on {title} "
                             "Board {number} so far); {given} is not one.").format(
            n=board.ply, title=board.title, number=board.number, given=req.args[1]))
    upto = int(req.args[1])
    game, played, outcome = tried(board, board.replay().at(upto), req.args[2:], _("replay"))
    answer_tried(ctx, board, game, (
        _("Replay only, nothing was saved. The position after move {upto} of {n}, then {moves} tried "
          "on it: {outcome}.") if played else
        _("Replay only, nothing was saved. The position after move {upto} of {n}: {outcome}.")).format(
        upto=upto, n=board.ply, moves=" ".join(played), outcome=outcome))


def tried(board: Board, game: rules.Game, moves: list[str], what: str) -> tuple[rules.Game, list[str], str]:
    """`moves` played on `game` (a copy): (it, the moves as played, what the position would be);
    CommandError naming the first move that cannot be played."""
    played = []
    for i, text in enumerate(moves, start=1):
        try:
            game.play(text)
        except rules.RulesError as e:
            raise CommandError((_("Move {i} of the {what} (after {moves}): {why}") if played else
                                _("Move {i} of the {what}: {why}")).format(
                i=i, what=what, moves=" ".join(played), why=wording.refusal(e))) from None
        played.append(notify.played(game.moves[-1], game.notation[-1], notify.last_move_names(game)))
    if game.result != "*":
        winner = {"1-0": "w", "0-1": "b"}.get(game.result)
        outcome = (_("the game would be won by {user} ({why})") if winner
                   else _("the game would be drawn ({why})")).format(
            user=board.player_of(winner) if winner else "",
            why=wording.reason(game.reason or "", board.variant))
    else:
        mover = board.player_of(game.turn)
        outcome = (_("it would be {user}'s turn, and {user} would be in check") if game.in_check()
                   else _("it would be {user}'s turn")).format(user=mover)
    return game, played, outcome


def answer_tried(ctx: Context, board: Board, game: rules.Game, line: str, footer: list[str] = (),
                 reply_to: str | None = None) -> None:
    """The board of `game` (a copy with moves tried on it), headed by `line`, to the sender."""
    values = notify.for_sender(ctx, board, game)
    values.update(status=[], moves="", headline=[line], notes=[], comment=None, footer=list(footer))
    ctx.out.append(compose.answer(ctx.incoming, f"{notify.subject(board)} {_('preview')}",
                                  compose.render("board.j2", **values), root=notify.thread(ctx, board),
                                  reply_to=reply_to, kind="note"))
