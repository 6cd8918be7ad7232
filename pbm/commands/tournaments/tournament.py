"""Tournament commands: `GAME tournament create|join|leave|start|show|withdraw|cancel|bye|correct
NAME ...` and `GAME tournaments` (bye and correct: pbm.commands.tournaments.directing).  The rounds
themselves go on by pbm.commands.tournaments.rounds as games end.

Decisions:
- The director need not play; they join like anyone else if they want to.  `[server]
  tournament_directors` lists who may create tournaments (empty: every registered player); an
  administrator may always direct (start, withdraw, cancel) any tournament.
- Round robin pairing numbers go by order of entry (the first to join is number 1), so everyone
  can check the Berger table; seeding (knockout) and Swiss ranking use the ratings at the start.
- `leave` before the start takes the entry back; after it, it withdraws the player like the
  director's `withdraw`: their running game is lost, the games they still had are forfeited.
- `cancel` stops the pairing of further rounds; games already running go on as ordinary games.
- Team tournaments (`--teams=N`, `join ... --team=TEAM [--board=K]`, substitutes after the start):
  pbm.commands.tournaments.teams.
- Within bounds: a player creates at most `[server] tournaments_per_week` (an
  administrator any number), a tournament takes at most `tournament_players`; a name is free again
  once its tournament was cancelled before it started, or finished a year ago (the old one is then
  named NAME~ID).
"""
from __future__ import annotations

from datetime import timedelta

from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.games import play, turns
from pbm.commands.mails import notify
from pbm.commands.tournaments import directing, paired, rounds, teams
from pbm.commands.tournaments import tournament_choices as choices
from pbm.commands.base import MAX_LISTED, CommandError, Context, authenticate
from pbm.commands.parse import Request
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import games, tournaments
from pbm.model.play import teams as team_records
from pbm.model.players import ratings, reliability
from pbm.model.db import timestamp
from pbm.model.play.tournaments import Tournament
from pbm.outbox import compose
from pbm.tournaments import SYSTEMS, rounds_needed, swiss_rounds, trf

SUBVERBS = ("create", "join", "leave", "start", "show", "record", "withdraw", "cancel", "bye",
            "correct")
# words after the sub-verb: (fewest, most)
WORDS = {"create": (3, 4), "join": (3, 3), "leave": (3, 3), "start": (3, 3), "show": (1, 1),
         "record": (1, 1),
         "withdraw": (4, 4), "cancel": (3, 3), "bye": (4, 4), "correct": (5, 5)}
MAX_ROUNDS = 50
NAME_KEPT = timedelta(days=365)     # a finished tournament's name is free again after this


def tournament(ctx: Context, req: Request) -> None:
    sub = req.args[0].lower()
    if sub not in SUBVERBS:
        raise CommandError(_("The word after tournament says what to do, and \"{word}\" is not one "
                             "of: {words}. Send \"{command}\".").format(
            word=req.args[0], words=", ".join(SUBVERBS), command=f"{req.game} help tournament"))
    req.safe.add(req.args[0])
    words = req.args[1:]
    low, high = WORDS[sub]
    if not low <= len(words) <= high:
        raise CommandError(ngettext(
            "tournament {sub} takes {usage}, and your command has {n} word after \"{sub}\".",
            "tournament {sub} takes {usage}, and your command has {n} words after \"{sub}\".",
            len(words)).format(sub=sub, usage=_usage(req.game, sub), n=len(words)))
    if sub != "create" and (req.params or req.options) and not (sub == "join" and not req.params):
        raise CommandError(_("Only tournament create takes -parameters and --options."))
    user = None if sub in ("show", "record") else authenticate(ctx, words[1], words[2])
    if not tournaments.good_name(words[0]):
        raise CommandError(_("{name} is not a tournament name: use 2 to 24 letters, digits and hyphens, "
                             "starting with a letter or digit, for example spring2026.").format(name=words[0]))
    if sub == "create":
        create(ctx, req, words, user)
        return
    t = tournaments.get(ctx.db, req.game, words[0])
    if t is None:
        raise CommandError(_("There is no {title} tournament {name}. Send \"{command}\" for the "
                             "list.").format(title=wording.name(catalogue.title(req.game)), name=words[0].lower(),
                                             command=f"{req.game} tournaments"))
    if user is None:
        (record if sub == "record" else show)(ctx, t)
        return
    if sub == "join":
        join(ctx, t, user, dict(req.options))
        return
    {"leave": leave, "start": start, "withdraw": withdraw, "cancel": cancel,
     "bye": directing.bye, "correct": directing.correct}[sub](ctx, t, user, words[3:])


