"""Tournament rounds: when a tournament game ends, its result is recorded and, once the round is
complete, the next round is paired and started at once, in the same transaction as the command
(or time-out) that ended it; the tournament's mails (each round's start, the end) are written here.

Every game of a tournament starts with both players' consent (they joined): clocks running, rated
unless the tournament is not, and a resignation before one's first move is a loss.  Decisions:
- White is the player who moves first.  A game that ends before any move was made (a resignation
  or a time-out at move 1) scores as a forfeit (`+-`, `-+`): it was not played over the board.
- A game an administrator cancels scores as a double forfeit (`--`): nobody gains a point.
- A round made only of forfeits and byes (players who withdrew) is complete at once, and the next
  one is paired straight away; the round mail goes out for the round that is being played.
"""
from __future__ import annotations

from dataclasses import replace

import rules
from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.games import play, turns
from pbm.commands.mails import notify
from pbm.commands.tournaments import paired, teams
from pbm.commands.tournaments import tournament_choices as choices
from pbm.commands.base import Context
from pbm.i18n import N_, _, lazy, ngettext
from pbm.model.play import games, tournaments
from pbm.model.play import teams as team_records
from pbm.model.players import accounts
from pbm.model.db import timestamp
from pbm.model.play.games import Board
from pbm.model.play.teams import Settings
from pbm.model.play.tournaments import Entry, Tournament
from pbm.outbox import compose
from pbm.tournaments import Game, Pairing, knockout, pair_round
from pbm.tournaments.acceleration import baku
from pbm.tournaments.crosstable import crosstable_html, crosstable_text, short_table
from pbm.tournaments.standings import standings
from pbm.tournaments.tiebreaks import DEFAULTS, NAMES

SYSTEMS = {"roundrobin": N_("round robin"), "swiss": N_("Swiss"), "knockout": N_("knockout")}
PAIRED = {"roundrobin": N_("paired round robin"), "swiss": N_("paired Swiss"),
          "knockout": N_("paired knockout")}


def game_ended(ctx: Context, board: Board) -> None:
    """The hook of pbm.commands.games.turns: record a tournament game's result and go on."""
    found = tournaments.of_game(ctx.db, board.id)
    if found is None:
        return
    t, row_id, white, _black = found
    tournaments.set_result(ctx.db, row_id, result_of(board, white))
    # the next round (or the end) once this game's own end is mailed: its players read that first
    ctx.after(lambda: advance(ctx, tournaments.by_id(ctx.db, t.id)))



def result_of(board: Board, white: str) -> str:
    """The tournament result of an ended game, White first (see the module's decisions)."""
    if board.status != games.FINISHED:
        return "--"
    if board.winner is None:
        return "1/2-1/2"
    won = board.winner == white
    if board.ply == 0:
        return "+-" if won else "-+"
    return "1-0" if won else "0-1"


def advance(ctx: Context, t: Tournament) -> None:
    """Start what is due: a knockout's replays at once, and once no game of the round is being
    played, the next round, else the end of the tournament."""
    before, started, relaxed = t.round, False, []
    setting = team_records.settings(ctx.db, t)
    while t.status == tournaments.RUNNING:
        rows = tournaments.played(ctx.db, t)
        entries = tournaments.entries(ctx.db, t)
        played = [p.game for p in rows]
        withdrawn = {e.user for e in entries if e.withdrawn}
        owed = paired.owed(t, [e.entrant() for e in entries], played, withdrawn) if t.paired \
            else knockout.replays(played, t.round, withdrawn) if t.system == "knockout" else []
        boards = sum(1 for g in played if g.round == t.round)      # replays: the next board numbers
        owed = [replace(p, board=boards + i) for i, p in enumerate(owed, start=1)]
        if not owed and any(g.result is None and not g.bye for g in played):
            break
        pairings = owed or (teams.pair_next(ctx, t, setting, entries, rows, withdrawn) if setting
                            else next_pairings(t, entries, played, withdrawn,
                                               tournaments.byes_asked(ctx.db, t)))
        if not pairings:
            finish(ctx, t)
            return
        start(ctx, t, pairings, setting)
        started, relaxed = True, [p for p in pairings if p.relaxed]
    if started:
        mail_round(ctx, t, replays=t.round == before, relaxed=relaxed)


