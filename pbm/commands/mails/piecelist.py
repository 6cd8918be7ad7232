"""The position in words, for a reader who cannot see the board: each side's pieces by kind with
their points and the last move, in the reader's language and notation.

A screen reader reads the ASCII board as a stream of letters and dots and cannot read a picture at
all, so every board mail's text part carries this list under the board, the picture's alt text says
the same, and `set USERID PASSWORD board=list` puts it in place of the board and the picture.  Points
are named as the reader's notation names them (rules.named.place): coordinates, Korean digits, or a
Chinese file and line counted from the piece's own side, as its player reads the board."""
from __future__ import annotations

import rules
from rules import named
from rules.said import said
from pbm import i18n
from pbm.commands import wording
from pbm.i18n import _


def sides(game: rules.Game) -> list[str]:
    """One sentence a side: `Red: king e1; advisor d1, f1; ...; soldier a4, c4, e4, g4, i4.`"""
    pos = game.position
    style = i18n.notation()
    order = {p.name: i for i, p in enumerate(game.variant.pieces)}
    lines = []
    for side, side_name in enumerate(game.side_names):
        kinds: dict[str, list[int]] = {}
        for sq in sorted(pos.pieces[side], key=lambda sq: _from_own_edge(game, side, sq)):
            kinds.setdefault(pos.t.piece_type(pos.board[sq]).name, []).append(sq)
        # a promoted kind (Gi-Qi) follows the kinds of the variant's list, by name
        ranked = sorted(kinds, key=lambda kind: (order.get(kind, len(order)), kind))
        groups = [_("{piece} {points}").format(
                      piece=wording.said_in(said(kind, side=side)),
                      points=_(", ").join(named.place(pos, sq, style) for sq in kinds[kind]))
                  for kind in ranked]
        lines.append(_("{side}: {pieces}.").format(side=wording.name(side_name),
                                                   pieces=_("; ").join(groups) or _("no pieces")))
    return lines


def _from_own_edge(game: rules.Game, side: int, sq: int) -> tuple[int, int]:
    """Rank from the side's own edge, then file as the coordinates go (a, b, c...)."""
    v = game.variant
    rank, file = divmod(sq, v.width)
    return (rank, file) if side == 0 else (v.height - 1 - rank, file)


def text(game: rules.Game, last: str) -> list[str]:
    """The whole list: each side's pieces, then `Last move: ...` (`last`: the move in the reader's
    notation, "" before the first).  Whose turn it is and check are the summary's status lines,
    just above it in every mail and page: said once."""
    lines = sides(game)
    if last:
        lines.append(_("Last move: {move}.").format(move=last))
    return lines