def _usage(game: str | None, sub: str) -> str:
    tail = {"create": " --system=roundrobin|swiss|knockout [--rounds=N] [--double] "
                      "[--tiebreaks=LIST] [--band=MIN-MAX] [--sure] [--theme=MOVES] [--timeout=DAYS] "
                      "[--accelerated] [--late=N] [--byes=N] [--paired] [--decider=pair|seed] [-params] "
                      "[unrated]",
            "show": "", "withdraw": " PLAYER", "bye": " ROUND",
            "correct": " BOARD RESULT"}.get(sub, "")
    who = "" if sub in ("show", "record") else " USERID PASSWORD"
    return f"\"{game} tournament {sub} NAME{who}{tail}\""


def create(ctx: Context, req: Request, words: list[str], user: str) -> None:
    variant, title, name = req.game, catalogue.title(req.game), words[0].lower()
    directors = [d.lower() for d in ctx.config.server.tournament_directors]
    if directors and user not in directors and not _admin(ctx, user):
        raise CommandError(_("On this server only these players may direct tournaments: "
                             "{users}.").format(users=", ".join(directors)))
    rating = words[3].lower() if len(words) > 3 else "rated"
    if rating not in ("rated", "unrated"):
        raise CommandError(_("The last word of tournament create is rated or unrated (rated if left "
                             "out), not \"{word}\".").format(word=words[3]))
    options = dict(req.options)
    system, double, wanted = _system(options)
    chosen = choices.tiebreaks(options, system)
    band, sure = choices.band(options)
    directed = directing.options(options, system)
    team = teams.create_options(options, system)
    pairs = paired.option(options, system, double, directed)
    if pairs and team is not None:
        raise CommandError(_("--paired is for tournaments of players: a team match is already "
                             "played on every board; --double gives a team round robin its return "
                             "match, every board's colours reversed."))
    most = _max_timeouts(options)
    params = dict(req.params)
    theme = choices.theme(options, variant, params)
    game_options = turns.parse_options(options, ctx.config.server.min_timeout_days)
    fen, unrated = play.opening(variant, params)[2:4]   # refuse now what would refuse round 1
    held = tournaments.get(ctx.db, variant, name)
    if held and not tournaments.free_name(ctx.db, held, ctx.now - NAME_KEPT):
        raise CommandError(_("There is already a {title} tournament called {name}; choose another "
                             "name.").format(title=wording.name(title), name=name))
    weekly = ctx.config.server.tournaments_per_week
    made = tournaments.created_since(ctx.db, user, ctx.now - timedelta(days=7))
    if made >= weekly and not _admin(ctx, user):
        raise CommandError(ngettext(
            "{user} has created {n} tournament in the last week, the most this server allows; try "
            "again later.",
            "{user} has created {n} tournaments in the last week, the most this server allows; try "
            "again later.", made).format(user=user, n=made))
    t = tournaments.create(ctx.db, variant, name, user, system, double,     # a paired Swiss
                           wanted * 2 if pairs and wanted else wanted, params, game_options,
                           rating == "rated" and not unrated and fen is None, ctx.now, chosen, band,
                           theme, directed, pairs)
    if most is not None:
        reliability.require(ctx.db, t.id, most)
    if team is not None:
        team_records.make(ctx.db, t, *team)
    if sure:
        ratings.require_sure(ctx.db, t.id)
    _note(ctx, t, [_("You direct it. {status}").format(status=rounds.status_line(rounds.report(ctx, t))),
                   _("Players enter with: {command}").format(
                       command=f"{variant} tournament join {name} USERID PASSWORD"
                               f"{teams.ENTRY if team else ''}"),
                   _("When everyone is in, start it with: {command}").format(
                       command=f"{variant} tournament start {name} {user} PASSWORD"),
                   *choices.described(t, sure), *directing.described(t), *paired.described(t),
                   *(teams.described(team_records.Settings(*team)) if team else ())])