def next_pairings(t: Tournament, entries: list[Entry], played: list[Game],
                  withdrawn: set[str], byes: dict[str, set[int]]) -> list[Pairing]:
    """The next round's pairings (forfeits for players who withdrew; the half-point byes asked for
    in `byes`, last; an accelerated Swiss with Baku's virtual points); none once it is over."""
    entrants = [e.entrant() for e in entries]
    if t.paired:
        return paired.next_pairings(t, entrants, played, withdrawn)
    if t.system == "knockout":
        return knockout.next_pairings(entrants, played, withdrawn)     # replays are started at once
    if t.round >= (t.rounds or 0) or (t.system == "swiss" and len(entries) - len(withdrawn) < 2):
        return []
    asked = sorted(u for u, wanted in byes.items() if t.round + 1 in wanted and u not in withdrawn)
    pairings = pair_round(t.system, entrants, played, t.round + 1, double=t.double,
                          withdrawn=withdrawn | set(asked), rounds=t.rounds,
                          virtual=baku(entrants, t.rounds or 0) if t.accelerated else None)
    return pairings + [Pairing(t.round + 1, len(pairings) + i, u, None, "H")
                       for i, u in enumerate(asked, start=1)]


def start(ctx: Context, t: Tournament, pairings: list[Pairing], setting: Settings | None) -> None:
    """Store the pairings and start their games (byes and forfeits have none); `setting`: a team
    tournament's, whose games' first mails name their matches."""
    asked_about = ctx.board
    title = catalogue.title(t.variant)
    before = [p.game for p in tournaments.played(ctx.db, t)] if t.paired else []
    matches = {(m.round, m.number): m for m in team_records.matches(ctx.db, t)} if setting else {}
    for pairing in pairings:
        game_id = None
        if pairing.black is not None and pairing.result is None:
            # after an odd theme Black moves first, and a game's first player is the one to move
            first, second = ((pairing.black, pairing.white) if len(t.theme or ()) % 2
                             else (pairing.white, pairing.black))
            board, game, chosen = play.start(ctx, t.variant, t.params, t.options, first, second,
                                             pairing.white, expires_at=None, rated=t.rated)
            if t.theme:
                game = from_theme(ctx, t, board)
                chosen = [lazy(lambda: _("A thematic game: it starts after {moves} (book).").format(
                    moves=choices.book(t)))]
            game_id = board.id
            games.add_event(ctx.db, board, "tournament", t.director,
                            f"{t.name} round {pairing.round} board {pairing.board}", ctx.now)
            headline = [lazy(lambda p=pairing: _(
                "Round {round} of the {title} tournament {name}, board {board}: {white} against "
                "{black}. The game counts from now: both clocks run, and resigning is a loss.").format(
                round=p.round, title=wording.name(title), name=t.name, board=p.board, white=p.white, black=p.black)),
                *chosen] if not (t.paired or setting) else [
                paired.headline(t, pairing, before) if t.paired else
                teams.headline(t, setting, matches, pairing), *chosen]
            if not board.rated:
                headline.append(lazy(lambda: _("The game is not rated.")))
            notify.board_mails(ctx, board, game, actor=None, headline=headline, new=True)
        tournaments.add(ctx.db, t, pairing, game_id)
        before.append(pairing.game())
    ctx.board = asked_about
    t.round = max(t.round, *(p.round for p in pairings))
    tournaments.save(ctx.db, t)


def from_theme(ctx: Context, t: Tournament, board: Board) -> rules.Game:
    """Start `board` from the position after the tournament's theme, still rated; the record
    keeps the theme's moves as book."""
    game = choices.themed(t)
    games.set_start(ctx.db, board, board.params, game.fen())
    board.to_move = board.player_of(game.turn)
    games.add_event(ctx.db, board, "book", None, choices.book(t), ctx.now)
    turns.schedule(ctx, board)
    games.save(ctx.db, board, ctx.now)
    fresh = board.replay()
    games.remember(board, fresh)
    return fresh


