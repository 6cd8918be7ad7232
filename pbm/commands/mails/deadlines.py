"""A player's deadline in their calendar: the iCalendar part (RFC 5545, `method=PUBLISH`) of a board
mail in a game with a clock.

One event per game and player (its UID), at the moment the player must have moved (an alarm would
be ignored: Gmail and Outlook drop a published event's alarms, so the event's own time is the
deadline).  Each board mail publishes the event again with a higher SEQUENCE (the seconds since the
game was created: a later mail always has a higher one, an undo included), so a calendar that took
the first one updates it: to the player to move, at their new deadline; to the player who has just
moved, or to both when the game has ended, CANCELLED.  `set USERID PASSWORD calendar=off` leaves it
out.  The `icalendar` library writes it.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pbm.i18n import _
from pbm.model.db import parse_timestamp
from pbm.model.play import games
from pbm.model.play.games import Board

PRODUCT = "-//pbm//play-by-email//EN"


def uid(board: Board, user: str, domain: str) -> str:
    """The event's id: the same in every mail of the game to that player."""
    return f"{board.variant}-{board.number}-{user}@{domain}"


def event(board: Board, user: str, domain: str, now: datetime, page: str = "") -> str | None:
    """The calendar part for `user`'s board mail (None where the game has no clock for them): their
    deadline when it is their turn, else the event cancelled."""
    if board.deadline is None and board.status == games.ACTIVE:
        return None                 # no clock: no deadline to keep
    due = board.status == games.ACTIVE and board.to_move == user and board.deadline is not None
    import icalendar    # 50 ms: only for a mail with a deadline, not in every `pbm deliver`
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    item = icalendar.Event()
    item.add("uid", uid(board, user, domain))
    item.add("dtstamp", now)
    item.add("sequence", max(0, int((now - parse_timestamp(board.created_at)).total_seconds())))
    at = parse_timestamp(board.deadline) if due else now
    item.add("dtstart", at)
    item.add("dtend", at + timedelta(minutes=15))
    item.add("summary", _("Your move in {title} Board {number} is due").format(
        title=board.title, number=board.number))
    item.add("description", _("Move in {title} Board {number} by then, or the game is lost on "
                              "time.").format(title=board.title, number=board.number))
    if page:
        item.add("url", page)
    item.add("status", "CONFIRMED" if due else "CANCELLED")
    item.add("transp", "TRANSPARENT")           # a reminder, not a busy hour
    calendar.add_component(item)
    return calendar.to_ical().decode("utf-8")