def _system(options: dict[str, str]) -> tuple[str, bool, int | None]:
    """--system, --double and --rounds taken out of `options`: (system, double, Swiss rounds)."""
    system = options.pop("system", "").lower()
    if system not in SYSTEMS:
        raise CommandError(_("A tournament needs its system: --system=roundrobin, --system=swiss or "
                             "--system=knockout, not --system={system}.").format(system=system) if system
                           else _("A tournament needs its system: --system=roundrobin, --system=swiss "
                                  "or --system=knockout."))
    double = "double" in options
    if options.pop("double", "") != "" or (double and system != "roundrobin"):
        raise CommandError(_("--double (alone, without a value) makes a double round robin; it goes "
                             "with --system=roundrobin only."))
    given = options.pop("rounds", None)
    if system != "swiss":
        if given is not None:
            raise CommandError(_("--rounds is for Swiss tournaments: a {system} has as many rounds as "
                                 "its field needs.").format(system=_(rounds.SYSTEMS[system])))
        return system, double, None
    if given is None or not given.isdigit() or not 1 <= int(given) <= MAX_ROUNDS:
        wrong = _(", not --rounds={given}").format(given=given) if given is not None else ""
        raise CommandError(_("A Swiss tournament needs its number of rounds: --rounds=N with N from 1 "
                             "to {most}{wrong}.").format(most=MAX_ROUNDS, wrong=wrong))
    return system, double, int(given)


def _max_timeouts(options: dict[str, str]) -> int | None:
    """--max-timeouts=N taken out of `options`: only players with at most N time-outs in the last
    12 months may join."""
    given = options.pop("max-timeouts", None)
    if given is not None and not given.isdigit():
        raise CommandError(_("--max-timeouts={given} is not a number: write --max-timeouts=N, the most "
                             "time-outs in the last 12 months a player may have to join, for example "
                             "--max-timeouts=2.").format(given=given))
    return None if given is None else int(given)


def _admin(ctx: Context, user: str) -> bool:
    return user in (a.lower() for a in ctx.config.admins.users)


def _director(ctx: Context, t: Tournament, user: str, verb: str) -> None:
    if user != t.director and not _admin(ctx, user):
        raise CommandError(verb.format(name=t.name, director=t.director))


def _entered(ctx: Context, t: Tournament, user: str) -> tournaments.Entry | None:
    return next((e for e in tournaments.entries(ctx.db, t) if e.user == user), None)


def _note(ctx: Context, t: Tournament, lines: list[str]) -> None:
    ctx.answer(_("{title} tournament {name}").format(title=wording.name(catalogue.title(t.variant)), name=t.name),
               "note.j2", lines=lines)


def join(ctx: Context, t: Tournament, user: str, options: dict[str, str]) -> None:
    late = directing.late_entry(t)
    setting = team_records.settings(ctx.db, t)
    substitute = setting is not None and t.status == tournaments.RUNNING
    if t.status != tournaments.OPEN and not late and not substitute:
        raise CommandError((_("{name} has started; it takes no more entries.") if t.status == tournaments.RUNNING
                            else _("{name} has ended; it takes no more entries.")).format(name=t.name))
    if _entered(ctx, t, user):
        raise CommandError(_("You have already entered {name}.").format(name=t.name))
    seat = teams.placing(ctx, t, setting, options)
    choices.check_band(t, user, ratings.get(ctx.db, t.variant, user).at(ctx.now),
                       ratings.sure_required(ctx.db, t.id))
    room = ctx.config.server.tournament_players
    if len(tournaments.entries(ctx.db, t)) >= room:
        raise CommandError(_("{name} is full: it has {n} players, the most a tournament on this server "
                             "takes.").format(name=t.name, n=room))
    most, had = reliability.max_timeouts(ctx.db, t.id), reliability.timeouts(ctx.db, user, ctx.now)
    if most is not None and had > most:
        raise CommandError(_("{name} takes players with at most {most} time-outs in the last 12 months, "
                             "and {user} has had {had}.").format(name=t.name, most=most, user=user, had=had))
    tournaments.join(ctx.db, t, user, ctx.now)
    count = len(tournaments.entries(ctx.db, t))
    if seat is not None:
        if substitute:
            tournaments.freeze_ratings(ctx.db, t, {user: ratings.get(ctx.db, t.variant, user).rating})
        _note(ctx, t, [teams.place(ctx, t, user, seat)])
        return
    if late:
        tournaments.freeze_ratings(ctx.db, t, {user: ratings.get(ctx.db, t.variant, user).rating})
        _note(ctx, t, [_("You have entered the {title} tournament {name} ({system}) late: you are "
                         "paired from round {number} on, and score nothing for the rounds before "
                         "it.").format(title=catalogue.title(t.variant), name=t.name,
                                       system=rounds.kind(t), number=t.round + 1)])
        return
    _note(ctx, t, [_("You have entered the {title} tournament {name} ({system}), player number "
                     "{number}. You will get a mail when it starts; until then you may leave with: "
                     "{command}").format(title=wording.name(catalogue.title(t.variant)), name=t.name,
                                         system=rounds.kind(t), number=count,
                                         command=f"{t.variant} tournament leave {t.name} {user} PASSWORD")])


