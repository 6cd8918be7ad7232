"""A game's page as one reader sees it, and its picture and records, read from the database alone.

The page says what the reader's board mail says -- the board from their side (the mail's picture),
the players (and their ratings in the game, as of now), whose turn, the clocks, the comments, the
moves in their notation and language -- and steps through the game with plain links (`?ply=N`).
A reader's link carries an HMAC of the game, the reader and their token epoch
(pbm.model.players.tokens.page): anything else is NotFound, and so is a link of a reader who is no
longer a player or observer of the game.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import NamedTuple

import rules
from pbm import i18n
from pbm.i18n import _
from pbm.commands.mails import movelist, movetimes, notelines, notify
from pbm.commands.base import Context
from pbm.commands.mails.next_steps import reader_styles
from pbm.config import Config
from pbm.model.play import games, notes, reviews
from pbm.model.players import accounts, ratings, tokens
from pbm.model.db import Database
from pbm.model.play.games import Board
from pbm.outbox import compose
from pbm.pictures.deferred import Deferred
from pbm.pictures.view import labels_for
from pbm.records import formats
from pbm.review import report


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
        _number(number) else None
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
    if not _number(ply) or int(ply) > board.ply:
        raise NotFound(ply)
    return None if int(ply) == board.ply else int(ply)


def _number(text: str) -> bool:
    """Whether `text` is a number as the links write it: ASCII digits, few enough for SQLite
    (str.isdigit() says yes to "²" and to Arabic-Indic digits, and int() refuses 5,000 digits)."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def page(db: Database, config: Config, who: Reader, token: str, ply: str | None, now: datetime) -> str:
    """The HTML page of the game for `who` (at `.../TOKEN`), after `ply` moves (None: now)."""
    board, user, prefs = who
    upto = _ply(board, ply)
    game = board.replay()
    comments, omitted = shown_comments(db, board)
    ctx = Context(db=db, config=config, incoming=None, now=now)
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        values = notify.summary(board, game, upto=upto, viewer=user, prefs=prefs,
                                away=notify.away_lines(ctx, board))
        if user in board.players:           # their own page: their notes, all of them
            values["own_notes"] = notelines.lines(game, notes.of(db, board.id, user), None)
        values["timed"] = movetimes.listed(board, game, prefs)
        shown = game if upto is None else game.at(upto)
        picture = _drawn(board, user, prefs, shown)
        here = board.ply if upto is None else upto
        review = _review(db, board, prefs, user, here)
        return compose.render_html(
            "page.html.j2", **values, token=token, picture=picture,
            src=f"{token}/board.png" + ("" if upto is None else f"?ply={upto}"),
            rows=_rows(board, game, prefs["notation"], here, review["marks"] if review else {}), ply=here,
            last=board.ply, comments=comments, omitted=omitted, records=formats.of(board.variant),
            ratings={u: ratings.get(db, board.variant, u).shown(now) for u in board.players}, review=review)


def _worked_out(db: Database, board: Board) -> report.Review | None:
    """The game's engine review, once it is done (only ever of a finished game)."""
    done = reviews.load(db, board.id) if board.status == games.FINISHED else None
    return report.work_out(board, done.evaluations) if done and done.evaluations else None


def _review(db: Database, board: Board, prefs: dict, user: str | None, here: int) -> dict | None:
    """What the page shows of the review: the headline, the chart, the turning points, the marks in
    the move list, and the engine's evaluation of the position shown (inside i18n.speaking)."""
    worked = _worked_out(db, board)
    if worked is None:
        return None
    shown = report.values(worked, prefs, user)
    point = worked.points[here]
    best = report.names(board, [m.move for m in board.moves][:here] + list(point.line), here,
                        prefs["notation"]) if point.line else []
    return {**shown, "marks": {m.ply: m.mark for m in worked.moves if m.mark},
            "here": _("Evaluation after move {n}: {value} (from {side}'s side).").format(
                n=here, value=report.evaluation(point, shown["sides"][0]), side=shown["sides"][0]),
            "best": _("The engine's move: {move}; its line: {line}").format(move=best[0], line=" ".join(best))
            if best else "",
            "chart": report.chart(worked, shown["sides"][0])}


def chart(db: Database, config: Config, who: Reader) -> bytes:
    """The PNG of the review's chart (NotFound before the review is done)."""
    board, user, prefs = who
    worked = _worked_out(db, board)
    if worked is None:
        raise NotFound("chart")
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        return report.chart(worked, report.values(worked, prefs, user)["sides"][0]).data


def _rows(board: Board, game: rules.Game, style: str, here: int,
          marks: dict[int, str]) -> list[list[tuple[int, str, bool]]]:
    """The move list as the mails have it: rows of two cells (ply, name, shown now), plies numbered
    one by one (the mails', the counter's and the comments' numbers), the first player's moves on
    the left; each named as the reader's mails name it (`both`: coordinates and WXF), with
    its mark of the engine's review (`marks`)."""
    if style in reader_styles(game.variant):
        names = game.name_moves(style)
    else:
        names = [" ".join(movelist.cell(m, style if style in movelist.STYLES else "both").split())
                 for m in board.moves]
    cells = [(ply, name + marks.get(ply, ""), ply == here) for ply, name in enumerate(names, start=1)]
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


def shown_comments(db: Database, board: Board, *, timed: bool = False) -> tuple[list[tuple[int, str | None, str]], int]:
    """The comments a page or a served record shows -- the latest that fit SHOWN_COMMENTS characters,
    so that either stays under 1 MB however long the chat (each is cut when sent: [server]
    comment_chars) -- and how many earlier ones are left out."""
    every = games.comments(db, board, timed=timed)     # timed: a record's, each move's time too
    kept, total = 0, 0
    for _ply, _author, text in reversed(every):
        total += len(text)
        if total > SHOWN_COMMENTS:
            break
        kept += 1
    return every[len(every) - kept:], len(every) - kept


SHOWN_COMMENTS = 150_000    # characters: escaped (5 bytes for "&") or in Chinese (3), under 1 MB
RECORDS = 64                # served records kept made, the most recently asked for
_made: OrderedDict[tuple, tuple[bytes, str, str]] = OrderedDict()
_making = threading.Lock()


def record(db: Database, config: Config, who: Reader, suffix: str, utf8: bool) -> tuple[bytes, str, str]:
    """(bytes, Content-Type, file name) of the record `record.SUFFIX` of the page's game: made once
    for the game as it stands and kept (the last RECORDS), not made again for every request."""
    board, user, prefs = who
    fmt = formats.BY_SUFFIX.get(suffix)
    if fmt is None or fmt not in formats.of(board.variant):
        raise NotFound(suffix)
    comments, _omitted = shown_comments(db, board, timed=True)
    key = (board.id, board.updated_at, board.ply, board.status, board.result, len(comments),
           tuple(comments[-1:]), suffix, prefs["lang"], utf8)
    with _making:
        if key in _made:
            _made.move_to_end(key)
            return _made[key]
    text = fmt.write(board, comments, config.server.address, prefs["lang"])
    data, charset = formats.encoded(fmt, text, utf8, prefs["lang"])
    made = data, f"{fmt.media}; charset={charset}", formats.filename(fmt, board)
    with _making:
        _made[key] = made
        while len(_made) > RECORDS:
            _made.popitem(last=False)
    return made
