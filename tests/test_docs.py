"""The documentation keeps up with the code, the way sqlite-utils tests its docs: every `pbm`
subcommand, option and action is collected from the real argparse parser and every configuration key
from the real config dataclasses, and each must be documented where a user looks for it
(docs/operating.md, config/pbm.toml).  One test per item, so a failure names what is missing.

The README is the front door: short, the two commands first, and no reference to files a user of the
project does not have (the specification it was built from) or to tickets ("issue 15")."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pbm import config
from pbm.cli import _parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
OPERATING = DOCS / "operating.md"
TOML = ROOT / "config" / "pbm.toml"

README_MAX_LINES = 180
INSTALL_AND_SERVE = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/pbm serve"
TEST = "sh .ci/setup && .venv/bin/python -m pytest -q"


# --- what the code offers -------------------------------------------------------------------------

def _subparsers() -> dict:
    """{name: ArgumentParser} of every `pbm` subcommand, from the parser `pbm` itself uses."""
    return dict(_parser()._subparsers._group_actions[0].choices)


def _words(name: str, sub) -> list[str]:
    """What the section of `pbm NAME` must mention: each option (`--sender`) and each action a
    positional argument chooses from, written as the user types it (`pbm outbox flush`)."""
    words = []
    for action in sub._actions:
        if "-h" in action.option_strings:
            continue
        if action.option_strings:
            words.append(max(action.option_strings, key=len))
        elif action.choices:
            words.extend(f"pbm {name} {choice}" for choice in action.choices)
    return words


def _keys() -> list[tuple[str, str]]:
    """Every (section, key) of the configuration file, from the dataclasses that read it."""
    return [(section, field.name) for section, cls in config.SECTIONS.items()
            for field in dataclasses.fields(cls)]


SUBCOMMANDS = sorted(_subparsers())
WORDS = [(name, word) for name, sub in sorted(_subparsers().items()) for word in _words(name, sub)]
KEYS = _keys()


# --- what the documents say -----------------------------------------------------------------------

HEADING = re.compile(r"^(#{1,6}) +(.+?) *$")


def _sections(path: Path) -> dict[str, str]:
    """{heading without backticks: the text up to the next heading} of a markdown file."""
    sections: dict[str, list[str]] = {}
    current, fenced = "", False
    for line in path.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        match = None if fenced else HEADING.match(line)
        if match:
            current = match.group(2).replace("`", "")
            sections.setdefault(current, [])
        else:
            sections.setdefault(current, []).append(line)
    return {heading: "\n".join(lines) for heading, lines in sections.items()}


def _documented_keys(sections: dict[str, str], section: str) -> set[str]:
    """The keys a `[section]` heading of docs/operating.md describes: its items "- `key` (...)"."""
    return set(re.findall(r"^- `(\w+)`", sections.get(f"[{section}]", ""), flags=re.M))


def _toml_keys() -> dict[str, set[str]]:
    """{section: keys} of config/pbm.toml, where each key is shown (commented out) with its default."""
    keys: dict[str, set[str]] = {}
    section = ""
    for line in TOML.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"^\[(\w+)\]", line):
            section = match.group(1)
            keys.setdefault(section, set())
        elif match := re.match(r"^#? ?(\w+) = ", line):
            keys.setdefault(section, set()).add(match.group(1))
    return keys


# --- every subcommand -----------------------------------------------------------------------------

def test_the_parser_has_subcommands():
    assert {"serve", "deliver", "poll", "outbox", "doctor"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_has_its_section(name):
    sections = _sections(OPERATING)
    assert f"pbm {name}" in sections, f"docs/operating.md has no heading `pbm {name}`"
    assert f"pbm {name}" in sections[f"pbm {name}"], f"the section of pbm {name} never shows it in use"


@pytest.mark.parametrize("name, word", WORDS, ids=[f"{n} {w}" for n, w in WORDS])
def test_every_option_and_action_is_documented_under_its_subcommand(name, word):
    section = _sections(OPERATING).get(f"pbm {name}", "")
    assert word in section, f"docs/operating.md, section `pbm {name}`, does not mention {word}"


def test_the_global_option_is_documented():
    text = OPERATING.read_text(encoding="utf-8")
    assert "--config FILE" in text and "PBM_CONFIG" in text


# --- every configuration key ----------------------------------------------------------------------

@pytest.mark.parametrize("section, key", KEYS, ids=[f"{s}.{k}" for s, k in KEYS])
def test_every_configuration_key_is_documented_under_its_section(section, key):
    assert key in _documented_keys(_sections(OPERATING), section), \
        f"docs/operating.md has no item `{key}` under the heading `[{section}]`"


@pytest.mark.parametrize("section, key", KEYS, ids=[f"{s}.{k}" for s, k in KEYS])
def test_every_configuration_key_is_in_the_example_file(section, key):
    assert key in _toml_keys().get(section, set()), f"config/pbm.toml has no `{key} =` under [{section}]"


@pytest.mark.parametrize("section", sorted(config.SECTIONS))
def test_no_documented_key_is_gone_from_the_code(section):
    known = {field.name for field in dataclasses.fields(config.SECTIONS[section])}
    assert _documented_keys(_sections(OPERATING), section) <= known
    assert _toml_keys().get(section, set()) <= known


# --- the README -----------------------------------------------------------------------------------

def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines, at most {README_MAX_LINES}"


def test_the_readme_starts_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("```sh")
    assert all(not line or line.startswith("# ") for line in lines[:start]), "only the title comes first"
    assert lines[start + 1:start + 4] == [INSTALL_AND_SERVE, TEST, "```"]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST.split(" && ") == [line for line in ci if line.startswith(("sh .ci/", ".venv/"))]


USER_FACING = [README, ROOT / "rules" / "README.md", *sorted(DOCS.glob("*.md"))]
PRIVATE_FILES = re.compile(r"(?<![\w./-])(?:\.\./)?(?:spec|seeds|testdata)/")
TICKET = re.compile(r"\bissues? *#?\d+", re.IGNORECASE)


@pytest.mark.parametrize("path", USER_FACING, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reference_to_files_users_do_not_have(path):
    found = [line for line in path.read_text(encoding="utf-8").splitlines() if PRIVATE_FILES.search(line)]
    assert not found, f"{path.name} points at the specification's files:\n" + "\n".join(found)


@pytest.mark.parametrize("path", USER_FACING, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_numbers(path):
    found = [line for line in path.read_text(encoding="utf-8").splitlines() if TICKET.search(line)]
    assert not found, f"{path.name} names tickets; say why instead:\n" + "\n".join(found)


@pytest.mark.parametrize("path", USER_FACING, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file(path):
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    missing = [t for t in targets if "://" not in t and not (path.parent / t).exists()]
    assert not missing, f"{path.name} links to files that do not exist: {missing}"


def test_the_docs_index_lists_every_document():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in DOCS.iterdir() if p.name != "README.md" and f"]({p.name})" not in index]
    assert not missing, f"docs/README.md does not list {missing}"
