"""Game commands of the players: challenge, move (and the in-game verbs), resign, queue, chat,
subscribe, unsubscribe -- and the same verbs when they come as a reply to a game mail's token.

Decisions (the spec is silent): the player who sends `-fen` or `-unrated` gets an unrated game (a
set-up position says nothing about strength); USER1 plays the side to move in the FEN.  A
challenge costs the challenged player nothing until they consent by their first move or setup
choice: until then their clock does not run, the game is not rated,
and a resignation by either player ends it without a result -- the challenged player declines, the
challenger withdraws.  A declined or withdrawn game keeps its row, marked declined, so that the
board number is never given to another game, but it is hidden from every list and rating.  A
challenge not taken up within `[server] challenge_days` lapses (pbm.commands.timing.timers).
"""
from __future__ import annotations

from datetime import timedelta

import rules
from pbm import Later, catalogue
from pbm.commands import wording
from pbm.commands.accounts import flood
from pbm.commands.games import conditional, setups, turns
from pbm.commands.mails import movelist, notify
from pbm.commands.timing import timeouts
from pbm.commands.base import (
    CommandError,
    Context,
    authenticate,
    board_and_user,
    require_active,
    require_player,
)
from pbm.commands.parse import Request
from pbm.i18n import N_, _, lazy, ngettext
from pbm.model.play import games
from pbm.model.players import accounts
from pbm.model.db import timestamp
from pbm.model.play.games import Board

MAX_QUEUE = 10
# What challenge takes besides the rules core's own parameters (as shown in help and errors).
SERVER_PARAMS = {"fen=FEN": N_("start from this position"),
                 "unrated": N_("the game does not count for the ratings"),
                 "setup=ARRANGEMENT": N_("your own setup, where the game has a choice (Janggi)"),
                 "record": N_("start after the record attached to a challenge")}
# A challenge's -record (pbm.commands.games.imports), loaded by the challenge that has one: a move
# loads no record readers.
IMPORTED_POSITION = Later("pbm.commands.games.imports:position")
IMPORTED_STARTED = Later("pbm.commands.games.imports:started")


def challenge(ctx: Context, req: Request) -> None:
    variant, title = req.game, catalogue.title(req.game)
    first, second = (word.lower() for word in req.args[:2])
    for user in (first, second):
        account = accounts.get(ctx.db, user)
        if account is None or account.closed:
            raise CommandError(_("There is no user {user} here; both players must be signed up (signup "
                                 "USERID PASSWORD).").format(user=user))
    if first == second:
        raise CommandError(_("A player cannot challenge themselves: name two different users."))
    challenger = next((u for u in (first, second)
                       if accounts.owns_address(ctx.db, u, ctx.incoming.standing)), None)
    if challenger is None:
        raise CommandError(_("A challenge is accepted only from a mail address registered to {first} or "
                             "{second}, and {address} is not. Send it from such an address, or add this "
                             "one: change address USERID PASSWORD ADDRESS...").format(
            first=first, second=second, address=ctx.incoming.sender))
    if len(req.args) == 3:
        authenticate(ctx, challenger, req.args[2])
    elif ctx.config.server.challenge_needs_password:
        raise CommandError(_("This server needs the challenger's password in a challenge: {command} (the "
                             "password of {user}, who is writing).").format(
            command=f"{variant} challenge {first} {second} PASSWORD", user=challenger))
    flood.check(ctx, variant, challenger, second if challenger == first else first)
    options = turns.parse_options(req.options, ctx.config.server.min_timeout_days)
    params, imported = dict(req.params), []
    if "record" in params:                  # the position after a record's moves, as a -fen
        if "fen" in params:
            raise CommandError(_("-record and -fen both give the start: write one of them."))
        params["fen"], count = IMPORTED_POSITION(ctx, variant, params.pop("record"))
        imported.append(lazy(lambda: IMPORTED_STARTED(count)))
    board, game, chosen = start(ctx, variant, params, options, first, second, challenger,
                                expires_at=timestamp(ctx.now + timedelta(days=ctx.config.server.challenge_days)))
    games.add_event(ctx.db, board, "challenge", challenger, req.mask(" ".join(req.tokens[2:])), ctx.now)
    opponent = board.opponent(challenger)
    lapses = board.expires_at[:16]
    headline = [lazy(lambda: _(
        "{challenger} has started a game of {title} with {opponent}. It counts for {opponent} only "
        "from their first move: until then their clock does not run, the game is not rated, and "
        "they may decline it by resigning. If {opponent} does not move by {time} UTC, the "
        "challenge lapses.").format(challenger=challenger, title=wording.name(title), opponent=opponent,
                                    time=lapses)), *imported]
    announce(ctx, board, game, challenger, headline, chosen)
    flood.started(ctx)


