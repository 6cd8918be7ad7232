"""The registry of games: name -> function building the `Variant` for a set of parameters."""
from __future__ import annotations

from collections.abc import Mapping

from rules.errors import UnknownVariant
from rules.variant import Variant
from rules.variants import giqi, janggi, padwarqi, xiangqi

BUILDERS = {
    "giqi": giqi.build,
    "janggi": janggi.build,
    "padwarqi": padwarqi.build,
    "xiangqi": xiangqi.build,
}

_cache: dict[tuple, Variant] = {}


def variant_names() -> list[str]:
    return sorted(BUILDERS)


def get_variant(name: str, params: Mapping[str, str | bool] | None = None) -> Variant:
    """The variant `name` with `params`; the same value for the same arguments (tables are cached on it)."""
    key_name = name.lower()
    if key_name not in BUILDERS:
        raise UnknownVariant(f"unknown game {name!r}; the games are {', '.join(variant_names())}")
    params = dict(params or {})
    key = (key_name, tuple(sorted((k, str(v)) for k, v in params.items())))
    if key not in _cache:
        _cache[key] = BUILDERS[key_name](params)
    return _cache[key]
