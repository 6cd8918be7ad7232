"""When each move was made, and how long its player took, in the reader's time zone.

pbm stores each move's time (`moves.played_at`, UTC); a correspondence player wants to know when the
opponent moved and how long each side thinks, which no peer shows.  `set USERID PASSWORD
movetimes=on` puts the times in every board mail's move list (one move a line, since a time does
not fit two columns in 78); `GAME status` and the game's page always show them; `tz=Area/City` (an
IANA zone, UTC by default) chooses the zone they are written in.  The time a move took is counted
from the move before it (the first move: from the game's start), as the wall clock goes: a player's
clock (pbm.commands.timing.clocks) counts only what the clock rules count.
"""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import rules
from pbm.commands.mails import movelist
from pbm.i18n import _, ljust, width
from pbm.model.db import parse_timestamp
from pbm.model.play.games import Board

DEFAULT_ZONE = "UTC"


def zone_named(name: str) -> str | None:
    """The IANA zone `name` as the tz database spells it (any case), or None: what `set tz=` takes."""
    if name.upper() == "UTC":
        return DEFAULT_ZONE
    return next((z for z in available_timezones() if z.lower() == name.lower()), None)


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):    # a zone the machine's tz database lost since
        return ZoneInfo(DEFAULT_ZONE)


def times(board: Board) -> list[datetime]:
    """When each of the board's moves was played (UTC), in order."""
    return [parse_timestamp(m.played_at) for m in board.moves]


def took(seconds: float) -> str:
    """`3 d 4 h`, `4 h 10 min`, `12 min`, `under a minute`: the two largest units, as a glance wants."""
    minutes = int(seconds // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return _("{days} d {hours} h").format(days=days, hours=hours)
    if hours:
        return _("{hours} h {minutes} min").format(hours=hours, minutes=mins)
    return _("{minutes} min").format(minutes=mins) if mins else _("under a minute")


def when(moment: datetime, tz: str) -> str:
    """`2026-11-28 14:43`: the moment in the reader's zone (named once, in the list's heading)."""
    return moment.astimezone(zone(tz)).strftime("%Y-%m-%d %H:%M")


def lines(board: Board, names: list[str], played: list[datetime], tz: str) -> list[str]:
    """The move list with times: a heading naming the zone, then one move a line: number, player,
    the move as the reader names it (`names`), when, and how long it took."""
    start = parse_timestamp(board.created_at)
    players = (board.player1, board.player2)           # player1 makes the first move
    cells = [(f"{ply:>3}. {players[(ply - 1) % 2]}", name)
             for ply, name in enumerate(names[:len(played)], start=1)]
    who = max((width(c[0]) for c in cells), default=0)
    what = max((width(c[1]) for c in cells), default=0)
    rows = [_("Moves, with when each was made ({zone}) and how long it took:").format(zone=tz)]
    before = start
    for (head, name), at in zip(cells, played):
        rows.append(f"{ljust(head, who)}  {ljust(name, what)}  {when(at, tz)}  {took((at - before).total_seconds())}")
        before = at
    return rows


def listed(board: Board, game: rules.Game, prefs: dict[str, str]) -> str:
    """The move list of a reader's mail with the times, in their zone and notation; "" before the
    first move."""
    if not board.moves:
        return ""
    return "\n".join(lines(board, movelist.names(board, game, prefs["notation"]), times(board), prefs["tz"]))
