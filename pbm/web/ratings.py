"""A game's rating list (`/r/xiangqi`): what `GAME ratings` mails -- the sure ratings only, best
first, as `1843 ±96` -- in the language the visitor's browser asks for.  Ratings are public:
anyone may ask for them by mail."""
from __future__ import annotations

from datetime import datetime

import rules
from pbm import catalogue, i18n
from pbm.model.db import Database
from pbm.model.players import ratings
from pbm.outbox import compose
from pbm.ratings import correspondence
from pbm.web.pages import NotFound

# The column heading of the standings mail, whose words the page's table heads its columns with:
# one translation for both (tests/test_catalogs.py keeps its seven columns in every language).
HEADING = " Rank  Player           Rating       Games   Won  Lost  Drawn"


def page(db: Database, variant: str, languages: str, now: datetime) -> str:
    """The rating list of `variant`, in the language of `languages` (an Accept-Language header)."""
    if variant not in rules.variant_names():
        raise NotFound(variant)
    with i18n.speaking(i18n.from_header(languages) or "en"):
        title = catalogue.title(variant)
        return compose.render_html(
            "ratings_page.html.j2", heading=i18n._("{title} ratings").format(title=title),
            columns=i18n._(HEADING).split(), rows=ratings.rating_list(db, variant, now), now=now,
            start=correspondence.shown(ratings.START), provisional=correspondence.PROVISIONAL,
            sure=correspondence.SURE)
