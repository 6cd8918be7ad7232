"""Tournament commands: `GAME tournament create|join|leave|start|show|withdraw|cancel NAME ...` and
`GAME tournaments`.  The rounds themselves go on by pbm.commands.rounds as games end.

Decisions:
- The director need not play; they join like anyone else if they want to.  `[server]
  tournament_directors` lists who may create tournaments (empty: every registered player); an
  administrator may always direct (start, withdraw, cancel) any tournament.
- Round robin pairing numbers go by order of entry (the first to join is number 1), so everyone
  can check the Berger table; seeding (knockout) and Swiss ranking use the ratings at the start.
- `leave` before the start takes the entry back; after it, it withdraws the player like the
  director's `withdraw`: their running game is lost, the games they still had are forfeited.
- `cancel` stops the pairing of further rounds; games already running go on as ordinary games.
"""
from __future__ import annotations

from pbm import catalogue
from pbm.commands import notify, play, rounds, turns
from pbm.commands.base import MAX_LISTED, CommandError, Context, authenticate
from pbm.commands.parse import Request
from pbm.model import games, ratings, tournaments
from pbm.model.db import timestamp
from pbm.model.tournaments import Tournament
from pbm.outbox import compose
from pbm.tournaments import SYSTEMS, rounds_needed

SUBVERBS = ("create", "join", "leave", "start", "show", "withdraw", "cancel")
# words after the sub-verb: (fewest, most)
WORDS = {"create": (3, 4), "join": (3, 3), "leave": (3, 3), "start": (3, 3), "show": (1, 1),
         "withdraw": (4, 4), "cancel": (3, 3)}
MAX_ROUNDS = 50


def tournament(ctx: Context, req: Request) -> None:
    sub = req.args[0].lower()
    if sub not in SUBVERBS:
        raise CommandError(f"The word after tournament says what to do, and \"{req.args[0]}\" is "
                           f"not one of: {', '.join(SUBVERBS)}. Send \"{req.game} help tournament\".")
    req.safe.add(req.args[0])
    words = req.args[1:]
    low, high = WORDS[sub]
    if not low <= len(words) <= high:
        raise CommandError(f"tournament {sub} takes {_usage(req.game, sub)}, and your command has "
                           f"{len(words)} word{'s' * (len(words) != 1)} after \"{sub}\".")
    if sub != "create" and (req.params or req.options):
        raise CommandError("Only tournament create takes -parameters and --options.")
    user = None if sub == "show" else authenticate(ctx, words[1], words[2])
    problem = tournaments.name_problem(words[0])
    if problem:
        raise CommandError(problem)
    if sub == "create":
        create(ctx, req, words, user)
        return
    t = tournaments.get(ctx.db, req.game, words[0])
    if t is None:
        raise CommandError(f"There is no {catalogue.title(req.game)} tournament {words[0].lower()}. "
                           f"Send \"{req.game} tournaments\" for the list.")
    if user is None:
        show(ctx, t)
        return
    {"join": join, "leave": leave, "start": start, "withdraw": withdraw,
     "cancel": cancel}[sub](ctx, t, user, words[3:])


def _usage(game: str | None, sub: str) -> str:
    tail = {"create": " --system=roundrobin|swiss|knockout [--rounds=N] [--double] "
                      "[--timeout=DAYS] [-params] [unrated]",
            "show": "", "withdraw": " PLAYER"}.get(sub, "")
    who = "" if sub == "show" else " USERID PASSWORD"
    return f"\"{game} tournament {sub} NAME{who}{tail}\""


def create(ctx: Context, req: Request, words: list[str], user: str) -> None:
    variant, title, name = req.game, catalogue.title(req.game), words[0].lower()
    directors = [d.lower() for d in ctx.config.server.tournament_directors]
    if directors and user not in directors and not _admin(ctx, user):
        raise CommandError(f"On this server only these players may direct tournaments: "
                           f"{', '.join(directors)}.")
    rating = words[3].lower() if len(words) > 3 else "rated"
    if rating not in ("rated", "unrated"):
        raise CommandError(f"The last word of tournament create is rated or unrated (rated if left "
                           f"out), not \"{words[3]}\".")
    options = dict(req.options)
    system, double, wanted = _system(options)
    game_options = turns.parse_options(options, ctx.config.server.min_timeout_days)
    params = dict(req.params)
    _, _, fen, unrated, _ = play.opening(variant, params)   # refuse now what would refuse round 1
    if tournaments.get(ctx.db, variant, name):
        raise CommandError(f"There is already a {title} tournament called {name}; choose another name.")
    t = tournaments.create(ctx.db, variant, name, user, system, double, wanted, params, game_options,
                           rating == "rated" and not unrated and fen is None, ctx.now)
    _note(ctx, t, [f"You direct it. {rounds.status_line(rounds.report(ctx, t))}",
                   f"Players enter with: {variant} tournament join {name} USERID PASSWORD",
                   f"When everyone is in, start it with: {variant} tournament start {name} {user} "
                   f"PASSWORD"])


