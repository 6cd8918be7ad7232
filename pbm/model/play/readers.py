"""Who a game's mails concern, read in one query: its players and observers, with what a mail to
each needs (accounts.Reader), and which players are on vacation.

A move needs all of it -- the clock stands for a player on vacation, and every player and observer
gets a mail -- and three queries per move were three of the 15 statements a move may cost.  It is
read once per command, when first needed (see `pbm.commands.mails.notify.audience`).
"""
from __future__ import annotations

from typing import NamedTuple

from pbm.model.players import accounts, vacations
from pbm.model.db import Database, parse_timestamp
from pbm.model.play.games import Board


class Audience(NamedTuple):
    """Everyone a game's mail goes to."""

    readers: dict[str, accounts.Reader]     # the players, then the observers as they subscribed
    observers: list[str]
    away: dict[str, vacations.Vacation]     # the players on vacation


def gather(db: Database, board: Board) -> Audience:
    """The audience of `board`, read in one query."""
    readers: dict[str, accounts.Reader] = {}
    observers: list[str] = []
    away: dict[str, vacations.Vacation] = {}
    for user, watching, address, preferences, epoch, vacation, started, ends in db.execute(
            "WITH who (user_id, watching, since) AS (VALUES (?, 0, ''), (?, 0, '') "
            "  UNION ALL SELECT user_id, 1, since FROM observers WHERE game_id = ?) "
            "SELECT w.user_id, w.watching, a.address, u.preferences, u.token_epoch, v.id, "
            "v.started_at, v.ends_at FROM who w "
            "LEFT JOIN users u ON u.id = w.user_id "
            "LEFT JOIN addresses a ON a.user_id = w.user_id AND a.position = 0 "
            "LEFT JOIN vacations v ON v.user_id = w.user_id AND v.ended_at IS NULL AND NOT w.watching "
            "ORDER BY w.watching, w.since, w.user_id, v.id",
            [board.player1, board.player2, board.id]):
        readers[user] = accounts.reader(address, preferences, epoch)
        if watching and user not in board.players:
            observers.append(user)
        if vacation is not None:
            away[user] = vacations.Vacation(vacation, user, parse_timestamp(started),
                                            parse_timestamp(ends))
    return Audience(readers, list(dict.fromkeys(observers)), away)
