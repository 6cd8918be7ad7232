"""What a reader of a game mail can do next, in the words of the commands: the footer of a board
mail, and an example move of the reader's own side in the notation they read."""
from __future__ import annotations

import rules
from pbm import i18n
from pbm.commands import wording
from pbm.i18n import _
from pbm.model.play import games
from pbm.model.players import accounts
from pbm.model.play.games import Board
from rules import notation, notation_styles
from rules.board_svg import last_move_squares


def reader_styles(variant: rules.Variant) -> tuple[str, ...]:
    """The notations of `variant` a reader may choose beside coordinates and WXF (`chinese`...)."""
    return tuple(s for s in notation_styles.notations_of(variant) if s in accounts.PREFERENCES["notation"]
                 and s not in ("coordinates", "wxf"))


def example_move(board: Board, game: rules.Game, user: str) -> list[str]:
    """A move `user` could make now (or, when it is not their turn, in this position if it were),
    as the game writes moves: coordinates, and WXF too where the game uses it; for a reader of
    another notation (Chinese, Korean) in that notation alone.  An example in a mail should be a move of the reader's own side, not Red's
    opening."""
    probe = game
    side = board.turn_of(user)
    if game.turn != side:
        fields = game.fen().split(" ")
        fields[1] = side
        try:
            probe = rules.Game.new(board.variant, board.params or None, " ".join(fields))
        except rules.RulesError:
            probe = None
    moves = [m for m in probe.legal_moves() if m != rules.PASS] if probe else []
    king = probe.position.kings[probe.position.side] if probe else -1
    # a king's step is a poor example (and a move that looks like one, of a novice's king, worse)
    moves = [m for m in moves if last_move_squares(probe.variant, m)[0] != king] or moves
    if not moves:
        return ["MOVE"]
    move = moves[len(moves) // 2]
    if i18n.notation() in reader_styles(game.variant):
        parsed = notation.parse_move(probe.position, move)
        return [notation_styles.write(probe.position, parsed, i18n.notation())]
    return [move, probe.describe(move)] if game.variant.notation == "wxf" else [move]


def footer(board: Board, game: rules.Game, user: str | None, observing: bool) -> list[str]:
    """What `user` can do next, in the words of the commands (None: any observer, whose mail is
    everyone's: the command names no one)."""
    v, n = board.variant, board.number
    if board.status != games.ACTIVE:
        return []
    if user in board.players:
        answers = _("Other answers: resign, propose (a draw), accept, reject, undo.")
        if board.to_move == user:
            example = _(" or ").join(example_move(board, game, user))
            lines = [_("It is your move: reply to this mail with just the move on the first line\n"
                       "(for example {example}), or send the subject:").format(example=example),
                     f"  {v} move {n} {user} PASSWORD MOVE#{board.ply + 1}"]
            if board.deadline:
                lines.append(_("Move by {time} UTC or lose on time.").format(time=board.deadline[:16]))
            if game.variant.passing and rules.PASS in game.legal_moves():   # listing is not free
                answers = _("Other answers: resign, propose (a draw), accept, reject, undo, pass.")
        else:
            lines = [_("To queue your next move, reply to this mail with: queue MOVE")]
        lines.append(answers)
        if game.may_setup(board.turn_of(user)):
            mine = wording.named(game.arrangement(board.turn_of(user)))
            lines.append(_("Before your first move you may choose your setup (now: {mine}): answer\n"
                           "with setup ARRANGEMENT; \"{game} help\" lists them.").format(mine=mine, game=v))
        return lines
    if not observing:
        return []
    return [_("You observe this game; to stop, send: {command}").format(
        command=f"{v} unsubscribe {n} {user or 'USERID'} PASSWORD")]
