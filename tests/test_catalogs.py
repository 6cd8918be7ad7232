"""The translations of the mails (pbm/locale, docs/translating.md): every message the code and the
templates mark is in every catalog, translated, not fuzzy, with the same placeholders; the compiled
catalogs shipped beside them say the same; and the server reads them."""
from __future__ import annotations

import re
import string

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from support.processes import REPO

from pbm import i18n

LOCALES = [locale for locale in i18n.LANGUAGES.values() if locale]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "said": None}


def _catalog(locale: str, kind: str = "po"):
    path = REPO / "pbm" / "locale" / locale / "LC_MESSAGES" / f"pbm.{kind}"
    with open(path, "rb") as f:
        return read_po(f) if kind == "po" else read_mo(f)


def _extracted() -> set[str | tuple[str, ...]]:
    """What Babel's extractor finds marked in the code and templates, as babel.cfg maps them."""
    with open(REPO / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    return {message for _file, _line, message, _comments, _context in
            extract_from_dir(str(REPO), method_map, options_map, keywords=KEYWORDS)}


def _ids(catalog) -> set[str | tuple[str, ...]]:
    return {message.id for message in catalog if message.id}


def _tupled(value):
    return tuple(value) if isinstance(value, (list, tuple)) else value


def test_every_language_has_a_catalog():
    assert sorted(LOCALES) == sorted(path.name for path in (REPO / "pbm" / "locale").iterdir() if path.is_dir())


@pytest.mark.parametrize("locale", LOCALES)
def test_the_catalog_holds_every_marked_message_and_no_stale_one(locale):
    extracted, held = _extracted(), _ids(_catalog(locale))
    assert not extracted - held, f"not in the {locale} catalog (run the update in docs/translating.md)"
    assert not held - extracted, f"no longer used, still in the {locale} catalog"


@pytest.mark.parametrize("locale", LOCALES)
def test_no_message_is_untranslated_or_fuzzy(locale):
    catalog = _catalog(locale)
    untranslated = [m.id for m in catalog if m.id and (
        not m.string or (isinstance(m.string, tuple) and not all(m.string)))]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert not untranslated and not fuzzy, (untranslated, fuzzy)
    assert not catalog.fuzzy


def _fields(text: str) -> set[str]:
    """The {name} fields of a str.format text (or the %(name)s ones of a %-formatted one)."""
    if "%(" in text:     # a Korean translation may write one as a particle field: {user:로}
        return set(re.findall(r"%\((\w+)\)s", text)) | set(re.findall(r"\{(\w+):\w+\}", text))
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_keep_the_placeholders(locale):
    catalog = _catalog(locale)
    assert not [problem for problem in catalog.check()]
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*map(_fields, ids))
        for text in strings:    # a translation may leave out what it says otherwise (a number
            assert _fields(text) <= wanted, (message.id, text)      # in Chinese, 마 twice in Korean)
            assert len(wanted - _fields(text)) <= 1, (message.id, text)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_compiled_catalog_says_what_the_catalog_says(locale):
    source, compiled = _catalog(locale), _catalog(locale, "mo")
    def table(catalog) -> dict:
        return {_tupled(m.id): _tupled(m.string) for m in catalog if m.id}
    assert table(source) == table(compiled), \
        f"pbm/locale/{locale}/LC_MESSAGES/pbm.mo is stale: compile it (docs/translating.md)"


def test_the_server_reads_each_language():
    for lang, words in (("zh-Hans", "用法："), ("zh-Hant", "用法："), ("ko", "사용법:"), ("en", "Usage:")):
        with i18n.speaking(lang):
            assert i18n._("Usage:") == words
    with i18n.speaking("zh-Hans"):
        assert i18n.ngettext("The move queued after it was dropped as well.",
                             "The {n} moves queued after it were dropped as well.", 3).startswith("其后")



def _column_ends(text: str) -> list[int]:
    """Where each word of a column heading ends, in display columns."""
    return [i18n.width(text[:match.end()]) for match in re.finditer(r"\S+", text)]


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_a_translated_column_heading_keeps_the_columns(lang):
    heading = " Rank  Player           Rating       Games   Won  Lost  Drawn"     # standings.j2
    with i18n.speaking(lang):
        translated = i18n._(heading)
    assert translated != heading
    ends = _column_ends(heading)
    assert _column_ends(translated)[0] == ends[0] and _column_ends(translated)[2:] == ends[2:]


FALLBACKS = re.compile(r"을\(를\)|를\(을\)|이\(가\)|가\(이\)|은\(는\)|는\(은\)|\(으\)로|와\(과\)|과\(와\)")


def _strings(catalog) -> list[tuple[str, str]]:
    return [(message.id, text) for message in catalog if message.id
            for text in (message.string if isinstance(message.string, tuple) else (message.string,))]


def test_the_korean_catalog_leaves_no_particle_to_the_reader():
    """Particles are chosen by the code ({move:을}: pbm.i18n.particle), never written both ways."""
    left = [(msgid, text) for msgid, text in _strings(_catalog("ko")) if FALLBACKS.search(text)]
    assert not left, left


def test_every_particle_field_of_the_korean_catalog_is_formatted():
    """Each `{name:을}` field is one of the particles pbm chooses, and formats (a format spec that
    str.format does not know would be an internal error)."""
    fields = 0
    for msgid, text in _strings(_catalog("ko")):
        for name, spec in re.findall(r"\{(\w+):([^}]*)\}", text):
            assert spec in i18n.PARTICLES, (msgid, text)
            fields += 1
        if not re.search(r"\{\w+:", text):
            continue
        names = re.findall(r"\{(\w+)[:}]|%\((\w+)\)s", text)
        values = {name: "77졸76" for pair in names for name in pair if name}
        formatted = (i18n.Particled(text) % values if "%(" in text else
                     i18n.Particled(text).format(**values))
        assert not re.search(r"\{\w+:", formatted), (msgid, formatted)
    assert fields > 80


# Words of mainland usage that Taiwan writes otherwise (訊息, 預設, 資料夾, 使用者, 單字, 傳送 ...).
MAINLAND = ("信息", "默認", "文件夾", "單詞", "發送", "網絡", "程序", "設置", "鏈接", "郵箱", "登錄",
            "字符", "支持", "服務器", "軟件", "數據", "視頻", "菜單", "緩存", "屏幕", "質量", "賬號", "賬戶")


def test_traditional_chinese_reads_as_taiwan_writes():
    found = [(word, msgid) for msgid, text in _strings(_catalog("zh_Hant")) for word in MAINLAND
             if word in text]
    found += [("用戶", msgid) for msgid, text in _strings(_catalog("zh_Hant"))
              if re.search("用戶(?!端)", text)]
    assert not found, found
