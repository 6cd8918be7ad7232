"""The review as its reader gets it, in their language and notation: the headline (each side's
accuracy, the count of each mark), the chart, the three turning points (the board before, the move
with its mark, the engine's move and line, the evaluations), and the annotated records attached
(PGN with `?!`/`?`/`??` and `[%eval]` comments, and for Xiangqi the Chinese PGN and DhtmlXQ with the
same words).  One `Review` is worked out per game and mailed to each reader (`mail`), or shown on the
game's page (pbm.web).
"""
from __future__ import annotations

from typing import NamedTuple

import rules
from pbm import i18n
from pbm.commands import wording
from pbm.commands.mails import notify
from pbm.i18n import _, ngettext
from pbm.mail.messages import Incoming, Outgoing
from pbm.model.db import Database
from pbm.config import Config
from pbm.model.play import games, pgn
from pbm.model.play.games import Board
from pbm.model.players import accounts
from pbm.outbox import compose
from pbm.pictures import Picture
from pbm.pictures.drawing import cached_draw
from pbm.pictures.view import labels_for, view_from
from pbm.records import chinese, dhtmlxq
from pbm.review import analysis
from pbm.review.analysis import Move
from pbm.review.chart import chart_png
from pbm.review.search import Point
from rules import notation_styles

class Review(NamedTuple):
    """A game's review worked out from its evaluations: the same for every reader."""
    board: Board
    points: list[Point]
    wins: list[float]
    moves: list[Move]
    summary: analysis.Summary
    turning: list[Move]


def work_out(board: Board, evaluations: list) -> Review:
    points = [Point(cp, mate, best, tuple(line)) for cp, mate, best, line in evaluations]
    wins = analysis.curve(points, board.variant)
    moves = analysis.judge(points, board.variant, [m.move for m in board.moves])
    return Review(board, points, wins, moves, analysis.summary(moves, wins), analysis.turning_points(moves))


def stored(points: list[Point]) -> list:
    """The evaluations as the database keeps them (JSON)."""
    return [[p.cp, p.mate, p.best, list(p.line)] for p in points]


# --- words, in the reader's language (call inside i18n.speaking) -----------------------------------

def names(board: Board, moves: list[str], start: int, style: str) -> list[str]:
    """The moves `moves[start:]` of a line from the game's start, in the reader's notation `style`
    (a preference: a style of the game's, else coordinates with the game's own notation)."""
    game = _replayed(board, moves)
    if style in notation_styles.notations_of(game.variant) and style != "both":
        return game.name_moves(style)[start:]
    return [notify.played(m, n) for m, n in zip(game.moves[start:], game.notation[start:])]


def _replayed(board: Board, moves: list[str]) -> rules.Game:
    """The game after `moves`, or after as many of them as fit: an engine's line may hold a move the
    rules core does not take (an engine that judges repetition otherwise), and is cut there."""
    for end in range(len(moves), -1, -1):
        try:
            return rules.Game.from_record(board.variant, board.params or None, board.start_fen, moves[:end])
        except rules.RulesError:
            continue
    raise AssertionError("the start position always fits")


def evaluation(point: Point, side: str) -> str:
    """`+0.35` or `mate in 3 for Red`: the first player's side is `side`."""
    if point.mate is not None:
        return _("mate in {n} for {side}").format(n=abs(point.mate), side=side) if point.mate > 0 else \
            _("mate in {n} against {side}").format(n=abs(point.mate), side=side)
    return f"{(point.cp or 0) / 100:+.2f}"


def mark_name(mark: str) -> str:
    return {"?!": _("Inaccuracy"), "?": _("Mistake"), "??": _("Blunder")}.get(mark, "")


def headline(review: Review, sides: tuple[str, str]) -> list[str]:
    board, summary = review.board, review.summary
    lines = [_("Accuracy: {first} ({first_side}) {first_accuracy}%, {second} ({second_side}) "
               "{second_accuracy}%.").format(
        first=board.player1, first_side=sides[0], first_accuracy=round(summary.accuracy[0]),
        second=board.player2, second_side=sides[1], second_accuracy=round(summary.accuracy[1]))]
    for user, counts in zip(board.players, summary.counts):
        parts = [ngettext("{n} blunder", "{n} blunders", counts["??"]).format(n=counts["??"]),
                 ngettext("{n} mistake", "{n} mistakes", counts["?"]).format(n=counts["?"]),
                 ngettext("{n} inaccuracy", "{n} inaccuracies", counts["?!"]).format(n=counts["?!"])]
        lines.append(_("{user}: {counts}.").format(user=user, counts=_(", ").join(parts)))
    return lines


class TurningPoint(NamedTuple):
    ply: int
    heading: str                        # "Move 23, bob (Black): C2=5? (Mistake)"
    best: str                           # "the engine's move: ... line: ..."
    evals: str                          # "evaluation before ..., after ..."
    game: rules.Game                    # the position before the move


def turning_points(review: Review, sides: tuple[str, str], style: str) -> list[TurningPoint]:
    """The review's turning points in the reader's words and notation `style`."""
    board = review.board
    moves = [m.move for m in board.moves]
    found = []
    for move in review.turning:
        before = review.points[move.ply - 1]
        user, side = board.players[move.side], sides[move.side]
        played = names(board, moves[:move.ply], move.ply - 1, style)[0] + move.mark
        line = names(board, moves[:move.ply - 1] + list(before.line), move.ply - 1, style) if before.line else []
        best = _("The engine's move: {move}; its line: {line}").format(
            move=line[0], line=" ".join(line)) if line else ""
        evals = _("Evaluation before the move {before}, after it {after} (from {side}'s side).").format(
            before=evaluation(before, sides[0]), after=evaluation(review.points[move.ply], sides[0]),
            side=sides[0])
        heading = _("Move {n}, {user} ({side}): {move}").format(n=move.ply, user=user, side=side, move=played)
        if move.mark:
            heading += f" ({mark_name(move.mark)})"
        found.append(TurningPoint(move.ply, heading, best, evals, _replayed(board, moves[:move.ply - 1])))
    return found


