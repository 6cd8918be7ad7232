"""Game mails: the summary, move list and board of one game, to each player and observer.

Everyone concerned gets their own mail: the one who sent the command gets the answer to it, the
others a notification with the sender's comment.  Players' mails carry their reply token, so that
answering with just the move works.  The subject names the player to move next and otherwise stays
the same for the whole game, and every mail refers to the game's fixed thread id.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from typing import NamedTuple

import rules
from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.mails import (
    deadlines,
    movelist,
    movetimes,
    next_steps,
    notelines,
    notices,
    piecelist,
    ruling_words,
)
from pbm.commands.timing import clocks, outages
from pbm.commands.base import Context
from pbm.commands.mails.next_steps import reader_styles
from pbm.i18n import _
from pbm.mail.messages import Outgoing
from pbm.model.play import games, pgn
from pbm.model.players import accounts, tokens, vacations
from pbm.model.play.games import Board
from pbm.model.play.readers import Audience, gather
from pbm.outbox import compose
from pbm.pictures.deferred import Deferred
from pbm.pictures.strip import strip_png
from pbm.pictures.view import labels_for
from rules.board_ascii import hand_lines


def subject(board: Board, *, new: bool = False, comment: bool = False) -> str:
    """`Xiangqi Board 101 bob`, naming the player to move next, so that mail filters can sort out
    "my turn" (pbmserv's form); once the game is over `Xiangqi Board 101 over: alice won (checkmate)`,
    which no such filter takes for a turn."""
    if board.status == games.ACTIVE:
        text = f"{'New ' if new else ''}{board.title} Board {board.number} {board.to_move or board.player1}"
    else:
        text = f"{board.title} Board {board.number} over: {outcome(board)}"   # "over:" in every language
    return f"{text} **" if comment else text


def outcome(board: Board) -> str:
    """How a finished game ended, as a phrase in the reader's language: `alice won (checkmate)`."""
    why = wording.reason(board.reason, board.variant) if board.reason else ""
    if board.status == games.FINISHED and board.winner:
        return (_("{user} won ({why})") if why else _("{user} won")).format(user=board.winner, why=why)
    if board.status == games.FINISHED:
        return _("drawn ({why})").format(why=why) if why else _("drawn")
    if board.status == games.CANCELLED:
        return _("cancelled ({why})").format(why=why) if why else _("cancelled")
    return _("declined ({why})").format(why=why) if why else _("declined")


def error_subject(board: Board) -> str:
    return f"{board.title} Board {board.number} Error"


def thread(ctx: Context, board: Board) -> str:
    return compose.thread_id(ctx.config.server.address, board.variant, board.number)


def reply_address(ctx: Context, board: Board, user: str, epoch: int | None = None) -> str:
    """The address a reply of `user` about `board` goes to (their token; `epoch`: their token
    epoch, if known already)."""
    if epoch is None:
        epoch = accounts.token_epoch(ctx.db, user)
    return tokens.reply_address(ctx.config.server.address,
                                tokens.make(ctx.config.secret, board.variant, board.number, user, epoch))


def status_lines(board: Board, game: rules.Game) -> list[str]:
    """`It is bob's turn.`, `bob is in check.`, `alice has proposed a draw.`, `Game won by ...`."""
    if board.status == games.ACTIVE:
        lines = [_("It is {user}'s turn.").format(user=board.to_move)]
        if game.kings_facing():
            lines.append(_("The kings face each other (bikjang): {user} must break the facing "
                           "or pass; a pass ends the game.").format(user=board.to_move))
        elif game.in_check():
            lines.append(_("{user} is in check.").format(user=board.to_move))
        if board.offer == "draw":
            lines.append(_("{user} has proposed a draw.").format(user=board.offer_by))
        elif board.offer == "undo":
            lines.append(_("{user} has asked to take back their last move.").format(user=board.offer_by))
        return lines
    why = wording.reason(board.reason or "", board.variant)
    if board.status == games.CANCELLED:
        return [_("Game cancelled ({why}).").format(why=why)]
    if board.status == games.DECLINED:
        return [_("Game declined ({why}); it was deleted and is not rated.").format(why=why)]
    if board.winner:
        return [_("Game won by {user} ({why}).").format(user=board.winner, why=why)]
    return [_("Draw ({why}).").format(why=why)]


def played(move: str, notation: str, names: dict[str, str] | None = None) -> str:
    """A move in a sentence: `h3e3 (C2=5)`, or just `b1c3` where the notation is the coordinates;
    in the reader's notation where `names` (style -> name) has it: `炮二平五`."""
    if names and i18n.notation() in names:
        return names[i18n.notation()]
    if move == rules.PASS:
        return movelist.pass_word()
    return move if notation == move else f"{move} ({notation})"


def last_move_names(game: rules.Game) -> dict[str, str]:
    """The move just played on `game`, named in each of `reader_styles`."""
    return {style: game.name_last(style) for style in reader_styles(game.variant)}


def player_sides(board: Board, game: rules.Game) -> tuple[str, str]:
    """The side names of player1 and player2 (player1 plays the side to move at the start)."""
    names = game.side_names
    return names if board.first_turn == "w" else (names[1], names[0])


def summary(board: Board, game: rules.Game, *, upto: int | None = None, viewer: str | None = None,
            prefs: dict[str, str] | None = None, away: list[str] | None = None) -> dict:
    """The template values of a game mail (the board and move list after `upto` moves) for
    `viewer`, as their preferences want them: by default the board from their own side.  `away`:
    the lines that say which player is on vacation (`away_lines`)."""
    shown = game if upto is None else game.at(upto)
    sides = tuple(map(wording.name, player_sides(board, game)))
    prefs = prefs or {name: values[0] for name, values in accounts.PREFERENCES.items()}
    style = prefs["notation"]
    if style in reader_styles(game.variant):
        moves = movelist.text(board, sides, upto, style, movelist.names(board, game, style)[:upto])
    else:
        moves = movelist.text(board, sides, upto, "both" if style not in movelist.STYLES else style)
    turned = prefs["board"] in ("own", "svg") and viewer in board.players and board.turn_of(viewer) == "b"
    declined = board.status == games.DECLINED
    drawn = not declined and prefs["board"] != "off"
    fen, link = ("", "") if declined else _position(board, shown, upto)
    ruling = ruling_words.said(board, game, viewer) if upto is None else []
    status = status_lines(board, game) + (away or [])
    listed = prefs["board"] == "list"
    return {
        "title": board.title,
        "number": board.number,
        "sides": [(sides[0], board.player1), (sides[1], board.player2)],
        "status": status,
        "ruling": ruling_words.wrapped(ruling),
        "ruling_said": ruling,
        "cycle": ruling_words.cycle(board, game, viewer) if upto is None else None,
        "position_note": ("" if upto is None else
                          _("Position after move {n} of {total}.").format(n=upto, total=board.ply) if upto
                          else _("The starting position, before move 1 of {total}.").format(total=board.ply)),
        "moves": moves,
        "board": (wording.board(shown, turned, board.variant, i18n.language() == "en")
                  if drawn and not listed else ""),
        "pieces": [] if declined else piecelist.text(shown, _last(shown, style)),
        "switches": shown.variant.switches(),
        "hands": [wording.hand(line) for line in hand_lines(shown.position)],
        "promotion_note": (_("In the picture a promoted piece has an inverted face and a + mark.")
                           if shown.variant.promotion_zone else ""),
        "drawn": (shown, turned, prefs["board"], prefs["board_faces"],
                  labels_for(game.variant, style)) if drawn and not listed else None,
        "fen": fen,
        "analysis": link,
    }


def _last(shown: rules.Game, style: str) -> str:
    """The last move of `shown` as the reader's notation names it ("" before the first)."""
    if not shown.moves:
        return ""
    move, named = shown.moves[-1], shown.notation[-1]
    if style in reader_styles(shown.variant):
        return shown.name_last(style)
    return {"coordinates": move, "wxf": named}.get(style, played(move, named))


def html_part(ctx: Context, values: dict) -> tuple[str, tuple[tuple[str, str, bytes], ...]]:
    """The HTML part of a board mail made of `summary`'s values, and the picture it shows inline:
    the board as a PNG every mail client shows (one per view, shared by every reader of an event
    through the pictures' cache), or as inline SVG for a reader who chose board=svg.  None for a
    reader who wants no board."""
    if values["drawn"] is None:
        return "", ()
    shown, turned, style, faces, labels = values["drawn"]
    if style == "svg":
        return compose.render_html("board.html.j2", **values, drawing=shown.board_svg(turned, labels)), ()
    picture = Deferred(shown, turned=turned, faces=faces, labels=labels)     # drawn as the mail is sent
    domain = ctx.config.server.address.rpartition('@')[2]
    content_id = f"{picture.key}@{domain}"
    related: tuple[tuple[str, str, bytes | str], ...] = ((content_id, "image/png", picture.placeholder()),)
    cycle = ""
    if values["cycle"]:                 # a ruling's cycle: drawn now, once per cycle and side
        strip = strip_png(shown, *values["cycle"], turned=turned, faces=faces)
        # four small boards still read when shrunk to a phone's width; more scroll at their size
        cycle = strip.img(f"cid:{strip.key}@{domain}", shrink=values["cycle"][1] <= 4)
        related += ((f"{strip.key}@{domain}", "image/png", strip.data),)
    drawing = picture.img(f"cid:{content_id}", alt=" ".join(values.get("pieces", ())) or None)
    html = compose.render_html("board.html.j2", **values, drawing=drawing,
                               cycle_picture=cycle)
    return html, related


def _position(board: Board, shown: rules.Game, upto: int | None) -> tuple[str, str]:
    """The FEN of the position shown and its analysis link: once for all the mails of an event."""
    key = ("fen", upto, len(board.moves))
    if key not in board.rendered:
        fen = shown.fen()
        board.rendered[key] = fen, catalogue.analysis_link(board.variant, fen)
    return board.rendered[key]


def for_sender(ctx: Context, board: Board, game: rules.Game, upto: int | None = None) -> dict:
    """`summary` for whoever sent the query: as the user the sender's address belongs to likes it."""
    user = accounts.user_of_address(ctx.db, ctx.incoming.sender, board.players) if ctx.incoming else None
    return summary(board, game, upto=upto, viewer=user,
                   prefs=accounts.preferences(ctx.db, user) if user else None, away=away_lines(ctx, board))


def speaking_to(ctx: Context, user: str) -> AbstractContextManager[None]:
    """Write in `user`'s language and notation (inside a `with`): a mail to them alone."""
    prefs = accounts.preferences(ctx.db, user)
    return i18n.speaking(prefs["lang"], prefs["notation"])


def away_lines(ctx: Context, board: Board) -> list[str]:
    """Which players of a running game are on vacation, and until when; and, in a game with a
    clock, the time each player has left (pbm.commands.timing.clocks)."""
    if board.status != games.ACTIVE:
        return []
    away = on_vacation(ctx, board)
    return [vacations.line(away[user]) for user in board.players if user in away] + clocks.lines(ctx, board)


def on_vacation(ctx: Context, board: Board) -> dict[str, vacations.Vacation]:
    """The board's players on vacation (the clock stands for them, every mail says so)."""
    return audience(ctx, board).away


def audience(ctx: Context, board: Board) -> Audience:
    """The board's players and observers: read once per command, when first needed."""
    if "audience" not in board.rendered:
        board.rendered["audience"] = gather(ctx.db, board)
    return board.rendered["audience"]


def board_mails(ctx: Context, board: Board, game: rules.Game, *, actor: str | None,
                headline: list[str], notes: dict[str, list[str]] | None = None,
                new: bool = False, recipients: list[str] | None = None,
                own: list[str] | None = None, reminder: bool = False) -> None:
    """Queue the game mail to the sender (`actor`, if the command came by mail) and to everyone
    else concerned: by default both players and the observers.  `own`: the headline of the
    sender's own mail, where it says to them what they did ("You asked to ...").  An observer's
    mail, and a `reminder`, are subscribed mail; a player's board mail is theirs by their game."""
    text = ctx.publish(ctx.comment) if actor else ""
    if text:
        games.add_event(ctx.db, board, "comment", actor, text, ctx.now)     # for the PGN record
    root = thread(ctx, board)
    ended = board.status in (games.FINISHED, games.CANCELLED)
    attachments = ((pgn.filename(board), record(ctx, board)),) if ended else ()
    if ended:
        notices.send(ctx, board, lambda: subject(board), root, attachments)
    notes = {user: list(lines) for user, lines in (notes or {}).items()}
    headline = [*headline, *outages.told(ctx, board)]
    known = audience(ctx, board)
    mail = _BoardMail(headline, notes, away_lines(ctx, board), known.observers, new, root, attachments)
    if recipients is None:
        recipients = [*board.players, *known.observers]
    answered = actor is not None and ctx.incoming is not None
    if answered and actor in board.players and not (
            ctx.from_own if ctx.from_own is not None and actor == ctx.actor
            else accounts.owns_address(ctx.db, actor, ctx.incoming.standing)):
        _from_elsewhere(ctx, board, actor, mail, new)
        answered = False
        recipients = [actor, *recipients]
    everyone = [actor, *recipients] if answered else recipients
    strangers = [user for user in dict.fromkeys(everyone) if user not in known.readers]
    readers = {**known.readers, **(accounts.readers(ctx.db, strangers) if strangers else {})}
    if answered:
        who = readers[actor]
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            body, (html, related) = _body(ctx, board, game, mail._replace(headline=own or headline),
                                          actor, who, None)
            ctx.out.append(compose.answer(
                ctx.incoming, subject(board, new=new), body, html=html, related=related, root=root,
                reply_to=reply_address(ctx, board, actor, who.token_epoch) if actor in board.players else None,
                kind=_kind(board, actor), attachments=attachments, calendar=_calendar(ctx, board, actor, who)))
    views: dict[tuple, Outgoing] = {}
    for user in dict.fromkeys(recipients):
        if user == actor and answered:
            continue
        who = readers[user]
        if who.address is None:
            continue
        attached = {"author": actor, "text": text} if text else None
        if user not in board.players:
            ctx.out.append(_observer_mail(ctx, board, game, mail, user, who, attached, views))
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            body, (html, related) = _body(ctx, board, game, mail, user, who, attached)
            board_mail = compose.notify(
                who.address, subject(board, new=new, comment=bool(attached)), body, html=html,
                related=related, root=root, reply_to=reply_address(ctx, board, user, who.token_epoch),
                kind=_kind(board, user), attachments=attachments, calendar=_calendar(ctx, board, user, who))
        ctx.out.append(compose.subscribed(board_mail, user) if reminder else board_mail)


def _calendar(ctx: Context, board: Board, user: str, who: accounts.Reader) -> str:
    """A player's deadline as an iCalendar event (pbm.commands.mails.deadlines); "" for an observer,
    a game without a clock, or a player who set calendar=off."""
    if user not in board.players or who.preferences["calendar"] == "off":
        return ""
    domain = ctx.config.server.address.rpartition("@")[2]
    return deadlines.event(board, user, domain, ctx.now, page_link(ctx, board, user, who.token_epoch)) or ""


def _from_elsewhere(ctx: Context, board: Board, actor: str, mail: _BoardMail, new: bool) -> None:
    """A player's command sent from an address that is not theirs (a password works from
    anywhere, and a From is forged at no cost): the game mail, with its reply token, goes to the
    player's registered address, saying where the command came from; the sender gets a short
    confirmation without a token."""
    sender, vouched = ctx.incoming.sender, ctx.incoming.vouched
    command = f"change password {actor} OLD NEW"
    mail.notes.setdefault(actor, []).append(i18n.lazy(lambda: (
        _("This was sent from {address}, which is not one of your registered addresses. If it was "
          "not you, change your password now ({command}).") if vouched else
        _("This was sent from {address}, which its mail server did not vouch for (no DMARC pass). If "
          "it was not you, change your password now ({command}).")).format(address=sender,
                                                                           command=command)))
    ctx.out.append(compose.answer(ctx.incoming, subject(board, new=new), compose.render("note.j2", lines=[
        _("Done for {user} on {title} Board {number}. The game mail went to {user}'s registered "
          "address, as {address} is not one of them or was not vouched for.").format(
            user=actor, title=board.title, number=board.number, address=sender)]),
        root=thread(ctx, board), kind="note"))


class _BoardMail(NamedTuple):
    """What the board mails of one event share."""
    headline: list[str]
    notes: dict[str | None, list[str]]     # None: the observers' (`_observer_mail`)
    away: list[str]
    observers: list[str | None]
    new: bool                               # the first mail of the game
    root: str                               # the game's thread id
    attachments: tuple[tuple[str, str], ...]


def record(ctx: Context, board: Board) -> str:
    """The game's PGN (pbm.model.play.pgn), with the comments and chat of its players."""
    return pgn.record(board, games.comments(ctx.db, board, timed=True), ctx.config.server.address)


def _kind(board: Board, user: str | None) -> str:
    """A board mail is a turn mail to the player to move, else a note: a reply to a note that is
    not a move is chat (pbm.commands.dispatch.chat_or_play)."""
    return "turn" if board.status == games.ACTIVE and board.to_move == user else "note"


def answer(ctx: Context, board: Board, line: str) -> Outgoing:
    """A short answer about a game (queue, chat, unsubscribe), in the game's thread; to a player
    proven by password or token, with their reply address, so that the answer can be answered."""
    proven = ctx.actor in board.players
    return compose.answer(ctx.incoming, subject(board), compose.render("note.j2", lines=[line]),
                          root=thread(ctx, board),
                          reply_to=reply_address(ctx, board, ctx.actor) if proven else None, kind="note")


def shown(ctx: Context, board: Board, subject_line: str, values: dict) -> Outgoing:
    """A game shown on request (show, status; `values`: the board template's), in the game's
    thread.  Sent to a registered address of one of its players, it carries that player's reply
    address (the mail goes to their own mailbox, so the token is safe there): answering it answers
    the game, as a board mail's answer does."""
    user = accounts.user_of_address(ctx.db, ctx.incoming.sender, board.players)
    player = user if user in board.players else None
    epoch = accounts.token_epoch(ctx.db, player) if player else None
    if player:                          # their own page too, as safe there as their reply address
        values = {**values, "page": page_link(ctx, board, player, epoch)}
    html, related = html_part(ctx, values)
    return compose.answer(ctx.incoming, subject_line, compose.render("board.j2", **values), html=html,
                          related=related, root=thread(ctx, board),
                          reply_to=reply_address(ctx, board, player, epoch) if player else None,
                          kind=_kind(board, player) if player else "")


def chat(ctx: Context, board: Board, author: str, text: str, users: list[str]) -> list[str]:
    """Send `author`'s message to `users`; returns those who have an address."""
    sent = []
    game = board.replay()
    for user, who in accounts.readers(ctx.db, users).items():
        address = who.address
        if address is None:
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            body = compose.render("chat.j2", title=board.title, number=board.number, author=author,
                                  text=text, status=status_lines(board, game) + away_lines(ctx, board))
        mail = compose.notify(
            address, subject(board, comment=True), body, root=thread(ctx, board),
            reply_to=reply_address(ctx, board, user) if user in board.players else None, kind="chat")
        ctx.out.append(mail if user in board.players else compose.subscribed(mail, user))
        sent.append(user)
    return sent


def _body(ctx: Context, board: Board, game: rules.Game, mail: _BoardMail, user: str | None,
          who: accounts.Reader, attached: dict | None) -> tuple[str, tuple[str, tuple]]:
    """The board mail to `user` (None: to any observer, `_observer_mail`): the pbmserv text, and the
    same with the board drawn (HTML; none for a player who wants no board)."""
    values = summary(board, game, viewer=user, prefs=who.preferences, away=mail.away)
    if who.preferences["movetimes"] == "on":
        values["moves"] = movetimes.listed(board, game, who.preferences)
    if user in board.players:
        values["own_notes"] = notelines.own(ctx.db, board, game, user)
    values.update(headline=mail.headline, notes=mail.notes.get(user, []), comment=attached,
                  footer=next_steps.footer(board, game, user, user in mail.observers))
    values["public_page" if user is None else "page"] = (  # an observer's mail is everyone's
        tokens.public_page_url(ctx.config.web.base_url, board.variant, board.number) if user is None
        else page_link(ctx, board, user, who.token_epoch))
    return compose.render("board.j2", **values), html_part(ctx, values)


def page_link(ctx: Context, board: Board, user: str, epoch: int) -> str:
    """`user`'s own link to the game's web page (pbm.web), "" without `[web]`."""
    return tokens.page_url(ctx.config.web.base_url, ctx.config.secret, board.variant, board.number, user, epoch)


def _observer_mail(ctx: Context, board: Board, game: rules.Game, mail: _BoardMail, user: str,
                   who: accounts.Reader, attached: dict | None, views: dict[tuple, Outgoing]) -> Outgoing:
    """An observer's board mail: nothing in it is theirs (no name, no secret link), so it is made
    once per view (`_VIEW`) of the event, every observer who sees that view gets the same mail,
    stored once (pbm.outbox.queue): a game watched by a hundred costs a hundred envelopes."""
    notes, observing, prefs = tuple(mail.notes.get(user, ())), user in mail.observers, who.preferences
    key = (*(prefs[name] for name in _VIEW), prefs["movetimes"] == "on" and prefs["tz"], notes,
           attached is None, observing)
    if key not in views:
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            body, (html, related) = _body(ctx, board, game, mail._replace(
                notes={None: list(notes)}, observers=[None] if observing else []), None, who, attached)
            views[key] = compose.subscribed(compose.notify(
                "", subject(board, new=mail.new, comment=bool(attached)), body, html=html, related=related,
                root=mail.root, kind=_kind(board, None), attachments=mail.attachments), "")
    return replace(views[key], to=who.address, reader=user)


_VIEW = ("lang", "notation", "board", "board_faces", "movetimes")
