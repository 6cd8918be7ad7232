"""Clocks with a bank and an increment, as ICCF and SchemingMind give them:
`--clock=BANK+INCREMENT` (days) on challenge and seek, instead of `--timeout`'s days per move;
`--clock=BANK+INCREMENT/CAP`: the clock never holds more than CAP days (SchemingMind's 30+1<=45).

Decisions (the spec leaves them open):
- The bank is at least a day; the increment is 0 or at least an hour (fractions of a day such as
  0.5 are fine), both at most a year.  `--clock` goes with neither `--timeout` (it replaces it)
  nor `--reminder` (a clock has its own reminder).
- Time is counted as it passes, weekends and holidays included; only a vacation stops a clock.
- After each move, the first included, the mover's clock holds what was left plus the increment.
  A move played for a player from their queue or conditional moves takes no time.  Until the
  challenged player's first move their clock does not run (pbm.commands.games.play).
- Taking back moves leaves each clock with what it holds: the turn under way is not counted.
- One reminder a turn, when the time left falls below a quarter of the bank or two days, whichever
  comes first; a turn that starts below that is reminded halfway through the time left.
- Time running out loses the game -- or draws it when the opponent could not win any more: no
  piece left that can reach the king, as the dead-position rule says (rules.Game.could_win).
"""
from __future__ import annotations

from datetime import timedelta
from functools import partial

from pbm import i18n
from pbm.commands.base import CommandError, Context
from pbm.i18n import _, ngettext
from pbm.model.play import banks, games
from pbm.model.play.banks import DAY
from pbm.model.db import parse_timestamp, timestamp
from pbm.model.play.games import Board

MIN_BANK = 1.0                          # days
MIN_INCREMENT = 1 / 24                  # an hour, unless 0
LOW_DAYS = 2.0                          # the reminder: at two days left, or a quarter of the bank


def parse(value: str, max_days: float) -> str:
    """`--clock=10+1` -> "10+1", `--clock=10+1/15` -> "10+1/15" (as stored in the game's options),
    or CommandError."""
    terms_text, slash, cap_text = value.partition("/")
    bank_text, plus, increment_text = terms_text.partition("+")
    example = _("write --clock=BANK+INCREMENT in days, for example --clock=10+1 (ten days, and one more "
                "after each move) or --clock=7+0.5")
    try:
        bank, increment = float(bank_text), float(increment_text) if plus else 0.0
    except ValueError:
        raise CommandError(_("--clock={value} is not a clock: {example}.").format(
            value=value, example=example)) from None
    if not bank >= MIN_BANK:
        raise CommandError(_("--clock={value}: the bank must be at least one day ({example}).").format(
            value=value, example=example))
    if not (bank <= max_days and 0 <= increment <= max_days) or 0 < increment < MIN_INCREMENT - 1e-9:
        raise CommandError(_("--clock={value}: the bank is at most {most} days, and the increment 0 or "
                             "from an hour (0.042) to {most} days; {example}.").format(
            value=value, most=f"{max_days:g}", example=example))
    if not slash:
        return f"{bank:g}+{increment:g}"
    try:
        cap = float(cap_text)
    except ValueError:
        cap = -1.0
    if not bank <= cap <= max_days:
        raise CommandError(_("--clock={value}: the cap after / is the most days the clock may hold: "
                             "at least the bank ({bank}) and at most {most}, for example "
                             "--clock=30+1/45.").format(value=value, bank=f"{bank:g}", most=f"{max_days:g}"))
    return f"{bank:g}+{increment:g}/{cap:g}"


def days(amount: float) -> str:
    """`1 day`, `10 days`, `1.5 days`, `12 hours`, in the language of the mail being written."""
    if amount < 1:
        hours = round(amount * 24)
        return ngettext("{n} hour", "{n} hours", hours).format(n=hours)
    return ngettext("{n} day", "{n} days", amount).format(n=f"{amount:g}")


