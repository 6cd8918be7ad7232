"""Reading what comes back (pbm.outbox.reports): a bounce and an ARF complaint as MTAs and feedback
loops write them, and the malformed ones a stranger may send, which are no report at all."""
from __future__ import annotations

import pytest

from pbm.mail import reading
from pbm.outbox import reports

BOUNCE = b"""\
From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

I'm sorry to have to inform you that your message could not be delivered.
--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Final-Recipient: rfc822; bob@example.org
Original-Recipient: rfc822;bob@example.org
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@example.org>: Recipient address rejected:
 User unknown

--B
Content-Type: text/rfc822-headers

From: pbm <pbm@pbm.test>
To: bob@example.org
Message-ID: <20261128.abc.pbm-turn@pbm.test>

--B--
"""

COMPLAINT = b"""\
From: <staff@hotmail.example>
Subject: complaint about message from 192.0.2.25
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="part1"

--part1
Content-Type: text/plain

This is an email abuse report.
--part1
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <bounces+subscribed@pbm.test>

--part1
Content-Type: message/rfc822
Content-Disposition: inline

From: pbm <pbm@pbm.test>
Message-ID: <20261128.def.pbm@pbm.test>
Subject: pbm: your move in 1 game

The digest.
--part1--
"""


def read(raw: bytes) -> reports.Report | None:
    return reports.read(reading.parse(raw.replace(b"\n", b"\r\n")))


def test_a_bounce_and_a_complaint_are_read_with_the_mail_they_are_about() -> None:
    assert read(BOUNCE) == reports.Report(
        "bounce", "<20261128.abc.pbm-turn@pbm.test>", "bob@example.org",
        "5.1.1 smtp; 550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown")
    assert read(COMPLAINT) == reports.Report("complaint", "<20261128.def.pbm@pbm.test>", "", "ARF abuse")


@pytest.mark.parametrize("raw", [
    BOUNCE.replace(b"Action: failed", b"Action: delayed"),             # not for good
    BOUNCE.replace(b"Status: 5.1.1", b"Status: 4.4.1"),
    BOUNCE.replace(b"Message-ID: <20261128.abc.pbm-turn@pbm.test>\n", b""),   # about no mail
    BOUNCE.replace(b"Reporting-MTA: dns; mx.example.org\n\nFinal", b"garbage\nFinal"),
    COMPLAINT.replace(b"report-type=feedback-report", b"report-type=disposition-notification"),
    b"Content-Type: multipart/report; boundary=b\n\n--b--\n",
    COMPLAINT.replace(b"Content-Type: message/rfc822\n", b"Content-Type: text/plain\n"),  # no original
], ids=["delayed", "temporary", "no original", "garbled status", "another report", "empty",
        "original as text"])
def test_what_is_not_a_bounce_or_a_complaint_is_no_report(raw: bytes) -> None:
    assert read(raw) is None
