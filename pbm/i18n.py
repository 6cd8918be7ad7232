"""The reader's language: gettext catalogs (pbm/locale, kept with Babel: docs/translating.md), the
language and move notation of the mail being written, and the width of a line in a fixed-width font.

Mails are written for one reader at a time, and most of their words are made far from where the
reader is known (a command's refusal, a move's headline shared by every player's mail), so the
reader is a context variable: `speaking(lang, notation)` around the writing of one mail, `_()` and
`ngettext()` translate into it, and `lazy()` puts off writing a text shared by several readers' mails
until each of them is rendered.  Command words stay pbmserv's (ASCII) in every language.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from gettext import NullTranslations
from importlib import resources

from babel.support import LazyProxy, Translations

from rules.said import N_ as N_  # marks a text for the catalogs where it is written

# The preference's value -> the catalog's locale (pbm/locale/<locale>/LC_MESSAGES/pbm.mo).
LANGUAGES = {"en": None, "zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant", "ko": "ko"}
DOMAIN = "pbm"

Reader = tuple[str, str]                # (language, notation)
_reader: ContextVar[Reader | Callable[[], Reader]] = ContextVar("reader", default=("en", "both"))


@cache
def catalog(lang: str) -> NullTranslations:
    """The translations into `lang` (English: none), read once from the installed package."""
    locale = LANGUAGES.get(lang)
    if locale is None:
        return NullTranslations()
    folder = resources.files("pbm") / "locale"
    with resources.as_file(folder) as path:
        return Translations.load(str(path), [locale], DOMAIN)


@contextmanager
def speaking(lang: str | Callable[[], Reader], notation: str = "both") -> Iterator[None]:
    """Write in `lang` (and name moves in `notation`) inside the block.  `lang` may be a function
    that finds out (language, notation) when first needed: many answers are never written."""
    told = _reader.set(lang if callable(lang) else (lang if lang in LANGUAGES else "en", notation))
    try:
        yield
    finally:
        _reader.reset(told)


def _current() -> Reader:
    reader = _reader.get()
    if callable(reader):
        reader = reader()
        _reader.set(reader)                 # found once; `speaking` restores what was before
    return reader


def language() -> str:
    """The language being written."""
    return _current()[0]


def notation() -> str:
    """The reader's notation preference (`both` when no reader is known)."""
    return _current()[1]


def _(message: str) -> str:
    """`message` in the reader's language."""
    return catalog(language()).gettext(message)


def ngettext(singular: str, plural: str, n: float) -> str:
    """The form of `singular`/`plural` for `n`, in the reader's language (an amount such as 1.5
    takes the form of 2: gettext's plural rules count whole numbers)."""
    return catalog(language()).ngettext(singular, plural, int(n) if n == int(n) else 2)


def lazy(write: Callable[[], str]) -> LazyProxy:
    """A text written when shown, in the language of the mail it is shown in."""
    return LazyProxy(write, enable_cache=False)


def from_header(value: str) -> str | None:
    """The language of a Content-Language (or Accept-Language) header, if pbm writes it:
    `zh-TW` -> zh-Hant, `zh-CN`/`zh` -> zh-Hans, `ko-KR` -> ko, `en-GB` -> en; else None."""
    for tag in re.split(r"[,\s]+", value):
        parts = tag.split(";")[0].replace("_", "-").lower().split("-")
        if parts[0] == "zh":
            traditional = {"hant", "tw", "hk", "mo"} & set(parts[1:])
            return "zh-Hant" if traditional else "zh-Hans"
        if parts[0] in ("ko", "en"):
            return parts[0]
    return None


def width(text: str) -> int:
    """Columns `text` takes in a fixed-width font: Chinese and Korean characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in text)


def ljust(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` columns (as str.ljust, counting display width)."""
    return text + " " * max(0, columns - width(text))


# A Chinese line may break between any two characters, never before closing punctuation; Korean,
# like English, breaks between words.
_HAN = "\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff01-\uff60"
_OPENING = "（「『“‘《〈【("
_CLOSING = "，。、；：？！）」』”’》〉】,.;:?!)"
# A no-break space joins two words into one (a command: pbm.outbox.compose); it is kept, and the
# caller turns it back into a space.
_TOKENS = re.compile(rf"[^\S\u00a0]+|[{_OPENING}]*(?:[^\s{_HAN}]|\u00a0)+[{_CLOSING}]*|"
                     rf"[{_OPENING}]*[{_HAN}][{_CLOSING}]*")


def wrap(text: str, columns: int) -> list[str]:
    """`text` in lines of at most `columns` display columns (a word longer than that keeps its line);
    an indented line's continuation keeps its indent."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        indent = paragraph[:len(paragraph) - len(paragraph.lstrip(" "))]   # a quoted line keeps it
        line, glue = indent, ""
        for token in _TOKENS.findall(paragraph[len(indent):]):
            if token.isspace():
                glue = " " if line.strip() else ""
                continue
            if line.strip() and width(line + glue + token) > columns:
                lines.append(line)
                line = indent + token
            else:
                line += glue + token
            glue = ""
        lines.append(line)
    return lines
