"""What comes back about the mails pbm sent: bounces (RFC 3464 delivery reports) and complaints (ARF,
RFC 5965 feedback reports), mailed to the streams' envelope senders or the server's address.

Intake (pbm.intake) reads one from a `multipart/report` it will not answer (`read`: CPU only) and
records it in its transaction (`record`).  A report counts only if it is about a mail pbm sent -- the
original's Message-ID is in the outbox, 96 random bits nobody but that mail's recipient and their
provider knows -- and, for a bounce, names that mail's recipient: a stranger's forged report costs
no player anything.  A hard bounce (action failed, status 5.x.x) counts like a relay's refusal
(pbm.outbox.bounces: subscribed mail stops at once, all mail after the third); a complaint turns the
subscribed stream off for the reader (pbm.model.players.subscriptions).  Both are counted per stream.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes
from email.message import Message
from email.utils import collapse_rfc2231_value

from pbm.config import Config
from pbm.mail import reading
from pbm.model.db import Database
from pbm.model.players import subscriptions, tokens
from pbm.outbox import bounces


@dataclass(frozen=True)
class Report:
    """A bounce or a complaint, as read from the report's parts."""
    kind: str                           # "bounce" or "complaint"
    message_id: str                     # the Message-ID of the mail it is about
    recipient: str                      # a bounce's final recipient ("" for a complaint)
    detail: str                         # its status and diagnostic, or the feedback type


def read(msg: Message) -> Report | None:
    """The bounce or complaint `msg` reports, if it is a delivery report that says a mail failed for
    good or a feedback report; None for anything else (a delay, a success, a report it cannot read)."""
    if msg.get_content_type() != "multipart/report":
        return None
    kind = collapse_rfc2231_value(msg.get_param("report-type", "")).lower()
    original = _original_id(msg)
    if not original:
        return None
    if kind == "delivery-status":
        for part in msg.walk():
            if part.get_content_type() != "message/delivery-status":
                continue
            blocks = part.get_payload()
            for fields in blocks[1:] if isinstance(blocks, list) else ():  # the first: the message's
                if not isinstance(fields, Message):
                    continue
                action = str(fields.get("Action", "")).strip().lower()
                status = str(fields.get("Status", "")).strip()
                recipient = str(fields.get("Final-Recipient", "")).partition(";")[2].strip()
                if action == "failed" and status.startswith("5") and recipient:
                    diagnostic = " ".join(str(fields.get("Diagnostic-Code", "")).split())
                    return Report("bounce", original, recipient, f"{status} {diagnostic}".strip()[:300])
        return None
    if kind == "feedback-report":
        for part in msg.walk():
            if part.get_content_type() == "message/feedback-report":
                payload = part.get_payload()
                fields = payload[0] if isinstance(payload, list) and payload and isinstance(
                    payload[0], Message) else part
                feedback = " ".join(str(fields.get("Feedback-Type", "abuse")).split())
                return Report("complaint", original, "", f"ARF {feedback}"[:300])
    return None


def _original_id(msg: Message) -> str:
    """The Message-ID of the returned message (its whole text, or only its header)."""
    for part in msg.walk():
        kind = part.get_content_type()
        payload = part.get_payload()
        if kind == "message/rfc822" and isinstance(payload, list) and payload and isinstance(
                payload[0], Message):
            found = payload[0].get("Message-ID", "")
        elif kind == "text/rfc822-headers" and not part.is_multipart():
            # compat32, message_from_bytes's default: email.policy is not imported
            found = message_from_bytes(part.get_payload(decode=True) or b"").get("Message-ID", "")
        else:
            continue
        if found:
            return " ".join(str(found).split())
    return ""


def record(db: Database, config: Config, report: Report, now: datetime) -> str:
    """Count `report` (inside intake's transaction); what was done, for the inbound's detail."""
    row = db.execute("SELECT id, recipient, subject, stream FROM outbox WHERE message_id = ?",
                     [report.message_id]).fetchone()
    if row is None:
        return f"{report.kind} about no mail of this server: ignored"
    row_id, recipient, subject, stream = row
    if report.kind == "bounce":
        if report.recipient.lower() != recipient.lower():
            return f"bounce for {report.recipient}, not the recipient of reply {row_id}: ignored"
        bounces.refused(db, config=config, row_id=row_id, recipient=recipient, subject=subject,
                        reason=f"bounced: {report.detail}", stream=stream)
        return f"bounce of reply {row_id} ({stream}) counted"
    users = subscriptions.complained(db, now, stream, recipient, row_id, report.detail)
    return (f"complaint about reply {row_id} ({stream}) counted; subscribed mail off for "
            f"{', '.join(users) or 'nobody'}")


def unsubscribe_token(config: Config, msg: Message, rcpt_tos: Sequence[str]) -> str | None:
    """The unsubscribe token a mail is addressed to (`pbm+unsub-...@host`: a one-click unsubscribe's
    mailto:), genuine or not: such a mail is never answered, whoever sent it (`unsubscribed`)."""
    addresses = list(rcpt_tos) or [address for _, address in reading.addresses(msg, "To")]
    for address in addresses:
        token = reading.reply_token(address, config.server.address)
        if token is not None and tokens.unsubscribing(token):
            return token
    return None


def unsubscribed(db: Database, config: Config, token: str, now: datetime) -> str:
    """Turn off what a genuine, unspent token names (pbm.model.players.subscriptions); what was done."""
    user = subscriptions.unsubscribe(db, config.secret, token, "mail", now)
    return f"subscribed mail off for {user}" if user else "forged, spent or unknown token: nothing changed"
