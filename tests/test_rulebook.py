"""docs/repetition.md prints the numbered rules of rules/rulebook.py; the two must say the same."""
from __future__ import annotations

import re
from pathlib import Path

from rules.rulebook import RULES

DOC = Path(__file__).parent.parent / "docs" / "repetition.md"


def numbered() -> list[tuple[int, str, str, str]]:
    text = DOC.read_text().split("## The rules, numbered", 1)[1].split("\n## ", 1)[0]
    items = re.findall(r"^(\d+)\. \*\*([\w-]+)\*\*: (.+?) \*Source: (.+?)\.\*$",
                       re.sub(r"\n   ", " ", text), re.M)
    return [(int(n), key, body, source) for n, key, body, source in items]


def test_the_doc_lists_every_rule_as_the_table_has_it():
    assert numbered() == [(r.number, r.key, r.text, r.source) for r in RULES]
