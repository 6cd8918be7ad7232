"""The setup choice before the first move: in Janggi each side picks one of four arrangements of
its horses and elephants (docs/games.md).

The rules core knows which games have such a choice, what the choices are, and whether a side may
still make one (`Game.setup` refuses otherwise, saying why); this module is the mail side of it:
the `setup` command and the choice made with a challenge.

Decisions (the spec is silent):
- A player chooses only for their own side.  In a challenge, `-setup=ARR` is the challenger's own
  side (the challenger may be either player); `-cho=ARR` / `-han=ARR`, the rules core's own
  parameters, are accepted for the challenger's side and refused for the opponent's, whose choice
  it is.
- A side may choose, and change its mind, at any time before its own first move, on its turn or
  not; the last choice counts.  Choosing early only shows the opponent one's choice.
- A choice is not a move: the turn, the move numbers and the timers stay as they are.  Both players
  and the observers get the board with the new arrangement, and the game record keeps the choice.
"""
from __future__ import annotations

import rules
from pbm.commands import wording
from pbm.commands.games import turns
from pbm.commands.mails import notify
from pbm.commands.base import CommandError, Context, board_and_user, require_active, require_player
from pbm.commands.parse import Request
from pbm.i18n import _, lazy
from pbm.model.play import games
from pbm.model.play.games import Board
from rules.said import Said
from rules.variant import NOT_A_SETUP, Arrangement


def setup(ctx: Context, req: Request) -> None:
    board, user = board_and_user(ctx, req)
    arrange(ctx, board, user, " ".join(req.args[3:]))      # "left swapped" is a name, too


def arrange(ctx: Context, board: Board, user: str, text: str) -> None:
    """`user` chooses the arrangement `text` for their side of `board`."""
    require_player(board, user)
    require_active(board)
    game = board.replay()
    side = board.turn_of(user)
    before = game.arrangement(side)
    chosen = _choose(game, side, text)
    if chosen == before:
        raise CommandError(_("You already play {setup}; nothing was changed.").format(
            setup=wording.arrangement(chosen, _side_name(game, side))))
    games.set_start(ctx.db, board, game.params, game.start_fen)
    games.add_event(ctx.db, board, "setup", user, chosen.key, ctx.now)
    if turns.consent(ctx, board, user) and board.to_move == user:
        turns.schedule(ctx, board)      # their clock starts now
    games.save(ctx.db, board, ctx.now)
    name = _side_name(game, side)
    notify.board_mails(ctx, board, game, actor=user, headline=[lazy(lambda: _(
        "{user} ({side}) chose {setup}.").format(user=user, side=wording.name(name),
                                                 setup=wording.arrangement(chosen, name)))])
    games.remember(board, game)


def from_challenge(game: rules.Game, challenger_side: str, own: str | bool | None,
                   params: dict) -> list[str]:
    """Apply the challenger's setup choice to a new game: `-setup=ARR`, or the rules core's
    parameter named after the challenger's side (`-cho=ARR`); a choice for the opponent's side is
    refused.  Returns the line that tells the players what was chosen."""
    mine = _side_name(game, challenger_side)
    for name in game.side_names:
        if name != mine and name.lower() in params:
            raise CommandError(_("-{param} chooses {side}'s setup, and {side} is your opponent's side: "
                                 "each player chooses their own, before their first move. Choose yours "
                                 "with -setup=ARRANGEMENT.").format(param=name.lower(),
                                                                    side=wording.name(name)))
    if own is not None and mine.lower() in params:
        raise CommandError(_("-setup and -{param} both choose your setup; give only one of them.").format(
            param=mine.lower()))
    choice = own if own is not None else params.get(mine.lower())
    if choice is None:
        return []
    if choice is True or choice == "":
        raise CommandError(_("-setup needs an arrangement: -setup=ARRANGEMENT (send \"{command}\" for "
                             "the list).").format(command=f"{game.variant.name} help"))
    # chosen through Game.setup even when the rules core took it as a parameter: it checks that
    # the game has the standard start
    arranged = _choose(game, challenger_side, str(choice))
    return [lazy(lambda: _("{side} plays {setup}.").format(side=wording.name(mine),
                                                           setup=wording.arrangement(arranged, mine)))]


def _choose(game: rules.Game, side: str, text: str) -> Arrangement:
    """Set the arrangement on `game` (in place) and return it, or CommandError."""
    try:
        return game.setup(side, text)
    except rules.RulesError as e:
        why = e.args[0] if e.args else None
        if isinstance(why, Said) and why.template == NOT_A_SETUP:   # the list in the reader's words
            raise CommandError(_("{why}.").format(why=_(NOT_A_SETUP).format(
                text=why.values["text"], choices=wording.setups_menu(game.variant.arrangements)))) from None
        raise CommandError(wording.refusal(e)) from None


def _side_name(game: rules.Game, side: str) -> str:
    return game.side_names["wb".index(side)]