def comments(review: Review, style: str) -> list[tuple[int, str | None, str]]:
    """The records' comments: after every move its evaluation (`[%eval 0.35]`, Lichess's form, from
    the first player's side), and at a marked move what it was and the engine's move."""
    board = review.board
    moves = [m.move for m in board.moves]
    said: list[tuple[int, str | None, str]] = []
    for move in review.moves:
        text = f"[%eval {analysis.pawns(review.points[move.ply])}]"
        before = review.points[move.ply - 1]
        if move.mark and before.best:
            best = names(board, moves[:move.ply - 1] + [before.best], move.ply - 1, style)[0]
            text += " " + _("{mark}. The engine's move was {move}.").format(mark=mark_name(move.mark), move=best)
        said.append((move.ply, None, text))
    return said


def records(review: Review, prefs: dict[str, str], site: str,
            players: list[tuple[int, str | None, str]]) -> list[tuple[str, str]]:
    """The annotated records attached: (file name, text), the engine's comments first after each move,
    then the players' (`players`, as the game's record has them).  PGN always; for Xiangqi the
    Chinese PGN and DhtmlXQ too (the .gib has no place for comments)."""
    board = review.board
    said = sorted(comments(review, prefs["notation"]) + players, key=lambda c: c[0])
    glyphs = {m.ply: m.mark for m in review.moves if m.mark}
    attached = [(f"{board.variant}-{board.number}.review.pgn", pgn.record(board, said, site, glyphs))]
    if board.variant == "xiangqi":
        traditional = prefs["lang"] == "zh-Hant" or prefs["notation"] == "chinese-traditional"
        attached.append((f"{board.variant}-{board.number}.review.zh.pgn",
                         chinese.record(board, said, site, traditional, glyphs)))
        attached.append((f"{board.variant}-{board.number}.review.dhtmlxq",
                         dhtmlxq.record(board, [(p, a, _marked(review, p, t)) for p, a, t in said])))
    return attached


def _marked(review: Review, ply: int, text: str) -> str:
    mark = review.moves[ply - 1].mark if ply else ""
    return f"{mark} {text}" if mark and text.startswith("[%eval") else text


# --- the mail --------------------------------------------------------------------------------------

def values(review: Review, prefs: dict[str, str], viewer: str | None) -> dict:
    """The review templates' values for a reader with `prefs` (inside i18n.speaking)."""
    board = review.board
    game = board.replay()
    sides = tuple(map(wording.name, notify.player_sides(board, game)))
    style = prefs["notation"]
    turned = viewer in board.players and board.turn_of(viewer) == "b" and prefs["board"] in ("own", "svg")
    points = turning_points(review, sides, style)
    return {"title": wording.name(board.title), "number": board.number, "headline": headline(review, sides),
            "first_side": sides[0], "points": points, "turned": turned,
            "boards": [wording.board(p.game, turned, board.variant, i18n.language() == "en") for p in points]
            if prefs["board"] != "off" else [],
            "labels": labels_for(game.variant, style), "faces": prefs["board_faces"], "sides": sides,
            "marks_note": _("?! inaccuracy, ? mistake, ?? blunder: a move that lost its side at least 10, "
                            "20 or 30 points of its winning chances (0-100%)."),
            "chart_note": _("The chart in the HTML part of this mail shows {side}'s winning chances move "
                            "by move.").format(side=sides[0])}


def chart(review: Review, side: str) -> Picture:
    return chart_png(review.wins, [m.ply for m in review.turning], review.board.variant,
                     _("{side}'s winning chances, move by move").format(side=side))


def mail(db: Database, config: Config, review: Review, user: str, incoming: Incoming | None = None) -> Outgoing | None:
    """The review mailed to `user` (an answer to `incoming` when they asked just now); None for a
    closed account."""
    reader = accounts.readers(db, [user])[user]
    if reader.address is None and incoming is None:
        return None
    prefs = reader.preferences
    board = review.board
    domain = config.server.address.rpartition("@")[2]
    with i18n.speaking(prefs["lang"], prefs["notation"]):
        shown = values(review, prefs, user)
        picture = chart(review, shown["sides"][0])
        related = [(f"{picture.key}@{domain}", "image/png", picture.data)]
        pictures = []
        for point in shown["points"]:
            board_picture = cached_draw(view_from(point.game, last=point.game.moves[-1] if point.game.moves else "",
                                                  mated=False, turned=shown["turned"], faces=shown["faces"],
                                                  labels=shown["labels"]))
            pictures.append(board_picture.img(f"cid:{board_picture.key}@{domain}"))
            related.append((f"{board_picture.key}@{domain}", "image/png", board_picture.data))
        attached = records(review, prefs, config.server.address, games.comments(db, board))
        shown["files"] = [name for name, _text in attached]
        subject = _("{title} Board {number}: the engine's review").format(title=shown["title"], number=board.number)
        body = compose.render("review.j2", **shown)
        html = compose.render_html("review.html.j2", **shown, chart=picture.img(f"cid:{picture.key}@{domain}"),
                                   pictures=pictures if prefs["board"] != "off" else [])
    root = compose.thread_id(config.server.address, board.variant, board.number)
    if incoming is not None:
        return compose.answer(incoming, subject, body, root=root, html=html, attachments=tuple(attached),
                              related=tuple(dict.fromkeys(related)))
    return compose.notify(reader.address, subject, body, root=root, html=html, attachments=tuple(attached),
                          related=tuple(dict.fromkeys(related)))
