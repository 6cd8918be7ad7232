"""Texts for players that remember how they were made, so that a server can say them in another
language: `said("{piece} is blocked at {square}", piece=..., square=...)` is the English text (a
str), and keeps its template and values.  The rules core stays free of catalogs and I/O: the
templates are collected by the catalog tools under this function's name, and a server translates
the template and, in turn, each value that is itself `Said` (pbm.commands.wording.said_in).

A point or move of a board is said in coordinates, with its `names` in the notations a reader may
choose (rules.named): a server says it in the reader's notation where it has a name there."""
from __future__ import annotations


class Said(str):
    """An English text with its `template` and `values`."""

    template: str
    values: dict[str, object]
    names: dict[str, str] = {}      # notation style -> this text in it (rules.named)


def said(template: str, /, **values: object) -> Said:
    """`template` filled with `values` (str.format), remembering both."""
    text = Said(template.format(**values) if values else template)
    text.template, text.values = template, values
    return text


def named(text: str, names: dict[str, str]) -> Said:
    """`text` (a said text, or plain coordinates such as `b1`), with its name in each notation of
    `names` (style -> name)."""
    said_text = text if isinstance(text, Said) else said(text)
    said_text.names = names
    return said_text


def N_(template: str) -> str:
    """Marks a template kept for later `said(template, ...)`, for the catalog tools."""
    return template


def listed(items: list[str]) -> str:
    """`a, b, c`, each joint said (`{a}, {b}`), so that a language joins them its own way (、)."""
    text = items[0] if items else ""
    for item in items[1:]:
        text = said("{a}, {b}", a=text, b=item)
    return text


def either(items: list[str]) -> str:
    """`a`, `a or b`, `a, b or c`, each joint said so that it can be translated too."""
    if len(items) < 2:
        return items[0] if items else ""
    text = items[0]
    for item in items[1:-1]:
        text = said("{a}, {b}", a=text, b=item)
    return said("{a} or {b}", a=text, b=items[-1])
