"""The time commands and timers go by: the system clock, or `PBM_NOW` (an ISO 8601 time, such as
2026-03-01T12:00:00+00:00) for the tests that play a correspondence game across days through real
`pbm deliver` and `pbm timers` processes -- as the crash tests set PBM_FAULT (pbm.faults)."""
from __future__ import annotations

import os
from datetime import datetime, timezone


def now() -> datetime:
    fixed = os.environ.get("PBM_NOW")
    return datetime.fromisoformat(fixed).astimezone(timezone.utc) if fixed else datetime.now(timezone.utc)