def leave(ctx: Context, t: Tournament, user: str, _words: list[str]) -> None:
    entry = _entered(ctx, t, user)
    if entry is None or entry.withdrawn:
        raise CommandError(_("You are not playing in {name}.").format(name=t.name))
    if t.status == tournaments.OPEN:
        tournaments.leave(ctx.db, t, user)
        _note(ctx, t, [_("You have left {name}.").format(name=t.name)])
        return
    if t.status != tournaments.RUNNING:
        raise CommandError(_("{name} is over; there is nothing to leave.").format(name=t.name))
    _note(ctx, t, [_("You have withdrawn from {name}: your running game is lost, and the games you "
                     "had still to play are forfeited.").format(name=t.name)])
    _withdraw(ctx, t, user, f"{user} withdrew from the tournament {t.name}")


def withdraw(ctx: Context, t: Tournament, user: str, words: list[str]) -> None:
    _director(ctx, t, user, _("Only the director of {name}, {director}, can withdraw players from it."))
    player = words[0].lower()
    entry = _entered(ctx, t, player)
    if entry is None or entry.withdrawn:
        raise CommandError(_("{user} is not playing in {name}.").format(user=player, name=t.name))
    if t.status == tournaments.OPEN:
        tournaments.leave(ctx.db, t, player)
        _note(ctx, t, [_("{user} is no longer entered in {name}.").format(user=player, name=t.name)])
        return
    if t.status != tournaments.RUNNING:
        raise CommandError(_("{name} is over; nobody can be withdrawn from it.").format(name=t.name))
    _note(ctx, t, [_("{user} is withdrawn from {name}: their running game is lost, and the games "
                     "they had still to play are forfeited.").format(user=player, name=t.name)])
    _withdraw(ctx, t, player, f"{player} was withdrawn from the tournament {t.name} by {user}")


def _withdraw(ctx: Context, t: Tournament, player: str, reason: str) -> None:
    """`player` forfeits the rest: the running game is lost (which may end the round), and later
    pairings are forfeits (the pairing core leaves them out of a Swiss)."""
    tournaments.withdraw(ctx.db, t, player, ctx.now)
    running = [p for p in tournaments.played(ctx.db, t) if p.game_id and p.game.result is None
               and player in (p.game.white, p.game.black)]
    for p in running:
        board = games.get(ctx.db, p.game_id)
        if board.status != games.ACTIVE:
            continue
        turns.finish(ctx, board, board.opponent(player), reason)
        games.add_event(ctx.db, board, "withdrawn", player, t.name, ctx.now)
        games.save(ctx.db, board, ctx.now)
        notify.board_mails(ctx, board, board.replay(), actor=None, headline=[lazy(
            lambda: _("{reason}: {user} loses this game.").format(reason=wording.reason(reason),
                                                                  user=player))])
    if not running:
        rounds.advance(ctx, tournaments.by_id(ctx.db, t.id))


def start(ctx: Context, t: Tournament, user: str, _words: list[str]) -> None:
    _director(ctx, t, user, _("Only the director of {name}, {director}, can start it."))
    if t.status != tournaments.OPEN:
        raise CommandError(_("{name} has started already.").format(name=t.name))
    entries = tournaments.entries(ctx.db, t)
    setting = team_records.settings(ctx.db, t)
    field = teams.field(ctx, t, setting) if setting else len(entries)
    if len(entries) < 2:
        raise CommandError(ngettext(
            "{name} has {n} player; a tournament needs at least two. Players enter with: {command}",
            "{name} has {n} players; a tournament needs at least two. Players enter with: {command}",
            len(entries)).format(name=t.name, n=len(entries),
                                 command=f"{t.variant} tournament join {t.name} USERID PASSWORD"))
    tournaments.freeze_ratings(ctx.db, t, {e.user: ratings.get(ctx.db, t.variant, e.user).rating
                                           for e in entries})
    asked = t.rounds
    t.rounds = paired.rounds_needed(t, field) if t.paired else \
        rounds_needed(t.system, field, t.rounds, double=t.double)
    t.status, t.started_at = tournaments.RUNNING, timestamp(ctx.now)
    tournaments.save(ctx.db, t)
    fewer = [] if t.system != "swiss" or t.rounds == asked else [ngettext(
        "You asked for {asked} rounds; a Swiss of {players} players has at most {n} round, half "
        "the field rounded up, so that every round can be paired without a rematch, as FIDE's "
        "Swiss rules require. For more rounds, run a round robin.",
        "You asked for {asked} rounds; a Swiss of {players} players has at most {n} rounds, half "
        "the field rounded up, so that every round can be paired without a rematch, as FIDE's "
        "Swiss rules require. For more rounds, run a round robin.", paired.shown(t, t.rounds)).format(
        asked=paired.shown(t, asked or 0), players=field, n=swiss_rounds(field))]
    _note(ctx, t, [ngettext("{name} has started with {players} players and {n} round; every player "
                            "has been mailed the pairings.",
                            "{name} has started with {players} players and {n} rounds; every player "
                            "has been mailed the pairings.", paired.shown(t, t.rounds)).format(
        name=t.name, players=len(entries), n=paired.shown(t, t.rounds))] + fewer)
    rounds.advance(ctx, t)


