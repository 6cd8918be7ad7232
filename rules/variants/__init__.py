"""The registry of games: name -> function building the `Variant` for a set of parameters."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from rules.errors import UnknownVariant
from rules.variant import Variant

# Each game's module (rules/variants/NAME.py, with its `build(params) -> Variant`) is imported when
# the game is first asked for: a process that plays one game does not load the others.
GAMES = ("giqi", "janggi", "padwarqi", "xiangqi")

_cache: dict[tuple, Variant] = {}


def variant_names() -> list[str]:
    return sorted(GAMES)


def get_variant(name: str, params: Mapping[str, str | bool] | None = None) -> Variant:
    """The variant `name` with `params`; the same value for the same arguments (tables are cached on it)."""
    key_name = name.lower()
    if key_name not in GAMES:
        raise UnknownVariant(f"unknown game {name!r}; the games are {', '.join(variant_names())}")
    params = dict(params or {})
    key = (key_name, tuple(sorted((k, str(v)) for k, v in params.items())))
    if key not in _cache:
        _cache[key] = _builder(key_name)(params)
    return _cache[key]


def _builder(name: str) -> Callable[[Mapping[str, str | bool]], Variant]:
    return importlib.import_module(f"rules.variants.{name}").build