def finish(ctx: Context, t: Tournament) -> None:
    t.status, t.finished_at = tournaments.FINISHED, timestamp(ctx.now)
    tournaments.save(ctx.db, t)
    values = report(ctx, t)
    top = values["ranked"][0]
    out_of = sum(1 for g in values["games"] if top.user in (g.white, g.black))
    title = values["title"]

    def over() -> str:
        if t.system == "knockout":
            return _("The {title} tournament {name} is over. The winner is {user}, who won the "
                     "final.").format(title=wording.name(title), name=t.name, user=top.user)
        if t.paired:
            return ngettext("The {title} tournament {name} is over. The winner is {user}, with "
                            "{points} point from {games} games.",
                            "The {title} tournament {name} is over. The winner is {user}, with "
                            "{points} points from {games} games.", top.points).format(
                title=wording.name(title), name=t.name, user=top.user, points=f"{top.points:g}",
                games=out_of)
        return ngettext("The {title} tournament {name} is over. The winner is {user}, with {points} "
                        "point from {rounds} rounds.",
                        "The {title} tournament {name} is over. The winner is {user}, with {points} "
                        "points from {rounds} rounds.", top.points).format(
            title=wording.name(title), name=t.name, user=top.user, points=f"{top.points:g}", rounds=out_of)

    def order() -> str:
        if t.system == "knockout":
            return _("Places go by {tiebreaks}, then by points, then by rating at the start, then "
                     "by user id.").format(tiebreaks=_("the round reached"))
        names = _(", then ").join(_("{name} ({code})").format(name=_(NAMES[code]), code=code)
                                  for code in tiebreaks(t))
        return _("Ties on points are broken by {tiebreaks}, then by rating at the start, then by "
                 "user id.").format(tiebreaks=names)

    mail_everyone(ctx, t, lazy(lambda: _("{title} tournament {name}: won by {user}").format(
        title=wording.name(title), name=t.name, user=values.get("winner") or top.user)),
        values.get("team_over") or [lazy(over), lazy(order)], values)


def mail_round(ctx: Context, t: Tournament, replays: bool, relaxed: list[Pairing] = ()) -> None:
    """Every player still in (and the director) hears that a round (or replays) starts, and which
    pairings break an absolute criterion of the Swiss system that no pairing could keep."""
    title = catalogue.title(t.variant)

    def round_text() -> str:
        if t.rounds:
            return _("round {number} of {rounds}").format(number=paired.shown(t, t.round),
                                                          rounds=paired.shown(t, t.rounds))
        return _("round {number}").format(number=t.round)

    def began() -> str:
        values = {"title": wording.name(title), "name": t.name, "system": kind(t), "round": round_text()}
        if replays and t.paired:
            return _("The {title} tournament {name} ({system}): the pairings of {round} tied on "
                     "points play a decider, a further pair of games. The game mails come "
                     "separately; answer them with your moves.").format(**values)
        if replays:
            return _("The {title} tournament {name} ({system}): the drawn games of {round} are "
                     "replayed, colours reversed. The game mails come separately; answer them with "
                     "your moves.").format(**values)
        return _("The {title} tournament {name} ({system}): {round} has begun. The game mails come "
                 "separately; answer them with your moves.").format(**values)

    def subject() -> str:
        if replays and t.paired:
            return _("{title} tournament {name}: {round} deciders").format(
                title=wording.name(title), name=t.name, round=round_text())
        if replays:
            return _("{title} tournament {name}: {round} replays").format(
                title=wording.name(title), name=t.name, round=round_text())
        return _("{title} tournament {name}: {round}").format(title=wording.name(title), name=t.name,
                                                               round=round_text())

    mail_everyone(ctx, t, lazy(subject), [lazy(began)] + ([lazy(lambda: relaxation(relaxed))]
                                                          if relaxed else []))


def relaxation(relaxed: list[Pairing]) -> str:
    """What the Swiss pairing had to relax this round, board by board."""
    lines = [_("No pairing of this round keeps all the absolute criteria of FIDE's Dutch system, "
               "so, as its rules let the arbiter, they were relaxed in pbm's documented order "
               "(colours, then byes, then rematches) as little as possible:")]
    for p in relaxed:
        if p.relaxed == "bye":
            lines.append(_("{user} has a second bye.").format(user=p.white))
        elif p.relaxed == "rematch":
            lines.append(_("Board {board}: {white} and {black} meet a second time.").format(
                board=p.board, white=p.white, black=p.black))
        else:
            lines.append(_("Board {board}: {white} against {black} gives a player a third game in "
                           "a row with one colour, or three games more with one colour than with "
                           "the other.").format(board=p.board, white=p.white, black=p.black))
    return " ".join(lines)


