"""The two values that cross the line between mail handling and game commands.

Intake turns raw bytes into an `Inbound`; the command layer answers with `Outgoing` values; the outbox
turns those into RFC 5322 bytes.  Neither side needs to know how the other works.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# The two streams of mail (docs/operating.md, "Getting into the inbox"): what a reader asked for by a
# command of theirs (their own game's mails, answers, codes), and what they subscribed to (digests,
# reminders, end-of-game notices, the games they observe, tournament news).  Each has its own envelope
# sender and Feedback-ID; only subscribed mail carries a one-click unsubscribe.
TRANSACTIONAL = "transactional"
SUBSCRIBED = "subscribed"
STREAMS = (TRANSACTIONAL, SUBSCRIBED)


@dataclass(frozen=True)
class Incoming:
    """A decoded inbound message, already judged not to be automatic mail."""

    message_id: str          # the Message-ID header, or a synthetic "<sha256@pbm>" when missing
    sender: str              # bare address of the author (From, falling back to the envelope sender)
    sender_name: str         # display name from From, may be ""
    subject: str             # decoded subject, whitespace collapsed
    body: str                # decoded plain text: quoted text and signature removed
    token: str | None = None  # reply token from a "pbm+TOKEN@host" recipient, if any
    references: tuple[str, ...] = ()  # Message-IDs from References / In-Reply-To
    language: str = ""       # its Content-Language (of the message or its text), as sent
    vouched: bool = True     # False: the trusted MTA did not vouch for the From (pbm.mail.authresults)
    attachments: tuple[tuple[str, bytes], ...] = ()   # (file name, bytes): small files, e.g. a game record
    verified: bool = False   # True: `[security] authserv_id` names an MTA, and it vouched for the From
    records: tuple[tuple[str, object], ...] = ()   # (game, its record read ahead): pbm.commands.games.imports

    @property
    def standing(self) -> str:
        """The sender, as far as its address may grant anything (a registered address's standing,
        a reply token): "" when the From was not vouched for."""
        return self.sender if self.vouched else ""


@dataclass
class Outgoing:
    """One reply to one recipient; the outbox adds From, Date and Message-ID."""

    to: str
    subject: str
    body: str
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    reply_to: str | None = None
    auto_submitted: str = "auto-replied"   # "auto-generated" for notifications
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = ""          # "turn", "note" or "chat" for game mails: a reply to it is read by it
    html: str = ""          # the same mail as HTML (a drawn board): sent as multipart/alternative
    attachments: tuple[tuple[str, str | bytes] | tuple[str, bytes, str], ...] = ()   # (name, text, or bytes
    # and, for bytes, their Content-Type with the charset): a record
    # what the HTML part shows inline, (Content-ID without <>, MIME type, bytes): the board's PNG
    related: tuple[tuple[str, str, bytes | str], ...] = ()   # (Content-ID, type, data or placeholder)
    calendar: str = ""      # an iCalendar object (method=PUBLISH): a player's deadline
    stream: str = TRANSACTIONAL
    reader: str = ""        # the user a subscribed mail is for: its unsubscribe names them
