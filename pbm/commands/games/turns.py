"""How a game goes on: recording a move, playing queued premoves, ending a game (and rating it), and
the time limits of the `--options`.

Decisions (the spec is silent):
- A draw offer stands until the opponent answers it or makes a move (a move declines it, as over the
  board); an undo request lapses with any move.  One proposal is pending at a time.
- Premoves: each player has a queue; when it becomes their turn the first queued move is played if
  it is legal then, marked (Auto); if it is not, it and the rest of that player's queue are dropped
  and the player is told in their next game mail.  Taking back moves clears both queues, since
  they were planned for another position.
- Time limits: `--timeout=DAYS` per move (default none, at least `[server] min_timeout_days`): the
  player to move loses on time when it expires -- but the challenged player's clock runs only from
  their consent (their first move or setup choice), so that a challenge cannot make anyone lose.  `--reminder=DAYS` (default 7, 0 = never): the player to move is reminded once per turn;
  with a timeout the reminder comes at half the time limit at the latest.
"""
from __future__ import annotations

from datetime import timedelta

import rules
from pbm import Later, commands, i18n
from pbm.commands import wording
from pbm.commands.games import conditional
from pbm.commands.mails import notify
from pbm.commands.timing import clocks
from pbm.commands.base import CommandError, Context
from pbm.i18n import N_, _, ngettext
from pbm.model.play import conditionals, games
from pbm.model.players import ratings
from pbm.model.db import parse_timestamp, timestamp
from pbm.model.play.games import Board
from pbm.outbox import compose
from rules.board_svg import last_move_squares

OPTIONS = {
    "timeout": N_("days for each move; who takes longer loses (default: none)"),
    "reminder": N_("days until the player to move is reminded (default 7; 0: never)"),
    "clock": N_("days in all, and more after each move (10+1; 10+1/15: never more than 15)"),
}
DEFAULT_REMINDER_DAYS = 7.0
MAX_DAYS = 365.0
# What must follow the end of any game (pbm.commands.ENDED), imported when a game first ends.
ENDED = tuple(Later(path) for path in commands.ENDED)


def parse_options(given: dict[str, str], min_timeout: float) -> dict[str, float | str]:
    """--timeout=3 --reminder=1 -> {"timeout": 3.0, "reminder": 1.0}; --clock=10+1 -> {"clock":
    "10+1"} (pbm.commands.timing.clocks); or CommandError."""
    options: dict[str, float | str] = {}
    if "clock" in given and len(given) > 1:
        raise CommandError(_("--clock goes alone: it replaces --timeout, and has its own reminder (when "
                             "a quarter of the bank or two days are left)."))
    for name, value in given.items():
        if name not in OPTIONS:
            known = ", ".join(f"--{n}={'DAYS' if n != 'clock' else 'BANK+INCREMENT[/CAP]'} ({_(text)})"
                              for n, text in OPTIONS.items())
            raise CommandError(_("--{name} is not a game option. The options are: {known}.").format(
                name=name, known=known))
        if name == "clock":
            options[name] = clocks.parse(value, MAX_DAYS)
            continue
        try:
            days = float(value)
        except ValueError:
            days = -1.0
        if not 0 <= days <= MAX_DAYS or (name == "timeout" and days == 0):
            raise CommandError(_("--{name}={value} is not a number of days: write for example --{name}=3 "
                                 "(or 0.5 for twelve hours), at most {max}.").format(
                name=name, value=value, max=f"{MAX_DAYS:g}"))
        if name == "timeout" and days < min_timeout:
            raise CommandError(ngettext(
                "--timeout={value} is shorter than this server allows: a move may be given at least "
                "{min} day (--timeout={min}).",
                "--timeout={value} is shorter than this server allows: a move may be given at least "
                "{min} days (--timeout={min}).", min_timeout).format(
                value=value, min=compose.number(min_timeout)))
        options[name] = days
    return options


def schedule(ctx: Context, board: Board) -> None:
    """Set the reminder and deadline of the turn that starts now (none once the game is over); the
    clock of a player on vacation stands, with the whole time limit left."""
    board.paused_left = None
    if board.status != games.ACTIVE:
        board.remind_at = board.deadline = None
        return
    timeout = board.options.get("timeout")
    clock_runs = board.accepted or board.to_move == board.challenger
    limit = clocks.turn_time(ctx, board) if "clock" in board.options else \
        timedelta(days=timeout) if timeout else None
    _wind(ctx, board, limit if clock_runs else None)
    if board.to_move in notify.on_vacation(ctx, board):
        pause(ctx, board)