def _system(options: dict[str, str]) -> tuple[str, bool, int | None]:
    """--system, --double and --rounds taken out of `options`: (system, double, Swiss rounds)."""
    system = options.pop("system", "").lower()
    if system not in SYSTEMS:
        raise CommandError(f"A tournament needs its system: --system=roundrobin, --system=swiss or "
                           f"--system=knockout{f', not --system={system}' if system else ''}.")
    double = "double" in options
    if options.pop("double", "") != "" or (double and system != "roundrobin"):
        raise CommandError("--double (alone, without a value) makes a double round robin; it goes "
                           "with --system=roundrobin only.")
    given = options.pop("rounds", None)
    if system != "swiss":
        if given is not None:
            raise CommandError(f"--rounds is for Swiss tournaments: a {rounds.SYSTEMS[system]} has "
                               f"as many rounds as its field needs.")
        return system, double, None
    if given is None or not given.isdigit() or not 1 <= int(given) <= MAX_ROUNDS:
        raise CommandError(f"A Swiss tournament needs its number of rounds: --rounds=N with N from 1 "
                           f"to {MAX_ROUNDS}{f', not --rounds={given}' if given is not None else ''}.")
    return system, double, int(given)


def _admin(ctx: Context, user: str) -> bool:
    return user in (a.lower() for a in ctx.config.admins.users)


def _director(ctx: Context, t: Tournament, user: str, verb: str) -> None:
    if user != t.director and not _admin(ctx, user):
        raise CommandError(f"Only the director of {t.name}, {t.director}, can {verb} it.")


def _entered(ctx: Context, t: Tournament, user: str) -> tournaments.Entry | None:
    return next((e for e in tournaments.entries(ctx.db, t) if e.user == user), None)


def _note(ctx: Context, t: Tournament, lines: list[str]) -> None:
    ctx.answer(f"{catalogue.title(t.variant)} tournament {t.name}", "note.j2", lines=lines)


def join(ctx: Context, t: Tournament, user: str, _: list[str]) -> None:
    if t.status != tournaments.OPEN:
        raise CommandError(f"{t.name} has {'started' if t.status == tournaments.RUNNING else 'ended'}; "
                           f"it takes no more entries.")
    if _entered(ctx, t, user):
        raise CommandError(f"You have already entered {t.name}.")
    tournaments.join(ctx.db, t, user, ctx.now)
    count = len(tournaments.entries(ctx.db, t))
    _note(ctx, t, [f"You have entered the {catalogue.title(t.variant)} tournament {t.name} "
                   f"({rounds.SYSTEMS[t.system]}), player number {count}. You will get a mail when "
                   f"it starts; until then you may leave with: {t.variant} tournament leave "
                   f"{t.name} {user} PASSWORD"])


def leave(ctx: Context, t: Tournament, user: str, _: list[str]) -> None:
    entry = _entered(ctx, t, user)
    if entry is None or entry.withdrawn:
        raise CommandError(f"You are not playing in {t.name}.")
    if t.status == tournaments.OPEN:
        tournaments.leave(ctx.db, t, user)
        _note(ctx, t, [f"You have left {t.name}."])
        return
    if t.status != tournaments.RUNNING:
        raise CommandError(f"{t.name} is over; there is nothing to leave.")
    _note(ctx, t, [f"You have withdrawn from {t.name}: your running game is lost, and the games "
                   f"you had still to play are forfeited."])
    _withdraw(ctx, t, user, f"{user} withdrew from the tournament {t.name}")


