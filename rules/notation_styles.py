"""The notations a game reads and writes, by style name, so that a player can choose the one to read
and write moves in.  Each notation lives in its own module; this one says which game has which
(`Variant.notations`) and routes to them.

Styles: `coordinates` (h3e3, every game), `wxf` (C2=5, Xiangqi), `chinese` and `chinese-traditional`
(炮二平五 / 馬8進7, Xiangqi; either character set is read in both), `korean` (08마87, Janggi).
"""
from __future__ import annotations

from rules import notation, notation_chinese, notation_korean
from rules.errors import IllegalMove, NotationError
from rules.position import Move, Position
from rules.said import N_, either, said
from rules.variant import Variant

# How a player is told to write a move in each style (refusals, help).
FORMS = {
    "coordinates": N_("as from-to coordinates such as {coordinates}"),
    "wxf": N_("in WXF such as C2=5 or H8+7"),
    "chinese": N_("in Chinese such as 炮二平五, 马8进7 or 前车进一"),
    "chinese-traditional": N_("in Chinese such as 炮二平五, 馬8進7 or 前車進一"),
    "korean": N_("in Korean notation such as 08마87 (from-point, piece, to-point)"),
}
STYLES = tuple(FORMS)


def notations_of(v: Variant) -> tuple[str, ...]:
    """The styles `v` reads and writes, its records' own (`v.notation`) among them."""
    return v.notations


def check_style(v: Variant, style: str) -> None:
    """Raise NotationError, listing the styles `v` has, unless it has `style`."""
    if style not in v.notations:
        raise NotationError(f"{v.title} has no {style} notation; its notations are "
                            f"{', '.join(v.notations)}")


def write(pos: Position, move: Move, style: str, record: bool = False) -> str:
    """`move`, legal in `pos`, named in `style`; `record`: as the field's programs write and read it
    in a game record (WXF's tandem marks always, notation.wxf_record; notation_chinese.write)."""
    v = pos.t.variant
    check_style(v, style)
    if style == "coordinates":
        return notation.format_move(v, move, pos)
    if style == "wxf":
        return notation.wxf_record(pos, move) if record else notation.wxf(pos, move)
    if style == "korean":
        return notation_korean.write(pos, move)
    return notation_chinese.write(pos, move, style, record)


def reads_as(pos: Position, text: str, style: str) -> bool:
    """Whether `text` has the form of a move in `style` (the piece letters and characters checked,
    not whether the move is legal now: what a premove must be)."""
    v = pos.t.variant
    if style == "coordinates":
        try:
            return notation.parse_move(pos, text) is not None
        except IllegalMove:  # a promotion the piece now there cannot make: readable
            return True
    if style == "wxf":
        return notation.reads_as_wxf(v, text)
    if style == "korean":
        return notation_korean.well_formed(v, text)
    return notation_chinese.parse(text) is not None


def readable(pos: Position, text: str) -> bool:
    """Whether `text` has the form of a move in any style of the game."""
    return any(reads_as(pos, text, style) for style in pos.t.variant.notations)


def read_points(pos: Position, text: str) -> Move | None:
    """The (from, to) move of a text that names points: coordinates, or Korean notation where the game
    has it; not judged (the game judges it and explains a refusal).  None for any other text."""
    move = notation.parse_move(pos, text)
    if move is None and "korean" in pos.t.variant.notations:
        move = notation_korean.read(pos, text)
    return move


def read_names(pos: Position, text: str, legal: list[Move]) -> Move | None:
    """The legal move a text names by its piece: WXF or Chinese, where the game has them.  None for any
    other text; a text of that form that names no legal move, or several, raises."""
    v = pos.t.variant
    if "wxf" in v.notations and (move := notation.parse_wxf(pos, text, legal)) is not None:
        return move
    if "chinese" in v.notations:
        return notation_chinese.read(pos, text, legal)
    return None


def meant(pos: Position, text: str) -> Move | None:
    """The move a text in Chinese notation names, legal or not (see notation_chinese.meant)."""
    return notation_chinese.meant(pos, text) if "chinese" in pos.t.variant.notations else None


def form(v: Variant, style: str) -> str:
    """How to write a move of `v` in `style`, e.g. "in WXF such as C2=5 or H8+7"."""
    move, forms = ("h3e3", "h3-e3, H3-E3, h3xe3") if v.notation == "wxf" else ("b1c3", "b1-c3, B1-C3, b1xc3")
    example = said("{move} (also {forms})", move=move, forms=forms)
    return said(FORMS[style], coordinates=example)


def unreadable(v: Variant, text: str) -> NotationError:
    """The refusal of a text in none of the game's notations, naming the forms it reads."""
    forms = [form(v, s) for s in v.notations if s != "chinese-traditional"]  # "chinese" says it
    if v.passing:
        forms.append("pass" + (f" ({notation_korean.PASS})" if "korean" in v.notations else ""))
    how = either(forms)
    if v.promotion_zone:
        how = said("{how}, with + to promote (e7e8+) or = to decline (e7e8=), or a drop such as P*e5",
                   how=how)
    return NotationError(said("{text} is not a move I can read: write it {how}", text=repr(text.strip()),
                              how=how))