def pause(ctx: Context, board: Board) -> None:
    """Stop the clock of the player to move (on vacation): no deadline, no reminder; the time they
    had left is kept for `resume`."""
    if board.deadline:
        board.paused_left = (parse_timestamp(board.deadline) - ctx.now).total_seconds()
    board.deadline = board.remind_at = None


def resume(ctx: Context, board: Board) -> None:
    """Start the stopped clock of the player to move again, with the time they had left."""
    if board.status == games.ACTIVE:
        left = board.paused_left
        _wind(ctx, board, None if left is None else timedelta(seconds=left))
    board.paused_left = None


def _wind(ctx: Context, board: Board, left: timedelta | None) -> None:
    """Deadline after `left` (None: no time limit), and the reminder due before it."""
    if "clock" in board.options:
        board.deadline = timestamp(ctx.now + left) if left is not None else None
        board.remind_at = clocks.remind_at(ctx, board, left)
        return
    timeout = board.options.get("timeout")
    reminder = board.options.get("reminder", DEFAULT_REMINDER_DAYS)
    if timeout and reminder:
        reminder = min(reminder, timeout / 2)
    board.remind_at = timestamp(ctx.now + timedelta(days=reminder)) if reminder else None
    board.deadline = timestamp(ctx.now + left) if left is not None else None
    if left is not None and board.remind_at and board.remind_at > board.deadline:
        board.remind_at = timestamp(ctx.now + left / 2)


def consent(ctx: Context, board: Board, user: str) -> bool:
    """`user` moved or chose a setup: if they are the challenged player, they have taken up the
    challenge, and the game now counts (rated, if it was to be; both clocks running).  True if
    that happened just now."""
    if board.accepted or user != board.challenged:
        return False
    board.accepted_at = timestamp(ctx.now)
    board.expires_at = None
    return True


def result_for(board: Board, winner: str | None) -> str:
    if winner is None:
        return "1/2-1/2"
    return "1-0" if board.turn_of(winner) == "w" else "0-1"


def finish(ctx: Context, board: Board, winner: str | None, reason: str) -> None:
    """End the game with a result (not saved yet), and rate it."""
    board.status = games.FINISHED
    board.winner, board.reason = winner, reason
    board.result = result_for(board, winner)
    board.finished_at = timestamp(ctx.now)
    board.to_move = board.offer = board.offer_by = board.expires_at = None
    schedule(ctx, board)
    games.clear_premoves(ctx.db, board)
    conditionals.clear(ctx.db, board)
    if board.rated and board.accepted:
        score = 1.0 if winner == board.player1 else 0.0 if winner == board.player2 else 0.5
        ratings.record(ctx.db, board.variant, board.player1, board.player2, score, board.id,
                       board.finished_at)
    _ended(ctx, board)


def end_without_result(ctx: Context, board: Board, status: str, reason: str) -> None:
    """Cancel or decline: no result, no rating (not saved yet)."""
    board.status, board.reason = status, reason
    board.finished_at = timestamp(ctx.now)
    board.to_move = board.offer = board.offer_by = board.expires_at = None
    schedule(ctx, board)
    games.clear_premoves(ctx.db, board)
    conditionals.clear(ctx.db, board)
    _ended(ctx, board)


def _ended(ctx: Context, board: Board) -> None:
    for hook in ENDED:
        hook(ctx, board)


def record_move(ctx: Context, board: Board, game: rules.Game, mover: str, auto: bool,
                headline: list[str], *, foreseen: bool = False) -> None:
    """Store the move just played on `game`; a pending offer the move answers lapses.  `auto`: from
    the queue, or (`foreseen`) from the mover's conditional moves -- which the opponent must not
    learn of, so that one reads only (Auto)."""
    move, notation = game.moves[-1], game.notation[-1]
    clocks.charge(ctx, board, mover, auto)
    games.add_move(ctx.db, board, move, notation, auto, ctx.now)
    consent(ctx, board, mover)
    names, how = notify.last_move_names(game), _how(game, move)
    headline.append(i18n.lazy(lambda: _headline(mover, how, notify.played(move, notation, names),
                                                auto, foreseen)))
    if board.offer == "undo" or (board.offer == "draw" and board.offer_by != mover):
        offer, by = board.offer, board.offer_by
        headline.append(i18n.lazy(lambda: (
            _("{user}'s draw offer lapsed with this move.") if offer == "draw" else
            _("{user}'s request to take back a move lapsed with this move.")).format(user=by)))
        board.offer = board.offer_by = None


def _dropped(queued: str, error: rules.RulesError, dropped: int) -> str:
    """The note to a player whose queued move could not be played."""
    note = _("Your queued move {move} was not played: {why}").format(move=queued,
                                                                      why=wording.refusal(error))
    if dropped:
        note += " " + ngettext("The move queued after it was dropped as well.",
                               "The {n} moves queued after it were dropped as well.", dropped).format(n=dropped)
    return note


