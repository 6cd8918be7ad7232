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
import string
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from pbm import Later
from rules.said import N_ as N_  # marks a text for the catalogs where it is written

TYPE_CHECKING = False                   # as in pbm.cli
if TYPE_CHECKING:
    from babel.support import LazyProxy

# The preference's value -> the catalog's locale (pbm/locale/<locale>/LC_MESSAGES/pbm.mo).
LANGUAGES = {"en": None, "zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant", "ko": "ko"}
DOMAIN = "pbm"
LOCALE = Path(__file__).parent / "locale"     # the package's own folder: pip installs it as files
# Babel's catalogs and lazy texts, loaded by the first translation read or lazy text made: a mail in
# English needs no catalog, and Babel brings decimal, zoneinfo and its locale data.
_TRANSLATIONS = Later("babel.support:Translations")
_LAZY_PROXY = Later("babel.support:LazyProxy")

Reader = tuple[str, str]                # (language, notation)
_reader: ContextVar[Reader | Callable[[], Reader]] = ContextVar("reader", default=("en", "both"))


@cache
def catalog(lang: str) -> NullTranslations:
    """The translations into `lang` (English: none), read once from the installed package."""
    locale = LANGUAGES.get(lang)
    if locale is None:
        return NullTranslations()
    return _TRANSLATIONS.target().load(str(LOCALE), [locale], DOMAIN)


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
    return _particled(catalog(language()).gettext(message))


def ngettext(singular: str, plural: str, n: float) -> str:
    """The form of `singular`/`plural` for `n`, in the reader's language (an amount such as 1.5
    takes the form of 2: gettext's plural rules count whole numbers)."""
    return _particled(catalog(language()).ngettext(singular, plural, int(n) if n == int(n) else 2))


def lazy(write: Callable[[], str]) -> LazyProxy:
    """A text written when shown, in the language of the mail it is shown in."""
    return _LAZY_PROXY(write, enable_cache=False)


# --- Korean particles ------------------------------------------------------------------------------
# A Korean particle's form depends on the sound the word before it ends in: 은/는, 이/가, 을/를,
# 과/와 take the first form after a final consonant (받침), (으)로 takes 으로 after a consonant other
# than ㄹ.  A translation writes the particle as its placeholder's format spec, `{move:을}` (either
# form: `{move:를}` is the same), and the text is formatted with the form that fits the value:
# `77졸76을`, `h2e2를`.  A template's message may write `{user:로}` for its `%(user)s`.
PARTICLES = {form: pair for pair in (("은", "는"), ("이", "가"), ("을", "를"), ("과", "와"),
                                     ("으로", "로")) for form in pair}
# How a value's last character is read (docs/translating.md): a digit as Sino-Korean (영 일 이 삼 사 오
# 육 칠 팔 구; a number ending in 0 as 십, 백, 천, 만, or 영 alone: a consonant), a Latin letter by its
# Korean name (L 엘 and R 알 end in ㄹ, M 엠 and N 엔 in another consonant, the rest in a vowel).
# "r": ends in ㄹ; "c": in another consonant; "": in a vowel.
_DIGITS = dict(zip("0123456789", ("c", "r", "", "c", "", "", "c", "r", "r", "")))
_LETTERS = {"l": "r", "r": "r", "m": "c", "n": "c"}


def final(text: str) -> str:
    """How `text` ends when read aloud in Korean: "r" (ㄹ), "c" (another final consonant) or ""
    (a vowel).  Punctuation, brackets and symbols at its end are not read (`g1a7+` ends in 7);
    anything else unknown (Hanja, nothing at all) reads as a vowel."""
    if re.search(r"[a-z]ng\W*$", text, re.IGNORECASE):
        return "c"                      # a romanized name ending in ㅇ: kang, jung, young
    for char in reversed(text):
        if "가" <= char <= "힣":
            jong = (ord(char) - ord("가")) % 28
            return "" if jong == 0 else "r" if jong == 8 else "c"
        if char.isascii() and char.isdigit():
            return _DIGITS[char]
        if char.isascii() and char.isalpha():
            return _LETTERS.get(char.lower(), "")
        if char.isalnum():
            return ""
    return ""


def particle(text: str, form: str) -> str:
    """The form of the particle `form` (either of its forms: 을 or 를) that follows `text`."""
    after_consonant, after_vowel = PARTICLES[form]
    ending = final(text)
    if after_consonant == "으로":
        return after_vowel if ending in ("", "r") else after_consonant
    return after_consonant if ending else after_vowel


class _ParticleFormatter(string.Formatter):
    def format_field(self, value: object, format_spec: str) -> str:
        if format_spec in PARTICLES:
            text = format(value, "")
            return text + particle(text, format_spec)
        return super().format_field(value, format_spec)


_FORMATTER = _ParticleFormatter()
_PARTICLE_FIELD = re.compile(r"\{(\w+):(" + "|".join(PARTICLES) + r")\}")


class Particled(str):
    """A translation that writes particles as format specs (`{move:을}`): `format`, `format_map` and
    `%` (a template's message) put in the particle's form that fits each value."""

    def format(self, *args: object, **kwargs: object) -> str:
        return _FORMATTER.vformat(self, args, kwargs)

    def format_map(self, mapping: Mapping[str, object]) -> str:
        return _FORMATTER.vformat(self, (), mapping)

    def __mod__(self, values: object) -> str:
        text = str.__mod__(self, values)
        if not isinstance(values, Mapping):
            return text
        return _PARTICLE_FIELD.sub(lambda m: _FORMATTER.format_field(values[m[1]], m[2]), text)


def _particled(text: str) -> str:
    return Particled(text) if ":" in text and _PARTICLE_FIELD.search(text) else text


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
# A move in Chinese notation (炮二平五, 马3进5, 前车进一) is one word: a copied half is refused.
_CHINESE_MOVE = r"[\u4e00-\u9fff]{2}[进進退平][一二三四五六七八九1-9]|[\u4e00-\u9fff][1-9][进進退平][1-9]"
# So is a point named by its file and line (帅五路第一线, 将5路第1线: pbm.commands.mails.piecelist).
_CHINESE_POINT = r"[\u4e00-\u9fff]?[一二三四五六七八九十\d]{1,2}路第[一二三四五六七八九十\d]{1,2}[线線]"


@cache
def _tokens() -> re.Pattern[str]:
    """What `wrap` breaks a line into, compiled at its first use: its classes of Chinese characters
    take milliseconds to compile, and a mail in English is wrapped without it (pbm.outbox.compose)."""
    return re.compile(rf"[^\S\u00a0]+|[{_OPENING}]*(?:{_CHINESE_POINT})[{_CLOSING}]*|"
                      rf"[{_OPENING}]*(?:[^\s{_HAN}]|\u00a0)+[{_CLOSING}]*|"
                      rf"[{_OPENING}]*(?:{_CHINESE_MOVE})[{_CLOSING}]*|"
                      rf"[{_OPENING}]*[{_HAN}][{_CLOSING}]*")


def wrap(text: str, columns: int) -> list[str]:
    """`text` in lines of at most `columns` display columns (a word longer than that keeps its line);
    an indented line's continuation keeps its indent."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        indent = paragraph[:len(paragraph) - len(paragraph.lstrip(" "))]   # a quoted line keeps it
        line, glue = indent, ""
        for token in _tokens().findall(paragraph[len(indent):]):
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
