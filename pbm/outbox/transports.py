"""What a transport is (the Maildir, pbm.outbox.maildir, or an SMTP relay, pbm.outbox.relay) and
the two ways it can fail, in one place that both transports and the sender import."""
from __future__ import annotations

from typing import Protocol


class Transport(Protocol):
    """Where replies go: the Maildir (below) or an SMTP relay (pbm.outbox.relay)."""

    idempotent: bool                    # sending a row twice leaves one copy

    def send(self, row: dict) -> None:
        """Hand over the outbox row: its message in `raw`, which ends with `body`, the very bytes
        object every copy of the same mail in the batch shares (pbm.outbox.queue)."""

    def sync(self) -> None: ...

    def close(self) -> None: ...


class Unavailable(Exception):
    """The relay cannot be reached or refuses us: try this row later, and stop the batch."""


class Refused(Exception):
    """The relay refused one message: 4xx is temporary, 5xx permanent."""

    def __init__(self, reason: str, temporary: bool):
        super().__init__(reason)
        self.temporary = temporary
