"""A game's page as one reader sees it, and its picture and records, read from the database alone.

The page says what the reader's board mail says -- the board from their side (the mail's picture),
the players, whose turn, the clocks, the comments, the moves in their notation and language -- and
steps through the game with plain links (`?ply=N`).  A reader's link carries an HMAC of the game,
the reader and their token epoch (pbm.model.players.tokens.page): anything else is NotFound, and so is a
link of a reader who is no longer a player or observer of the game.
"""
from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

import rules
from pbm import i18n
from pbm.commands.mails import movelist, notify
from pbm.commands.base import Context
from pbm.commands.mails.next_steps import reader_styles
from pbm.config import Config
from pbm.model.play import games
from pbm.model.players import accounts, tokens
from pbm.model.db import Database
from pbm.model.play.games import Board
from pbm.outbox import compose
from pbm.pictures.deferred import Deferred
from pbm.pictures.view import labels_for
from pbm.records import formats


class NotFound(Exception):
    """A forged, revoked or mistyped link, or a move number the game does not have."""


class Reader(NamedTuple):
    board: Board
    user: str | None                # None: the game's public view (a tournament page links to it)
    preferences: dict[str, str]


# The notation a public view names moves in, by the language its visitor's browser asks for.
PUBLIC_NOTATION = {"zh-Hans": "chinese", "zh-Hant": "chinese-traditional", "ko": "korean"}


def find(db: Database, config: Config, kind: str, name: str, languages: str) -> Reader:
    """The reader of the page at `/KIND/NAME`: `g`, a reader's own link (`reader`); `p`, a game's
    public view, in the language of the browser's Accept-Language (`languages`)."""
    return reader(db, config, name) if kind == "g" else public(db, name, languages)


def public(db: Database, name: str, languages: str) -> Reader:
    """A game's public view (`xiangqi-101`): what anyone may ask of it by mail (`show`, `record`),
    from the first player's side, in the browser's language and that language's notation."""
    variant, _, number = name.partition("-")
    board = games.load(db, variant, int(number)) if variant in rules.variant_names() and \
        number.isdigit() else None
    if board is None or board.status not in (games.ACTIVE, games.FINISHED):
        raise NotFound(name)
    lang = i18n.from_header(languages) or "en"
    style = PUBLIC_NOTATION.get(lang, "both")
    prefs = {key: values[0] for key, values in accounts.PREFERENCES.items()} | {"lang": lang, "board": "red"}
    if style in reader_styles(board.replay().variant):
        prefs["notation"] = style
    return Reader(board, None, prefs)


def reader(db: Database, config: Config, token: str) -> Reader:
    """The game and reader a link names, if it is genuine and current."""
    def epoch_of(user: str) -> int | None:
        row = db.execute("SELECT token_epoch FROM users WHERE id = ?", [user]).fetchone()
        return row[0] if row else None
    found = tokens.check_page(config.secret, token, epoch_of)
    if found is None:
        raise NotFound(token)
    variant, number, user = found
    board = games.load(db, variant, number) if variant in rules.variant_names() else None
    if board is None or (user not in board.players and user not in games.observers(db, board)):
        raise NotFound(token)
    return Reader(board, user, accounts.preferences(db, user))


def _ply(board: Board, ply: str | None) -> int | None:
    """The move number asked for: None for the game as it stands."""
    if ply is None:
        return None
    if not ply.isdigit() or int(ply) > board.ply:
        raise NotFound(ply)
    return None if int(ply) == board.ply else int(ply)


def page(db: Database, config: Config, who: Reader, token: str, ply: str | None, now: datetime) -> str:
    """The HTML page of the game for `who` (at `.../TOKEN`), after `ply` moves (None: now)."""
    board, user, prefs = who
    upto = _ply(board, ply)
    game = board.replay()
    ctx = Context(db=db, config=config, incoming=None, now=now)
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        values = notify.summary(board, game, upto=upto, viewer=user, prefs=prefs,
                                away=notify.away_lines(ctx, board))
        shown = game if upto is None else game.at(upto)
        picture = _drawn(board, user, prefs, shown)
        here = board.ply if upto is None else upto
        return compose.render_html(
            "page.html.j2", **values, token=token, picture=picture,
            src=f"{token}/board.png" + ("" if upto is None else f"?ply={upto}"),
            rows=_rows(board, game, prefs["notation"], here), ply=here, last=board.ply,
            comments=games.comments(db, board), records=formats.of(board.variant))


def _rows(board: Board, game: rules.Game, style: str, here: int) -> list[list[tuple[int, str, bool]]]:
    """The move list as the mails have it: rows of two cells (ply, name, shown now), plies numbered
    one by one (the mails', the counter's and the comments' numbers), the first player's moves on
    the left; each named as the reader's mails name it (`both`: coordinates and WXF)."""
    if style in reader_styles(game.variant):
        names = game.name_moves(style)
    else:
        names = [" ".join(movelist.cell(m, style if style in movelist.STYLES else "both").split())
                 for m in board.moves]
    cells = [(ply, name, ply == here) for ply, name in enumerate(names, start=1)]
    return [cells[i:i + 2] for i in range(0, len(cells), 2)]


def picture(db: Database, config: Config, who: Reader, ply: str | None) -> bytes:
    """The PNG of the board of the page, as the reader's board mail draws it."""
    board, user, prefs = who
    upto = _ply(board, ply)
    game = board.replay()
    shown = game if upto is None else game.at(upto)
    return _drawn(board, user, prefs, shown).png()


def _drawn(board: Board, user: str | None, prefs: dict, shown: rules.Game) -> Deferred:
    """The picture the reader's board mail shows: their side, faces and labels (their notation)."""
    return Deferred(shown, turned=_turned(board, user, prefs), faces=prefs["board_faces"],
                    labels=labels_for(shown.variant, prefs["notation"]))


def _turned(board: Board, user: str | None, prefs: dict[str, str]) -> bool:
    """Whether the reader sees the board from the second player's side, as in their mails."""
    return prefs["board"] != "red" and user in board.players and board.turn_of(user) == "b"


def record(db: Database, config: Config, who: Reader, suffix: str, utf8: bool) -> tuple[bytes, str, str]:
    """(bytes, Content-Type, file name) of the record `record.SUFFIX` of the page's game."""
    board, user, prefs = who
    fmt = formats.BY_SUFFIX.get(suffix)
    if fmt is None or fmt not in formats.of(board.variant):
        raise NotFound(suffix)
    text = fmt.write(board, games.comments(db, board), config.server.address, prefs["lang"])
    data, charset = formats.encoded(fmt, text, utf8)
    return data, f"{fmt.media}; charset={charset}", formats.filename(fmt, board)