def span(left: timedelta) -> str:
    """`9 days 14 hours`, `5 hours`, `40 minutes` (to the nearest minute, then cut to hours)."""
    left = timedelta(minutes=round(left.total_seconds() / 60))
    whole_days, hours, minutes = left.days, left.seconds // 3600, left.seconds // 60 % 60
    parts = [ngettext("{n} day", "{n} days", whole_days).format(n=whole_days)] if whole_days > 0 else []
    if hours:
        parts.append(ngettext("{n} hour", "{n} hours", hours).format(n=hours))
    if whole_days <= 0 and not hours:
        minutes = max(minutes, 1) if left > timedelta(0) else 0
        parts.append(ngettext("{n} minute", "{n} minutes", minutes).format(n=minutes))
    return " ".join(parts)


def rule(board: Board) -> str:
    """The time limit of a game in words: `10 days + 1 day a move` or `3 days per move`."""
    clock, most = banks.terms(board.options), banks.cap(board.options)
    if clock is None:
        return _("{days} per move").format(days=days(board.options["timeout"]))
    if clock[1] and most is not None:
        return _("{bank} + {increment} a move, at most {cap}").format(
            bank=days(clock[0]), increment=days(clock[1]), cap=days(most))
    if clock[1]:
        return _("{bank} + {increment} a move").format(bank=days(clock[0]), increment=days(clock[1]))
    return _("{bank} in all").format(bank=days(clock[0]))


def lines(ctx: Context, board: Board) -> list[i18n.LazyProxy]:
    """`alice has 9 days 14 hours left.` for each player of a running game with a clock: read
    once, written in the language of each mail they are shown in (the lines of one event go to
    readers of several languages)."""
    clock = banks.terms(board.options)
    if clock is None or board.status != games.ACTIVE:
        return []
    out = [i18n.lazy(lambda: _("Clock: {rule}; weekends count.").format(rule=rule(board)))]
    for user, stored in zip(board.players, banks.left(ctx.db, board)):
        seconds, state = _running(ctx, board, user, stored)
        out.append(i18n.lazy(partial(_left, user, seconds, state)))
    return out


def _left(user: str, seconds: float, state: str) -> str:
    note = {"away": " " + _("(stopped: on vacation)"), "waiting": " " + _("(not running yet)")}.get(state, "")
    return _("{user} has {time} left{state}.").format(user=user, time=span(timedelta(seconds=seconds)),
                                                       state=note)


def _running(ctx: Context, board: Board, user: str, stored: float) -> tuple[float, str]:
    """Seconds on `user`'s clock now, and why it stands ("away", "waiting"; "" while it runs)."""
    if user != board.to_move:
        return stored, ""
    if board.paused_left is not None:
        return board.paused_left, "away"
    if board.deadline:
        return max((parse_timestamp(board.deadline) - ctx.now).total_seconds(), 0.0), ""
    return stored, "waiting"


def charge(ctx: Context, board: Board, mover: str, auto: bool) -> None:
    """`mover` has just moved: their clock keeps what was left, plus the increment."""
    clock = banks.terms(board.options)
    if clock is None:
        return
    both = list(banks.left(ctx.db, board))
    index = board.players.index(mover)
    left = both[index] if auto else _running(ctx, board, mover, both[index])[0]
    most = banks.cap(board.options)
    both[index] = min(left + clock[1] * DAY, most * DAY) if most is not None else left + clock[1] * DAY
    banks.store(ctx.db, board, *both)


def turn_time(ctx: Context, board: Board) -> timedelta:
    """What the player to move has on their clock as their turn begins."""
    return timedelta(seconds=banks.left(ctx.db, board)[board.players.index(board.to_move)])


def remind_at(ctx: Context, board: Board, left: timedelta | None) -> str | None:
    """When the player to move, with `left` on their clock, is reminded (see the decisions)."""
    if left is None:
        return None
    low = timedelta(days=max(banks.terms(board.options)[0] / 4, LOW_DAYS))
    return timestamp(ctx.now + (left - low if left > low else left / 2))