def mail_everyone(ctx: Context, t: Tournament, subject: object, lines: list,
                  values: dict | None = None) -> None:
    """The same news to every player still in and to the director, each with their own game, in
    their own language (`subject` and `lines` are written when each mail is: `lazy`)."""
    values = values or report(ctx, t)
    users = [e.user for e in values["entries"] if not e.withdrawn]
    large = len(values["entries"]) > LARGE
    for user, who in accounts.readers(ctx.db, list(dict.fromkeys([*users, t.director]))).items():
        if who.address is None:
            continue
        with i18n.speaking(who.preferences["lang"], who.preferences["notation"]):
            shown = brief(values, user) if large else values
            text, html = render(shown, [str(line) for line in lines] + personal(values, user)
                                + [_("The full crosstable: send the subject {command}").format(
                                    command=f"{t.variant} tournament show {t.name}")] * large)
            ctx.out.append(compose.subscribed(compose.notify(who.address, str(subject), text, html=html,
                                                             kind="note"), user))


LARGE = 16      # players in a tournament past which its mails to everyone are brief (`brief`)


def brief(values: dict, user: str) -> dict:
    """What a large tournament's mail to everyone shows `user`: their own board of the round and a
    short standings table, computed once for all -- 64 crosstables of 64 players in every round
    mail made megabytes of mail and held the write lock for seconds."""
    ranked = values["ranked"] if any(g.result for g in values["games"]) else []
    table = short_table(ranked, user) if ranked else None
    current = [p for p in values["current"] if user in (p.game.white, p.game.black)]
    if "team_table" in values:          # a team tournament: the teams' table, without the players'
        return dict(values, current=current, crosstable=values["team_table"],
                    crosstable_html=values["team_table_html"])
    return dict(values, current=current,
                crosstable=table.text() if table else "", crosstable_html=table.html() if table else "")


def personal(values: dict, user: str) -> list[str]:
    """What concerns `user` in the current round: their game or bye."""
    t: Tournament = values["tournament"]
    if t.status != tournaments.RUNNING:
        return []
    if t.paired:
        return paired.scores(t, user, values["games"]) + paired.games_line(values, user)
    for p in values["current"]:
        if user == p.game.white and p.game.requested:
            return [_("You have the half-point bye you asked for in round {number}.").format(
                number=t.round)]
        if user == p.game.white and p.game.bye:
            return [_("You have a bye in round {number}.").format(number=t.round)]
        if user in (p.game.white, p.game.black) and p.game.result is None:
            side = values["sides"][0] if user == p.game.white else values["sides"][1]
            return [_("Your game: {title} Board {number} against {user}; you play {side}.").format(
                title=values["title"], number=p.number, user=p.game.opponent(user),
                side=wording.name(side))]
    return []


def tiebreaks(t: Tournament) -> tuple[str, ...]:
    """The tournament's tie-breaks, FIDE's abbreviations in order."""
    return DEFAULTS[t.system] if t.tiebreaks is None else t.tiebreaks