def opening(variant: str, params: dict) -> tuple[rules.Game, dict, str | None, bool, str | None]:
    """The start of a game from a challenge's -parameters (a CommandError if they are wrong):
    (game, the rules core's parameters, -fen, -unrated, -setup)."""
    params = dict(params)
    fen = params.pop("fen", None)
    unrated = params.pop("unrated", False)
    own_setup = params.pop("setup", None)
    if fen is True or fen == "":
        raise CommandError(_("-fen needs a position: -fen=FEN with the FEN's spaces written as _ (or "
                             "the placement alone)."))
    if fen is not None:
        fen = fen.replace("_", " ")
    try:
        game = rules.Game.new(variant, params or None, fen)
    except rules.FenError as e:
        raise CommandError("-fen: " + wording.refusal(e)) from None
    except rules.RulesError as e:
        ours = ", ".join(f"-{name} ({_(text)})" for name, text in SERVER_PARAMS.items())
        raise CommandError(wording.refusal(e) + " " + _("Parameters every game takes: {params}.").format(
            params=ours)) from None
    if game.result != "*":
        raise CommandError(_("That position is already decided ({result}, {why}); start from a position "
                             "where the game is still open.").format(result=game.result,
                                                                     why=wording.reason(game.reason or "", variant)))
    return game, params, fen, unrated is not False, own_setup


def start(ctx: Context, variant: str, params: dict, options: dict, first: str, second: str,
          challenger: str, *, expires_at: str | None, rated: bool = True
          ) -> tuple[Board, rules.Game, list[str]]:
    """Create the game `challenger` asked for (saved; consent still to come unless `expires_at`
    is None); returns it, its rules.Game and the lines that describe the setup chosen."""
    game, core_params, fen, unrated, own_setup = opening(variant, params)
    challenger_side = game.turn if challenger == first else "bw"["wb".index(game.turn)]
    chosen = setups.from_challenge(game, challenger_side, own_setup, core_params)
    board = games.create(ctx.db, variant, first, second, game.params, options, game.start_fen,
                         rated=rated and fen is None and not unrated, now=ctx.now, challenger=challenger,
                         expires_at=expires_at)
    if expires_at is None:
        board.accepted_at = timestamp(ctx.now)
    ctx.board = board
    turns.schedule(ctx, board)
    games.save(ctx.db, board, ctx.now)
    return board, game, chosen


def announce(ctx: Context, board: Board, game: rules.Game, actor: str, headline: list[str],
             chosen: list[str]) -> None:
    """The first mails of a new game: `headline`, its parameters, setup and whether it is rated."""
    terms = [f"-{name}" if value is True else f"-{name}={value}" for name, value in board.params.items()
             if name not in {side.lower() for side in game.side_names}]     # those are in `chosen`
    if terms:
        headline.append(lazy(lambda: _("Parameters: {terms}.").format(terms=" ".join(terms))))
    headline += chosen
    if not board.rated:
        headline.append(lazy(lambda: _("The game is not rated.")))
    notify.board_mails(ctx, board, game, actor=actor, headline=headline, new=True)


