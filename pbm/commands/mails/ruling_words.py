"""A ruling in the reader's words: the cycle's plies one line each, in their notation and language
(`5. h3e3  C2=5  chases the rook on e7 (unprotected)`; `炮二平五  捉7路车（无根）`), the verdict,
and the numbered rule that decides (`Rule 4: ...`, `第4条：...`, `제4조: ...`), from
rules.ruling's data; and the count of a Janggi game decided on points.

A ruling is worked out once per event (`explained`, kept in `board.rendered`) and worded for each
reader.  Lines are wrapped here, with the ply lines' continuation indented under the move.
"""
from __future__ import annotations

import re

import rules
from pbm import i18n
from pbm.commands import wording
from pbm.i18n import _
from pbm.model.play.games import Board
from rules import notation, notation_chinese, notation_styles, ruling
from rules.position import Position
from rules.rulebook import BY_KEY, Rule
from rules.ruling import Chase, Ply, Ruling

COLUMNS = 76


def explained(board: Board, game: rules.Game) -> Ruling | None:
    """The referee's ruling on the game's last position: the game ended by repetition (or, while it
    goes on, the repetition a warning is about).  None where no repetition decided anything."""
    key = ("ruling", len(game.moves), game.result)
    if key not in board.rendered:
        board.rendered[key] = _ruling(game)
    return board.rendered[key]


def _ruling(game: rules.Game) -> Ruling | None:
    if game.variant.repeat_is_illegal:
        return None
    if game.result == "*":
        found = ruling.explain(game, times=2)
        return found if found is not None and found.loser is not None else None
    if re.match(r"perpetual |repetition", game.reason or ""):
        return ruling.explain(game)
    return None


def shown_to(board: Board, game: rules.Game, viewer: str | None) -> Ruling | None:
    """The ruling a mail to `viewer` explains: the one that ended the game, to everyone; the one a
    warning is about, to the player warned."""
    found = explained(board, game)
    if found is None or found.final or viewer == board.player_of("wb"[found.loser]):
        return found
    return None


def cycle(board: Board, game: rules.Game, viewer: str | None) -> tuple[int, int] | None:
    """(moves before the cycle, its plies): what the strip picture of a ruling shows."""
    found = shown_to(board, game, viewer)
    return (found.start, len(found.plies)) if found is not None else None


def rule_line(rule: Rule) -> str:
    """`Rule 4: A side that newly chased ...`, in the reader's language."""
    return _("Rule {number}: {text}").format(number=rule.number, text=_(rule.text))


def lines(board: Board, game: rules.Game, viewer: str | None = None) -> list[str]:
    """What a mail to `viewer` about the game's end (or a warning) says of the ruling, in lines of
    at most COLUMNS: the cycle, the verdict and the rule; for a Janggi game decided on points, the
    count and the rule.  [] for any other."""
    return wrapped(said(board, game, viewer))


def wrapped(found: list[tuple[str, str]]) -> list[str]:
    """`said`'s lines wrapped to COLUMNS."""
    return [line for head, text in found for line in _wrapped(head, text)]


def said(board: Board, game: rules.Game, viewer: str | None = None) -> list[tuple[str, str]]:
    """`lines` unwrapped, as (head, text): a ply's number and move and what it did, else ("", a
    sentence).  The HTML part shows them so, for the reader's window to wrap."""
    found = shown_to(board, game, viewer)
    if found is None:
        return _counted(game)
    shown = game.at(found.start)
    out = [("", _("The cycle that repeated, move by move:") if found.final else
            _("The cycle that would repeat, move by move:"))]
    for ply in found.plies:
        out.append((f"{ply.number}. {_named(shown, ply)}", _label(shown.position, ply)))
        shown.play(notation.format_move(shown.variant, ply.move, shown.position))
    return out + [("", _verdict(board, game, found)), ("", rule_line(found.decides))] + _counted(game)


def _wrapped(head: str, text: str) -> list[str]:
    """A sentence wrapped; a ply's line (`head`: its number and move, `text`: what it did) with
    its text continued under the move, the columns' double spaces kept."""
    if not head:
        return i18n.wrap(text, COLUMNS)
    line = f"{head}  {text}"
    if i18n.width(line) <= COLUMNS:
        return [line]
    first, *rest = i18n.wrap(text, COLUMNS - i18n.width(head) - 2)
    return [f"{head}  {first}"] + ["      " + line for line in rest]


