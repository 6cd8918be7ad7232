"""pbm: a play-by-email turn server for Xiangqi and its relatives.

The flow is one-way: mail (intake) -> command -> rules -> store -> outbox -> templates.
"""
from __future__ import annotations

import importlib                        # imported by every interpreter's start (site) already

TYPE_CHECKING = False                   # as in pbm.cli: a handover imports next to nothing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Later:
    """A function named by its module's path and its own name ("pbm.commands.games.queries:show"),
    imported when it is first called: the command table names every verb's handler so, and a process
    loads only the code of what it does (a `pbm deliver` that runs `show` no tournament, review or
    record code; each process is started for one message and pays for every import)."""

    __slots__ = ("path", "_function")

    def __init__(self, path: str):
        self.path = path
        self._function: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return (self._function or self.target())(*args, **kwargs)

    def target(self) -> Callable[..., Any]:
        """The function (or class) itself, imported now (a server loads at its start what a
        reinstall may change)."""
        if self._function is None:
            module, _colon, name = self.path.partition(":")
            self._function = getattr(importlib.import_module(module), name)
        return self._function

    def __repr__(self) -> str:
        return f"Later({self.path!r})"