def move(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    act(ctx, board, user, req.args[3])


def resign(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    act(ctx, board, user, "resign")


def act(ctx: Context, board: Board, user: str, text: str) -> None:
    """What a player sends in the place of MOVE: a move or one of the in-game verbs."""
    require_player(board, user)
    require_active(board)
    in_turn(ctx, board)
    if timeouts.settle(ctx, board, late=text):     # the time ran out before this arrived
        return
    verb = IN_GAME.get(text.lower())
    if verb:
        verb(ctx, board, user)
    else:
        play(ctx, board, user, text)


def in_turn(ctx: Context, board: Board) -> None:
    """A move is never timed before its turn began: a forged `Received:` line may date a mail back
    (pbm.intake bounds it by `[clocks] max_hold`), never into the opponent's time."""
    ctx.now = max(ctx.now, board.turn_began())


def play(ctx: Context, board: Board, user: str, text: str) -> None:
    in_turn(ctx, board)
    move_text, sep, number = text.partition("#")
    if board.to_move != user:
        # answered as it was sent: a reply to a game mail queues with a reply's word
        replied = ctx.incoming is not None and ctx.incoming.token is not None
        raise CommandError(_("It is not your move on {title} Board {number}: it is {user}'s turn. "
                             "To have a move played as soon as it is your turn, queue it: {command}")
                           .format(title=board.title, number=board.number, user=board.to_move,
                                   command=f"queue {move_text}" if replied else
                                   f"{board.variant} queue {board.number} {user} PASSWORD {move_text}"))
    if sep and (not number.isdigit() or int(number) != board.ply + 1):
        raise CommandError(_("Your move {move} was received as move #{number}, but the next move on "
                             "{title} Board {board} is #{next}: the game is not where you thought. "
                             "Look at it (send: {command}) and send your move again.").format(
            move=move_text, number=number, title=board.title, board=board.number, next=board.ply + 1,
            command=f"{board.variant} show {board.number}"))
    game = board.replay()
    try:
        game.play(move_text)
    except rules.RulesError as e:
        raise CommandError(wording.refusal(e)) from None
    headline: list[str] = []
    notes: dict[str, list[str]] = {}
    turns.record_move(ctx, board, game, user, False, headline)
    turns.carry_on(ctx, board, game, headline, notes)
    notify.board_mails(ctx, board, game, actor=user, headline=headline, notes=notes)
    games.remember(board, game)


def _resign(ctx: Context, board: Board, user: str) -> None:
    game = board.replay()
    if not board.accepted:
        did, done = ("declined", "declined") if user == board.challenged else ("withdrew", "withdrawn")
        turns.end_without_result(ctx, board, games.DECLINED, f"{user} {did} the challenge")
        headline = [lazy(lambda: (_("{user} has declined the challenge; the game does not count.")
                                  if done == "declined" else
                                  _("{user} has withdrawn the challenge; the game does not count."))
                         .format(user=user))]
    else:
        turns.finish(ctx, board, board.opponent(user), f"{user} resigned")
        headline = [lazy(lambda: _("{user} has resigned.").format(user=user))]
    games.add_event(ctx.db, board, "resign", user, "", ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, game, actor=user, headline=headline)


def _propose(ctx: Context, board: Board, user: str) -> None:
    if board.offer == "draw" and board.offer_by != user:
        _agree_draw(ctx, board, user)       # both want a draw
        return
    _may_offer(board, user, "draw")
    board.offer, board.offer_by = "draw", user
    opponent = board.opponent(user)
    _offer_made(ctx, board, user, lazy(lambda: _(
        "{user} proposes a draw. {opponent} may accept or reject it; a move rejects it too.").format(
        user=user, opponent=opponent)), lazy(lambda: _(
        "You proposed a draw; {opponent} may accept or reject it (a move rejects it too).").format(
        opponent=opponent)))


def _undo(ctx: Context, board: Board, user: str) -> None:
    plies = _undo_plies(board, user)
    if plies == 0:
        raise CommandError(_("You have made no move yet, so there is nothing of yours to take back."))
    _may_offer(board, user, "undo")
    taken = " ".join(m.move for m in board.moves[-plies:])
    game, before = board.replay(), board.ply - plies
    board.offer, board.offer_by = "undo", user
    opponent = board.opponent(user)
    _offer_made(ctx, board, user, lazy(lambda: _(
        "{user} asks to take back {moves}. {opponent} may accept or reject it.").format(
        user=user, moves=movelist.moves_named(game, before, taken), opponent=opponent)), lazy(lambda: _(
        "You asked to take back {moves}; {opponent} may accept or reject it.").format(
        moves=movelist.moves_named(game, before, taken), opponent=opponent)))


def _may_offer(board: Board, user: str, kind: str) -> None:
    """One proposal at a time: the opponent's must be answered first; one's own is replaced."""
    if board.offer and board.offer_by != user:
        raise CommandError((_("{user}'s draw offer is pending: accept or reject it first.")
                            if board.offer == "draw" else
                            _("{user}'s request to take back a move is pending: accept or reject it "
                              "first.")).format(user=board.offer_by))
    if board.offer == kind:
        raise CommandError((_("Your draw offer is already pending; {user} has not answered it yet.")
                            if kind == "draw" else
                            _("Your request to take back a move is already pending; {user} has not "
                              "answered it yet.")).format(user=board.opponent(user)))


def _undo_plies(board: Board, user: str) -> int:
    """How many plies take back `user`'s last move (with the opponent's answer to it, if any).
    player1 made the odd-numbered moves, player2 the even-numbered ones."""
    parity = 1 if user == board.player1 else 0
    for back in (1, 2):
        last = board.ply - back + 1
        if last >= 1 and last % 2 == parity:
            return back
    return 0


def _offer_made(ctx: Context, board: Board, user: str, line: object, own: object) -> None:
    """Tell everyone of the offer (`line`), and its maker what they asked (`own`)."""
    games.add_event(ctx.db, board, f"{board.offer}-offer", user, "", ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, board.replay(), actor=user, headline=[line], own=[own])


def _accept(ctx: Context, board: Board, user: str) -> None:
    _pending_for(board, user, "accept")
    if board.offer == "draw":
        _agree_draw(ctx, board, user)
        return
    plies = _undo_plies(board, board.offer_by)
    taken = " ".join(m.move for m in board.moves[-plies:])
    asker, played = board.offer_by, board.replay()
    games.take_back(ctx.db, board, plies)
    games.clear_premoves(ctx.db, board)
    notes = conditional.drop(ctx, board, taken)
    board.offer = board.offer_by = None
    game = board.replay()
    board.to_move = board.player_of(game.turn)
    turns.schedule(ctx, board)
    games.add_event(ctx.db, board, "undo", user, taken, ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, game, actor=user, notes=notes, headline=[lazy(lambda: _(
        "{user} agreed to take back {moves} at {asker}'s request. Queued moves were cleared.").format(
        user=user, moves=movelist.moves_named(played, board.ply, taken), asker=asker))])


def _agree_draw(ctx: Context, board: Board, user: str) -> None:
    proposer = board.offer_by
    turns.finish(ctx, board, None, "by agreement")
    games.add_event(ctx.db, board, "draw-agreed", user, "", ctx.now)
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, board.replay(), actor=user,
                       headline=[lazy(lambda: _("{user} accepted {proposer}'s draw offer.").format(
                           user=user, proposer=proposer))])


def _reject(ctx: Context, board: Board, user: str) -> None:
    _pending_for(board, user, "reject")
    draw = board.offer == "draw"
    proposer = board.offer_by
    games.add_event(ctx.db, board, f"{board.offer}-rejected", user, "", ctx.now)
    board.offer = board.offer_by = None
    games.save(ctx.db, board, ctx.now)
    notify.board_mails(ctx, board, board.replay(), actor=user,
                       headline=[lazy(lambda: (_("{user} rejected {proposer}'s draw offer.") if draw else
                                               _("{user} rejected {proposer}'s request to take back a "
                                                 "move.")).format(user=user, proposer=proposer))])


def _pending_for(board: Board, user: str, verb: str) -> None:
    if board.offer is None:
        raise CommandError(_("There is nothing to {verb}: no draw offer or request to take back a "
                             "move is pending on {title} Board {number}.").format(
            verb=verb, title=board.title, number=board.number))
    if board.offer_by == user:
        raise CommandError(_("You cannot {verb} your own proposal; {user} must answer it.").format(
            verb=verb, user=board.opponent(user)))


IN_GAME = {"resign": _resign, "propose": _propose, "accept": _accept, "reject": _reject, "undo": _undo}


def queue(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    enqueue(ctx, board, user, req.args[3])


def enqueue(ctx: Context, board: Board, user: str, text: str) -> None:
    require_player(board, user)
    require_active(board)
    if text.lower() == "clear":
        dropped = games.clear_premoves(ctx.db, board, user)
        _queue_answer(ctx, board, user, ngettext(
            "Your queue on {title} Board {number} is empty now ({n} move dropped).",
            "Your queue on {title} Board {number} is empty now ({n} moves dropped).", dropped).format(
            title=board.title, number=board.number, n=dropped))
        return
    if "#" in text or text.lower() in IN_GAME:
        raise CommandError(_("Only moves can be queued, without #N: for example queue h2e2. ({text} is "
                             "not one.)").format(text=text))
    if board.to_move == user:       # nothing to wait for: it is a move
        play(ctx, board, user, text)
        return
    try:
        board.replay().check_notation(text)     # unreadable now is unreadable then: say so now
    except rules.RulesError as e:
        raise CommandError(wording.refusal(e)) from None
    waiting = games.premoves(ctx.db, board, user)
    if len(waiting) >= MAX_QUEUE:
        raise CommandError(_("Your queue already holds {n} moves ({moves}); clear it with: queue "
                             "clear").format(n=MAX_QUEUE, moves=" ".join(waiting)))
    games.add_premove(ctx.db, board, user, text, ctx.now)
    line = " ".join([*waiting, text])
    _queue_answer(ctx, board, user, _(
        "Queued {move} on {title} Board {number}: it is played when it is your turn, if it is legal "
        "then (otherwise you are told, and the queue is cleared). Your queue: {queue}").format(
        move=text, title=board.title, number=board.number, queue=line))


def _queue_answer(ctx: Context, board: Board, user: str, line: str) -> None:
    ctx.out.append(notify.answer(ctx, board, line))


def chat(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    observers = games.observers(ctx.db, board)
    if user not in board.players and user not in observers:
        raise CommandError(_("Only the players and observers of {title} Board {number} can chat there; "
                             "to observe it, send: {command}").format(
            title=board.title, number=board.number,
            command=f"{board.variant} subscribe {board.number} {user} PASSWORD"))
    text = ctx.publish(ctx.comment)
    if not text:
        raise CommandError(_("chat sends the body of your mail to the players and observers, and the "
                             "body was empty: write your message in the body."))
    say(ctx, board, user, text, observers)


def say(ctx: Context, board: Board, user: str, text: str, observers: list[str] | None = None) -> None:
    """Send `text` from `user` to the other players and observers of `board`, and confirm it."""
    if observers is None:
        observers = games.observers(ctx.db, board)
    others = [u for u in dict.fromkeys([*board.players, *observers]) if u != user]
    sent = notify.chat(ctx, board, user, text, others)
    games.add_event(ctx.db, board, "chat", user, text, ctx.now)
    ctx.out.append(notify.answer(ctx, board, _("Your message was sent to {users}.").format(
        users=", ".join(sent)) if sent else _("Your message was sent to nobody.")))


def subscribe(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    if user in board.players:
        raise CommandError(_("You play on {title} Board {number}, so you get its mail anyway.").format(
            title=board.title, number=board.number))
    if not games.add_observer(ctx.db, board, user, ctx.now):
        raise CommandError(_("You already observe {title} Board {number}.").format(
            title=board.title, number=board.number))
    notify.board_mails(ctx, board, board.replay(), actor=user, recipients=[], headline=[lazy(lambda: _(
        "You now observe {title} Board {number}: you will get a mail after every move.").format(
        title=board.title, number=board.number))])


def unsubscribe(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    if not games.remove_observer(ctx.db, board, user):
        raise CommandError(_("You do not observe {title} Board {number}, so there is nothing to "
                             "stop.").format(title=board.title, number=board.number))
    ctx.out.append(notify.answer(ctx, board, _("You no longer observe {title} Board {number}.").format(
        title=board.title, number=board.number)))