def withdraw(ctx: Context, t: Tournament, user: str, words: list[str]) -> None:
    _director(ctx, t, user, "withdraw players from")
    player = words[0].lower()
    entry = _entered(ctx, t, player)
    if entry is None or entry.withdrawn:
        raise CommandError(f"{player} is not playing in {t.name}.")
    if t.status == tournaments.OPEN:
        tournaments.leave(ctx.db, t, player)
        _note(ctx, t, [f"{player} is no longer entered in {t.name}."])
        return
    if t.status != tournaments.RUNNING:
        raise CommandError(f"{t.name} is over; nobody can be withdrawn from it.")
    _note(ctx, t, [f"{player} is withdrawn from {t.name}: their running game is lost, and the "
                   f"games they had still to play are forfeited."])
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
        notify.board_mails(ctx, board, board.replay(), actor=None, headline=[f"{reason}: {player} "
                                                                            f"loses this game."])
    if not running:
        rounds.advance(ctx, tournaments.by_id(ctx.db, t.id))


def start(ctx: Context, t: Tournament, user: str, _: list[str]) -> None:
    _director(ctx, t, user, "start")
    if t.status != tournaments.OPEN:
        raise CommandError(f"{t.name} has started already.")
    entries = tournaments.entries(ctx.db, t)
    if len(entries) < 2:
        raise CommandError(f"{t.name} has {len(entries)} player{'s' * (len(entries) != 1)}; a "
                           f"tournament needs at least two. Players enter with: {t.variant} "
                           f"tournament join {t.name} USERID PASSWORD")
    tournaments.freeze_ratings(ctx.db, t, {e.user: ratings.get(ctx.db, t.variant, e.user).rating
                                           for e in entries})
    t.rounds = rounds_needed(t.system, len(entries), t.rounds, double=t.double)
    t.status, t.started_at = tournaments.RUNNING, timestamp(ctx.now)
    tournaments.save(ctx.db, t)
    _note(ctx, t, [f"{t.name} has started with {len(entries)} players and {t.rounds} "
                   f"round{'s' * (t.rounds != 1)}; every player has been mailed the pairings."])
    rounds.advance(ctx, t)


def cancel(ctx: Context, t: Tournament, user: str, _: list[str]) -> None:
    _director(ctx, t, user, "cancel")
    if t.status not in (tournaments.OPEN, tournaments.RUNNING):
        raise CommandError(f"{t.name} is over already.")
    t.status, t.finished_at = tournaments.CANCELLED, timestamp(ctx.now)
    tournaments.save(ctx.db, t)
    title = catalogue.title(t.variant)
    rounds.mail_everyone(ctx, t, f"{title} tournament {t.name} cancelled", [
        f"{user} has cancelled the {title} tournament {t.name}. No more rounds will be paired; "
        f"games already being played go on as ordinary games."])


def show(ctx: Context, t: Tournament) -> None:
    values = rounds.report(ctx, t)
    if t.status == tournaments.OPEN:
        names = ", ".join(e.user for e in values["entries"]) or "nobody yet"
        lines = [f"Entered so far: {names}. Enter with: {t.variant} tournament join {t.name} "
                 f"USERID PASSWORD"]
    else:
        lines = []
    text, html = rounds.render(values, lines)
    ctx.out.append(compose.answer(ctx.incoming, f"{values['title']} tournament {t.name}", text, html=html))


def list_tournaments(ctx: Context, req: Request) -> None:
    title = catalogue.title(req.game)
    found = tournaments.listing(ctx.db, req.game, MAX_LISTED)
    lines = [_listed(ctx, t) for t in found]
    if not lines:
        lines = [f"No {title} tournaments. Create one: {req.game} tournament create NAME USERID "
                 f"PASSWORD --system=roundrobin|swiss|knockout"]
    else:
        lines.append(f"More on one: {req.game} tournament show NAME")
    ctx.answer(f"{title} tournaments", "games.j2", heading=f"{title} tournaments", lines=lines,
               capped=len(found) == MAX_LISTED)


def _listed(ctx: Context, t: Tournament) -> str:
    count = len(tournaments.entries(ctx.db, t))
    state = {tournaments.OPEN: "open", tournaments.RUNNING: f"round {t.round}/{t.rounds}",
             tournaments.FINISHED: "finished", tournaments.CANCELLED: "cancelled"}[t.status]
    kind = ("double " if t.double else "") + rounds.SYSTEMS[t.system]
    players = f"{count:>3} player{'s' * (count != 1)}"
    return f"{t.name:<24} {kind:<19} {players:<12} {state}"