def report(ctx: Context, t: Tournament) -> dict:
    """What a tournament mail shows: the state, the current round's boards, the crosstable."""
    entries = tournaments.entries(ctx.db, t)
    rows = tournaments.played(ctx.db, t)
    played = [p.game for p in rows]
    entrants = [e.entrant() for e in entries]
    sides = rules.get_variant(t.variant).side_names
    fixed = tournaments.corrections(ctx.db, t)
    marked = frozenset((c.round, c.white) for c in fixed)
    return {"tournament": t, "title": catalogue.title(t.variant), "entries": entries,
            "games": played, "sides": sides,
            "current": paired.grouped(t, [p for p in rows if p.game.round in paired.current(t)]),
            "shown_round": paired.shown(t, t.round),
            # each result the director corrected, a line in the reader's language
            "corrected": [lazy(lambda c=c: _(
                "Corrected by the director: round {round}, board {board}, {white} against "
                "{black}: {was}, now {now}.").format(**{**c.__dict__, "round": paired.shown(t, c.round)}))
                for c in fixed],
            "ranked": standings(t.system, entrants, played, t.tiebreaks, t.rounds, t.paired or None)
            if played else [],
            # written in each reader's language: the headings and legend are words
            "crosstable": lazy(lambda: crosstable_text(t.system, entrants, played, double=t.double,
                                                       tiebreaks=t.tiebreaks, rounds=t.rounds,
                                                       corrected=marked, paired=t.paired or None))
            if played else "",
            "crosstable_html": lazy(lambda: crosstable_html(t.system, entrants, played, double=t.double,
                                                            tiebreaks=t.tiebreaks, rounds=t.rounds,
                                                            corrected=marked, paired=t.paired or None))
            if played else "",
            "crosstable_page": lazy(lambda: crosstable_html(t.system, entrants, played, double=t.double,
                                                            tiebreaks=t.tiebreaks, rounds=t.rounds, inline=False,
                                                            paired=t.paired or None))
            if played else "",       # for the web page: styled by class (its CSP forbids inline style)
            # the tournament's web page (pbm.web.tournaments), where the server has pages
            "page": f"{base.rstrip('/')}/t/{t.variant}/{t.name}" if (base := ctx.config.web.base_url) else "",
            **(teams.values(ctx, t, setting, entries, rows)
               if (setting := team_records.settings(ctx.db, t)) else {})}


def board_lines(values: dict) -> list[str]:
    """The current round's boards as fixed-width lines: board, the two players, the game."""
    white, black = (wording.name(side) for side in values["sides"])
    board = _("Bd")
    lines = [f"{' ' * (3 - i18n.width(board))}{board}  {i18n.ljust(white, 17)} {i18n.ljust(black, 17)} "
             f"{_('Game')}"]
    for p in values["current"]:
        g = p.game
        if g.bye:
            lines.append(f"{p.board:>3}  {g.white:<17} "
                         f"{_('(half-point bye)') if g.requested else _('(bye)')}")
            continue
        where = f"{values['title']} Board {p.number}" if p.number else _("forfeit")
        outcome = f" {g.result}" if g.result else ""
        lines.append(f"{p.board:>3}  {g.white:<17} {g.black:<17} {where}{outcome}")
        lines += paired.score_line(values, p)
    return lines


def render(values: dict, lines: list[str]) -> tuple[str, str]:
    t: Tournament = values["tournament"]
    lines = [*lines, *map(str, values["corrected"]), *map(str, values.get("matches", ()))]
    data = dict(values, lines=lines, boards=board_lines(values) if values["current"] else [],
                status=status_line(values), name=t.name,
                colours=_("W: {white} (moves first), B: {black}").format(
                    white=wording.name(values["sides"][0]), black=wording.name(values["sides"][1])))
    return compose.render("tournament.j2", **data), compose.render_html("tournament.html.j2", **data)


def status_line(values: dict) -> str:
    t: Tournament = values["tournament"]
    entered = len(values["entries"])
    players = ngettext("{n} player", "{n} players", entered).format(n=entered)
    shown = paired.shown(t, t.rounds or 0)
    rounds = (ngettext("{n} round", "{n} rounds", shown).format(n=shown) if t.rounds
              else _("rounds set at the start"))
    state = {tournaments.OPEN: _("open for entries"),
             tournaments.RUNNING: _("round {number} is being played").format(
                 number=paired.shown(t, t.round)),
             tournaments.FINISHED: _("finished"), tournaments.CANCELLED: _("cancelled")}[t.status]
    return _("{title} tournament {name}: {system}, {rounds}, {players}, {rated}; directed by "
             "{director}; {state}.").format(title=wording.name(values["title"]), name=t.name, system=kind(t),
                                           rounds=rounds, players=players,
                                           rated=_("rated") if t.rated else _("not rated"),
                                           director=t.director, state=state)


def kind(t: Tournament) -> str:
    """The tournament's system in the reader's language (`double round robin`, `Swiss` ...)."""
    if t.paired:
        return _(PAIRED[t.system])
    return _("double round robin") if t.double else _(SYSTEMS[t.system])
