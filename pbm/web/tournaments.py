"""A tournament's page (`/t/xiangqi/NAME`): what `GAME tournament show` mails -- its state, the
crosstable -- and every round's pairings, each game linked to its public view (`/p/xiangqi-101`), in
the language the visitor's browser asks for.  Tournaments are public: anyone may ask for them by mail.
"""
from __future__ import annotations

from datetime import datetime

from pbm import i18n
from pbm.commands.tournaments import paired, rounds
from pbm.commands.base import Context
from pbm.config import Config
from pbm.model.play import tournaments
from pbm.model.db import Database
from pbm.outbox import compose
from pbm.web.pages import NotFound


def page(db: Database, config: Config, variant: str, name: str, languages: str, now: datetime) -> str:
    """The tournament's page, in the language of `languages` (an Accept-Language header)."""
    t = tournaments.get(db, variant, name)
    if t is None:
        raise NotFound(name)
    with i18n.speaking(i18n.from_header(languages) or "en"):
        values = rounds.report(Context(db=db, config=config, incoming=None, now=now), t)
        by_round: dict[int, list[tournaments.Played]] = {}
        for p in tournaments.played(db, t):
            by_round.setdefault(paired.shown(t, p.game.round), []).append(p)
        return compose.render_html(
            "tournament_page.html.j2", **values, name=t.name, status=rounds.status_line(values),
            rounds=[(n, paired.grouped(t, by_round[n])) for n in sorted(by_round)],
            colours=_colours(values))


def _colours(values: dict) -> str:
    sides = [i18n._(side) for side in values["sides"]]
    return i18n._("W: {white} (moves first), B: {black}").format(white=sides[0], black=sides[1])
