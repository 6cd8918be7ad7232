"""Crash notices to the administrators are at most one an hour, and counted (issue 39, item 7): a
sender who can make a command fail must not page every admin per mail.  Real `pbm deliver`
processes, a command made to fail (PBM_FAULT) at times set by PBM_NOW."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from support.postoffice import plain
from support.processes import PbmEnv

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_twenty_failures_in_an_hour_are_one_notice_and_the_next_counts_them(pbm_env: PbmEnv) -> None:
    pbm_env.configure(admins={"users": ["root"], "notify": ["ops@example.org", "oncall@example.org"]})
    to: dict[str, int] = {}
    for n in range(20):
        at = (START + timedelta(seconds=n)).isoformat()
        result = pbm_env.deliver(pbm_env.message("help"), PBM_FAULT="command-error", PBM_NOW=at)
        assert result.returncode == 0
        for mail in pbm_env.replies():
            to[str(mail["To"])] = to.get(str(mail["To"]), 0) + 1
    assert to == {"alice@example.org": 20, "ops@example.org": 1, "oncall@example.org": 1}

    later = (START + timedelta(hours=1, seconds=1)).isoformat()
    assert pbm_env.deliver(pbm_env.message("help"), PBM_FAULT="command-error", PBM_NOW=later).returncode == 0
    notices = [m for m in pbm_env.replies() if m["To"] == "ops@example.org"]
    assert len(notices) == 1
    text = " ".join(plain(notices[0]).split())
    assert "Failed since the last notice, at 2026-03-02 12:00 UTC: 20 messages, this one included" in text
    counted = [line for line in plain(notices[0]).splitlines() if "ailed since" in line or "the hour" in line]
    assert len(counted) == 2 and max(len(line) for line in counted) <= 78
    assert pbm_env.query("SELECT count(*) FROM inbound WHERE status = 'failed'") == [(21,)]