def _play_foreseen(ctx: Context, board: Board, game: rules.Game, move: str, waiting: list[str],
                   notes: dict[str, list[str]]) -> bool:
    """Play the conditional move of the player to move on `game`; the queue gives way to it (kept
    when its first move is this one).  False, and the player told, if it is not legal now."""
    owner = board.to_move
    try:
        game.play(move)
    except rules.RulesError as e:
        conditionals.clear(ctx.db, board, owner)
        notes.setdefault(owner, []).append(i18n.lazy(lambda e=e: _(
            "Your conditional move {move} was not played: {why}. Your conditional moves were "
            "dropped.").format(move=move, why=wording.refusal(e))))
        return False
    if waiting and _reads_as(game, waiting[0], move):
        games.pop_premove(ctx.db, board, owner)
    elif waiting:
        games.clear_premoves(ctx.db, board, owner)
        queued = waiting[0]
        notes.setdefault(owner, []).append(i18n.lazy(lambda: _(
            "Your conditional move {move} was played instead of your queued {queued}, so your queue "
            "was cleared.").format(move=move, queued=queued)))
    return True


def _reads_as(game: rules.Game, text: str, move: str) -> bool:
    """Whether `text` (a queued move, in any notation) is `move`, the move just played on `game`."""
    game.undo()
    try:
        same = game.play(text) == move
        game.undo()
    except rules.RulesError:
        same = False
    game.play(move)
    return same



def _how(game: rules.Game, move: str) -> tuple[str, str]:
    """What the last move of `game` did: ("passed"|"castled"|"promoted"|"played", the piece it
    promoted to) -- taken now, since the headline is written later, after the moves that follow."""
    if move == rules.PASS:
        return "passed", ""
    squares = last_move_squares(game.variant, move)
    piece = game.tables.piece_type(game.position.board[squares[-1]])
    width = game.variant.width
    if piece.royal and len(squares) == 2 and squares[0] // width == squares[1] // width \
            and abs(squares[1] - squares[0]) > 1:          # the king two or three files: castling
        return "castled", ""
    if move.endswith("+"):                  # Gi-Qi-Game's promotion (e6e7= declines it)
        return "promoted", piece.name
    return "played", ""


def _headline(mover: str, how: tuple[str, str], named: str, auto: bool, foreseen: bool) -> str:
    """`alice played h3e3 (C2=5).`, `bob castled (e1c1).`, in the reader's language and notation;
    a move from the queue says so, one from the conditional moves only (Auto)."""
    kind, piece = how
    did = {"passed": _("passed"), "castled": _("castled ({move})"),
           "promoted": _("played {move}, promoted to {piece}"), "played": _("played {move}")}[kind]
    did = did.format(move=named, piece=wording.name(piece))
    said = (_("{user} {did} (Auto).") if foreseen else _("{user} {did} from the queue (Auto).") if auto
            else _("{user} {did}."))
    return said.format(user=mover, did=did)


def carry_on(ctx: Context, board: Board, game: rules.Game, headline: list[str],
             notes: dict[str, list[str]]) -> None:
    """After a move: end the game if the rules say so, else play the queued premoves that have
    become due, set the timers, and save."""
    while game.result == "*":
        board.to_move = board.player_of(game.turn)
        ply, tree, waiting = conditionals.plans(ctx.db, board, board.to_move)
        foreseen = conditional.reply(ctx, board, game, board.to_move, ply, tree, notes) if tree else None
        if foreseen is not None:
            if not _play_foreseen(ctx, board, game, foreseen, waiting, notes):
                break
            record_move(ctx, board, game, board.to_move, True, headline, foreseen=True)
            continue
        queued = games.pop_premove(ctx.db, board, board.to_move) if waiting else None
        if queued is None:
            break
        try:
            game.play(queued)
        except rules.RulesError as e:
            dropped = games.clear_premoves(ctx.db, board, board.to_move)
            notes.setdefault(board.to_move, []).append(i18n.lazy(
                lambda queued=queued, e=e, dropped=dropped: _dropped(queued, e, dropped)))
            break
        record_move(ctx, board, game, board.to_move, True, headline)
    if game.result == "*":
        schedule(ctx, board)
        for side, warning in game.warnings:  # "repeating the cycle once more, from h7g7 on, would lose by ..."
            notes.setdefault(board.player_of(side), []).append(i18n.lazy(
                lambda warning=warning: wording.warning(warning)))
    else:
        winner = {"1-0": "w", "0-1": "b"}.get(game.result)
        finish(ctx, board, board.player_of(winner) if winner else None, game.reason or "")
    games.save(ctx.db, board, ctx.now)
