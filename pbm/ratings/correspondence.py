"""Glicko-2 game by game with time, as Lichess rates correspondence chess (lila's
modules/rating Glicko.scala with the glicko2 calculator it uses).

Each rated game is rated when it ends, against the opponent's rating at that moment.  First
each player's deviation is widened for the time since their own last rated game, in fractional
rating periods of 1 / PERIODS_PER_DAY days (step 6 of the paper, done beforehand); then the game
is one rating period of one result with no further widening; then the result is kept within
Lichess's bounds.  A player who has not played for a while therefore shows a wider deviation, and
their next game moves their rating more.  docs/ratings.md explains the constants to players."""
from __future__ import annotations

from datetime import datetime

from pbm.ratings.glicko2 import Glicko, rate, widened

PERIODS_PER_DAY = 0.21436       # Lichess: "a typical player's RD goes from 60 to 110 in 1 year"
TAU = 0.75                      # Lichess's constraint on the volatility's change
START = Glicko(1500.0, 500.0, 0.09)     # a new player: Lichess's default (MAX_DEVIATION, 0.09)
MIN_RATING = 400.0              # Lichess's floor
MIN_DEVIATION = 45.0            # never surer than this
MAX_DEVIATION = 500.0           # never less sure than a new player
MAX_VOLATILITY = 0.1            # "past this, it might not stabilize ever again"
PROVISIONAL = 110.0             # deviation from which a rating is shown with ?
SURE = 75.0                     # deviation up to which a rating is sure: rating lists, --sure


def days_between(since: datetime, until: datetime) -> float:
    return (until - since).total_seconds() / 86400.0


def live(glicko: Glicko, latest: datetime | None, now: datetime) -> Glicko:
    """`glicko` as of `now`: its deviation widened for the time since its last game `latest`."""
    if latest is None:
        return glicko
    periods = max(0.0, days_between(latest, now)) * PERIODS_PER_DAY
    deviation = widened(glicko.deviation, glicko.volatility, periods)
    return Glicko(glicko.rating, min(MAX_DEVIATION, max(MIN_DEVIATION, deviation)), glicko.volatility)


def game(first: Glicko, second: Glicko, score: float) -> tuple[Glicko, Glicko]:
    """Both players after one game (`first` and `second` already live at its end; `score` is
    first's: 1, 0.5 or 0)."""
    floor = [Glicko(max(MIN_RATING, p.rating), p.deviation, p.volatility) for p in (first, second)]
    return (_bounded(rate(floor[0], [(floor[1], score)], TAU, periods=0.0)),
            _bounded(rate(floor[1], [(floor[0], 1.0 - score)], TAU, periods=0.0)))


def _bounded(glicko: Glicko) -> Glicko:
    return Glicko(max(MIN_RATING, glicko.rating),
                  min(MAX_DEVIATION, max(MIN_DEVIATION, glicko.deviation)),
                  min(MAX_VOLATILITY, glicko.volatility))


def provisional(glicko: Glicko) -> bool:
    return glicko.deviation >= PROVISIONAL


def sure(glicko: Glicko) -> bool:
    return glicko.deviation <= SURE


def shown(glicko: Glicko) -> str:
    """As players read it: the rating, ? if provisional, and two deviations (95% either side):
    `1843 ±96`, `1500? ±1000`."""
    mark = "?" if provisional(glicko) else ""
    return f"{round(glicko.rating)}{mark} ±{round(2 * glicko.deviation)}"