def cancel(ctx: Context, t: Tournament, user: str, _words: list[str]) -> None:
    _director(ctx, t, user, _("Only the director of {name}, {director}, can cancel it."))
    if t.status not in (tournaments.OPEN, tournaments.RUNNING):
        raise CommandError(_("{name} is over already.").format(name=t.name))
    t.status, t.finished_at = tournaments.CANCELLED, timestamp(ctx.now)
    tournaments.save(ctx.db, t)
    title = catalogue.title(t.variant)
    rounds.mail_everyone(ctx, t, lazy(lambda: _("{title} tournament {name} cancelled").format(
        title=wording.name(title), name=t.name)), [lazy(lambda: _(
            "{user} has cancelled the {title} tournament {name}. No more rounds will be paired; games "
            "already being played go on as ordinary games.").format(user=user, title=wording.name(title), name=t.name))])


def show(ctx: Context, t: Tournament) -> None:
    values = rounds.report(ctx, t)
    setting = team_records.settings(ctx.db, t)
    if t.status == tournaments.OPEN:
        names = ", ".join(e.user for e in values["entries"]) or _("nobody yet")
        lines = [_("Entered so far: {users}. Enter with: {command}").format(
            users=names, command=f"{t.variant} tournament join {t.name} USERID PASSWORD"
                                 f"{teams.ENTRY if setting else ''}"),
            *choices.described(t, ratings.sure_required(ctx.db, t.id)), *directing.described(t),
            *paired.described(t)]
    elif directing.late_entry(t):
        lines = directing.described(t)
    else:
        lines = []
    if setting:
        lines += teams.shown(ctx, t, setting)
    text, html = rounds.render(values, lines)
    ctx.out.append(compose.answer(ctx.incoming, _("{title} tournament {name}").format(
        title=wording.name(values["title"]), name=t.name), text, html=html))


def record(ctx: Context, t: Tournament) -> None:
    """The tournament as a FIDE TRF-16, attached."""
    title, name = catalogue.title(t.variant), f"{t.variant}-{t.name}.trf"
    report = tournaments.report(ctx.db, t)
    text = trf.write(report, rounds.tiebreaks(t))
    if team_records.settings(ctx.db, t):
        text += teams.trf_teams(ctx, t, report)
    ctx.out.append(compose.answer(ctx.incoming, _("{title} tournament {name}: TRF").format(
        title=wording.name(title), name=t.name), compose.render("tournament_record.j2", title=title, name=t.name,
                                                  filename=name), attachments=((name, text),)))


def list_tournaments(ctx: Context, req: Request) -> None:
    title = catalogue.title(req.game)
    found = tournaments.listing(ctx.db, req.game, MAX_LISTED)
    lines = [_listed(ctx, t) for t in found]
    if not lines:
        lines = [_("No {title} tournaments. Create one: {command}").format(
            title=wording.name(title), command=f"{req.game} tournament create NAME USERID PASSWORD "
                                 f"--system=roundrobin|swiss|knockout")]
    else:
        lines.append(_("More on one: {command}").format(command=f"{req.game} tournament show NAME"))
    heading = _("{title} tournaments").format(title=wording.name(title))
    ctx.answer(heading, "games.j2", heading=heading, lines=lines, capped=len(found) == MAX_LISTED)


def _listed(ctx: Context, t: Tournament) -> str:
    count = len(tournaments.entries(ctx.db, t))
    state = {tournaments.OPEN: _("open"),
             tournaments.RUNNING: _("round {number}/{rounds}").format(
                 number=paired.shown(t, t.round), rounds=paired.shown(t, t.rounds or 0)),
             tournaments.FINISHED: _("finished"), tournaments.CANCELLED: _("cancelled")}[t.status]
    kind = rounds.kind(t)
    players = ngettext("{n} player", "{n} players", count).format(n=f"{count:>3}")
    return f"{t.name:<24} {i18n.ljust(kind, 19)} {i18n.ljust(players, 12)} {state}"