def _named(game: rules.Game, ply: Ply) -> str:
    pos, style = game.position, i18n.notation()
    coord = notation.format_move(game.variant, ply.move, pos)
    if style in game.variant.notations and style != "coordinates":
        return notation_styles.write(pos, ply.move, style)
    if style == "coordinates":
        return coord
    human = notation.human(pos, ply.move)
    return coord if human == coord else f"{coord}  {human}"


def _label(pos: Position, ply: Ply) -> str:
    """What the ply did, in words (the position is the one before it)."""
    pos.push(ply.move)
    try:
        chase = _chase(pos, ply.chases[0]) if ply.chases else ""
        if ply.check:
            return _("check; {chase}").format(chase=chase) if chase else _("check")
        if chase:
            return chase
        if ply.exchange:
            return _("offers an exchange: {piece}").format(piece=piece_at(pos, ply.exchange[1]))
        return _("idle move")
    finally:
        pos.pop()


def _chase(pos: Position, chase: Chase) -> str:
    return _("chases {piece} ({protection})").format(piece=piece_at(pos, chase.victim),
                                                     protection=_protection(pos, chase))


def _protection(pos: Position, chase: Chase) -> str:
    p = chase.protection
    if p.why == ruling.ROOT:
        return _("protected by {piece}, chased all the same: rule {number}").format(
            piece=piece_at(pos, p.by), number=BY_KEY["worth-more"].number)
    if p.why == ruling.PINNED:
        return _("unprotected: its protector, {piece}, is pinned").format(piece=piece_at(pos, p.by))
    if p.why == ruling.SCREEN:
        return _("unprotected: {piece} would lose its screen").format(piece=piece_at(pos, p.by))
    if p.why == ruling.KING:
        return _("unprotected: the general cannot take back onto an attacked point")
    return _("unprotected")


def piece_at(pos: Position, sq: int) -> str:
    """The piece on `sq`: `the rook on e7`; for a reader of Chinese notation, by its file as that
    notation counts it, `7路车`."""
    code = pos.board[sq]
    ptype, side, v = pos.t.piece_type(code), code & 1, pos.t.variant
    style = i18n.notation()
    if style in notation_chinese.SCRIPTS and style in v.notations:
        width = v.width
        n = width - sq % width if side == 0 else sq % width + 1
        number = notation_chinese.RED_FILES[n - 1] if side == 0 else notation_chinese.DIGITS[n - 1]
        return _("{file}-file {piece}").format(
            file=number, piece=notation_chinese.SCRIPTS[style].names[ptype.role][side])
    return _("the {piece} on {square}").format(piece=wording.name(ptype.name),
                                               square=notation.square_name(v, sq))


def _verdict(board: Board, game: rules.Game, found: Ruling) -> str:
    if found.loser is None:
        if found.decides.key == "verdict":
            return _("Verdict: a draw; both sides did the same.")
        return _("Verdict: a draw; neither side checked or chased for ever.")
    side = wording.name(game.side_names[found.loser])
    user = board.player_of("wb"[found.loser])
    if found.victim is None:
        text = (_("Verdict: {side} ({user}) loses by perpetual check.") if found.final else
                _("Verdict: played once more, {side} ({user}) would lose by perpetual check."))
        return text.format(side=side, user=user)
    text = (_("Verdict: {side} ({user}) loses by perpetual chase of {piece}.") if found.final else
            _("Verdict: played once more, {side} ({user}) would lose by perpetual chase of {piece}."))
    return text.format(side=side, user=user, piece=piece_at(game.position, found.victim))


_COUNT = re.compile(r"(?P<why>.+): (?:decided|drawn) on points, (?P<a>\w+) (?P<x>[\d.]+) - "
                    r"(?P<b>\w+) (?P<y>[\d.]+)$")


def _counted(game: rules.Game) -> list[tuple[str, str]]:
    """A Janggi game decided (or drawn) on points: the count and the rules (`초 72 : 한 73.5`); one
    drawn by bikjang: the rule of bikjang."""
    if game.result != "*" and game.reason == "bikjang":
        return [("", rule_line(BY_KEY["bikjang"]))]
    found = _COUNT.match(game.reason or "") if game.result != "*" else None
    if found is None:
        return []
    count = f"{wording.name(found['a'])} {found['x']} : {wording.name(found['b'])} {found['y']}"
    rules_applied = [BY_KEY["bikjang"]] if found["why"] == "bikjang" else []
    return [("", _("Count: {count}").format(count=count))] + \
        [("", rule_line(r)) for r in [*rules_applied, BY_KEY["points"]]]
