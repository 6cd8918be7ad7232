"""Team tournaments by mail: `GAME tournament create NAME USERID PASSWORD --teams=N
[--team-order=match|board]` and `GAME tournament join NAME USERID PASSWORD --team=TEAM
[--board=K]`; the teams are paired by the tournament's system and each match is played board
against board (pbm.tournaments.teams).

Decisions:
- `--teams=N`: N boards a team, 2 to 12, with a round robin (single or double) or a Swiss; a
  knockout of teams is refused.  `--team-order=board` ranks by board points before match points
  (the default, `match`, is FIDE's Olympiad order).
- A player names their team when they join: the first to name it creates it.  Their board is the
  first free one (the captain's order: first come), or `--board=K`.  A team has N players at the
  start; the start is refused while a team has a board free, and a team of nobody (all left) is
  no team.
- A substitute joins after the start: `join ... --team=T --board=K` enters them (they count
  toward the tournament's players) and seats them on board K from the next round on; the round
  being played stays as paired.  The player replaced stays entered (with their mails) and keeps
  the points they scored; of two substitutes for one board from the same round, the later plays.
- A team's rating (Swiss seeding) is the mean of its players' ratings at the start.
"""
from __future__ import annotations

from collections.abc import Callable

from pbm import catalogue
from pbm.commands import wording
from pbm.commands.base import CommandError, Context
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import teams as stored
from pbm.model.play import tournaments
from pbm.model.play.teams import Settings, StoredMatch
from pbm.model.play.tournaments import Entry, Played, Tournament
from pbm.tournaments import Pairing, pair_round, trf
from pbm.tournaments.teams import RANKINGS, Match, Team, board_pairings, board_scores, crosstable
from pbm.tournaments.teams import standings as team_standings
from pbm.tournaments.teams import trf_lines

TYPE_CHECKING = False                   # as in pbm.i18n: Babel is loaded by the first lazy text
if TYPE_CHECKING:
    from babel.support import LazyProxy

MAX_BOARDS = 12


def create_options(options: dict[str, str], system: str) -> tuple[int, str] | None:
    """--teams=N and --team-order taken out of `options`: (boards, ranking), None without teams."""
    given, order = options.pop("teams", None), options.pop("team-order", None)
    if given is None:
        if order is not None:
            raise CommandError(_("--team-order is for team tournaments (--teams=N)."))
        return None
    if not given.isdigit() or not 2 <= int(given) <= MAX_BOARDS:
        raise CommandError(_("--teams={given} is not a number of boards: write --teams=N, the "
                             "boards of each team, N from 2 to {most}, for example --teams=4."
                             ).format(given=given, most=MAX_BOARDS))
    if system == "knockout":
        raise CommandError(_("--teams goes with --system=roundrobin or --system=swiss: teams play "
                             "every round, match against match."))
    if order is not None and order.lower() not in RANKINGS:
        raise CommandError(_("--team-order={given}: write --team-order=match (match points, then "
                             "board points) or --team-order=board (board points first)."
                             ).format(given=order))
    return int(given), (order or "match").lower()


ENTRY = " --team=TEAM [--board=K]"      # what a team tournament's join command adds


def described(setting: Settings) -> list[str]:
    """The team rules, for whoever reads about the tournament."""
    order = (_("Teams rank by match points (2 a match won, 1 a draw), then board points.")
             if setting.ranking == "match" else
             _("Teams rank by board points, then match points (2 a match won, 1 a draw)."))
    return [ngettext("A team tournament of {n} board a team: board K plays board K, colours "
                     "alternating by board.",
                     "A team tournament of {n} boards a team: board K plays board K, colours "
                     "alternating by board.", setting.boards).format(n=setting.boards), order]


def shown(ctx: Context, t: Tournament, setting: Settings) -> list[str]:
    """The team rules and, before the start, each team's players by board."""
    lines = described(setting)
    if t.status == tournaments.OPEN:
        seats = stored.seats(ctx.db, t)
        lines += [_("Team {team}: {players}.").format(team=name, players=", ".join(
            f"{s.board} {s.user}" for s in seats if s.team == name))
            for name in stored.teams(ctx.db, t)]
    return lines


def placing(ctx: Context, t: Tournament, setting: Settings | None,
            options: dict[str, str]) -> tuple[str, int, int] | None:
    """Where a joining player sits: (team, board, from round), or CommandError; None for a
    tournament of players (which takes no options)."""
    if setting is None:
        if options:
            raise CommandError(_("--team and --board are for team tournaments; {name} is a "
                                 "tournament of players. Join with: {command}").format(
                name=t.name, command=f"{t.variant} tournament join {t.name} USERID PASSWORD"))
        return None
    team, board = options.pop("team", "").lower(), options.pop("board", None)
    if options or not tournaments.good_name(team):
        raise CommandError(_("{name} is a team tournament: join with --team=TEAM (2 to 24 letters, "
                             "digits and hyphens) and, to choose your board, --board=K, for "
                             "example: {command}").format(name=t.name, command=(
                                 f"{t.variant} tournament join {t.name} USERID PASSWORD "
                                 f"--team=dragons --board=2")))
    if board is not None and (not board.isdigit() or not 1 <= int(board) <= setting.boards):
        raise CommandError(_("--board={given}: the boards of {name} are 1 to {n}.").format(
            given=board, name=t.name, n=setting.boards))
    seats = [s for s in stored.seats(ctx.db, t) if s.team == team]
    if t.status == tournaments.RUNNING:
        if team not in stored.teams(ctx.db, t) or board is None:
            raise CommandError(_("{name} has started: a substitute joins a team that plays in it, "
                                 "naming the board they take from the next round, for example "
                                 "--team={team} --board=1. The teams: {teams}.").format(
                name=t.name, team=team, teams=", ".join(stored.teams(ctx.db, t))))
        if t.round >= (t.rounds or 0):
            raise CommandError(_("{name} is playing its last round: a substitute would play no "
                                 "game.").format(name=t.name))
        return team, int(board), t.round + 1
    taken = {s.board for s in seats}
    free = [k for k in range(1, setting.boards + 1) if k not in taken]
    if not free:
        raise CommandError(_("The team {team} of {name} is full: its players are {users}.").format(
            team=team, name=t.name, users=", ".join(s.user for s in seats)))
    if board is not None and int(board) in taken:
        raise CommandError(_("Board {board} of the team {team} is taken; its free boards are "
                             "{free}.").format(board=board, team=team,
                                               free=", ".join(map(str, free))))
    return team, int(board) if board is not None else free[0], 1


def place(ctx: Context, t: Tournament, user: str, where: tuple[str, int, int]) -> str:
    """Seat `user` (entered now) where `placing` said; the line that tells them."""
    team, board, since = where
    stored.seat(ctx.db, t, user, team, board, since)
    if since > 1:
        return _("You play board {board} of the team {team} from round {number} on.").format(
            board=board, team=team, number=since)
    return _("You play board {board} of the team {team}.").format(board=board, team=team)


def field(ctx: Context, t: Tournament, setting: Settings) -> int:
    """The number of teams at the start, or CommandError while one is not whole."""
    names = stored.teams(ctx.db, t)
    seats = stored.seats(ctx.db, t)
    short = [n for n in names if len({s.board for s in seats if s.team == n}) < setting.boards]
    if short:
        raise CommandError(_("Every team needs its {n} boards before the start; not whole yet: "
                             "{teams}.").format(n=setting.boards, teams=", ".join(short)))
    if len(names) < 2:
        raise CommandError(ngettext("{name} has {n} team; a team tournament needs at least two.",
                                    "{name} has {n} teams; a team tournament needs at least two.",
                                    len(names)).format(name=t.name, n=len(names)))
    return len(names)


def _teams(ctx: Context, t: Tournament, entries: list[Entry]) -> list[Team]:
    rating = {e.user: e.rating or 0.0 for e in entries}
    seats = stored.seats(ctx.db, t)
    found = []
    for number, name in enumerate(stored.teams(ctx.db, t), start=1):
        first = [rating[s.user] for s in seats if s.team == name and s.since == 1]
        found.append(Team(name, number, sum(first) / len(first) if first else 0.0))
    return found


def lineup(ctx: Context, t: Tournament, team: str, round_no: int, boards: int) -> list[str]:
    """Who plays each board of `team` in `round_no`: the latest seat from that round or before
    (of two substitutes for one board and round, the later to join)."""
    seats = [s for s in stored.seats(ctx.db, t) if s.team == team and s.since <= round_no]
    return [[s for s in seats if s.board == k][-1].user for k in range(1, boards + 1)]


def built(setting: Settings, matches: list[StoredMatch], rows: list[Played]) -> list[Match]:
    """The matches with their board games (each match's boards of tournament_games)."""
    by_board = {(p.game.round, p.board): p.game for p in rows}
    n = setting.boards
    return [Match(m.round, m.number, m.first, m.second, () if m.second is None else tuple(
        by_board[(m.round, (m.number - 1) * n + k)] for k in range(1, n + 1)
        if (m.round, (m.number - 1) * n + k) in by_board), n) for m in matches]


def pair_next(ctx: Context, t: Tournament, setting: Settings, entries: list[Entry],
              rows: list[Played], withdrawn: set[str]) -> list[Pairing]:
    """Pair the next round's matches (stored here) and give their board games to start; none
    once the last round is played."""
    if t.round >= (t.rounds or 0):
        return []
    teams = _teams(ctx, t, entries)
    done = built(setting, stored.matches(ctx.db, t), rows)
    round_no = t.round + 1
    paired = pair_round(t.system, [team.entrant() for team in teams], [m.game() for m in done],
                        round_no, double=t.double, rounds=t.rounds)
    games: list[Pairing] = []
    for number, p in enumerate(paired, start=1):
        stored.add_match(ctx.db, t, StoredMatch(round_no, number, p.white, p.black))
        if p.black is not None:
            games += board_pairings(round_no, number, setting.boards,
                                    lineup(ctx, t, p.white, round_no, setting.boards),
                                    lineup(ctx, t, p.black, round_no, setting.boards), withdrawn)
    return games


def headline(t: Tournament, setting: Settings, matches: dict[tuple[int, int], StoredMatch],
             pairing: Pairing) -> LazyProxy:
    """The first line of a team game's first mail: the match it belongs to, and its board there
    (a game's board in the round runs across the matches: match M's board K is (M-1)*N+K)."""
    number, k = divmod(pairing.board - 1, setting.boards)
    match = matches[(pairing.round, number + 1)]
    return lazy(lambda: _(
        "Round {round} of the {title} tournament {name}, board {board}: {white} against {black}, "
        "board {k} of the match {one} against {other}. The game counts from now: both clocks "
        "run, and resigning is a loss.").format(
        round=pairing.round, title=wording.name(catalogue.title(t.variant)), name=t.name,
        board=pairing.board, white=pairing.white, black=pairing.black, k=k + 1, one=match.first,
        other=match.second))


def values(ctx: Context, t: Tournament, setting: Settings, entries: list[Entry],
           rows: list[Played]) -> dict:
    """What a team tournament's mails and page show instead of a crosstable of players: the team
    crosstable and each player's board score, the matches of each round, the winner."""
    teams = _teams(ctx, t, entries)
    matches = built(setting, stored.matches(ctx.db, t), rows)
    swiss = t.system == "swiss"
    games = [p.game for p in rows]
    seats = stored.seats(ctx.db, t)
    lineups = {team.name: [(s.board, s.user) for s in seats if s.team == team.name]
               for team in teams}

    def tables(html: bool, inline: bool = True, short: bool = False) -> str:
        parts = [crosstable(teams, matches, setting.ranking, swiss, short)]
        parts += [] if short else [board_scores(lineups, games)]
        return "\n".join(p.html(inline) if html else p.text() for p in parts)

    ranked = team_standings(teams, matches, setting.ranking, swiss)
    top = ranked[0] if ranked else None

    def over() -> str:
        return _("The {title} tournament {name} is over. The winning team is {team}, with {mp} "
                 "match points and {bp} board points.").format(
            title=wording.name(catalogue.title(t.variant)), name=t.name, team=top.team, mp=top.match_points,
            bp=f"{top.board_points:g}") if top else ""

    by_round: dict[int, list] = {}
    for m in matches:
        by_round.setdefault(m.round, []).append(lazy(lambda m=m: matched(m, setting.boards)))
    return {"crosstable": lazy(lambda: tables(False)) if matches else "",
            "crosstable_html": lazy(lambda: tables(True)) if matches else "",
            "crosstable_page": lazy(lambda: tables(True, inline=False)) if matches else "",
            # a large tournament's round mails (pbm.commands.tournaments.rounds.brief): the standings
            "team_table": lazy(lambda: tables(False, short=True)) if matches else "",
            "team_table_html": lazy(lambda: tables(True, short=True)) if matches else "",
            "matches": by_round.get(t.round, []), "matches_by_round": by_round,
            "winner": top.team if top else "", "team_over": [lazy(over), lazy(order(setting))],
            "lineups": lineups}


def order(setting: Settings) -> Callable[[], str]:
    """The order of the team standings, in the reader's language (lazy)."""
    return lambda: (_("Teams rank by match points, then board points, then the match between "
                      "them, then name.") if setting.ranking == "match" else
                    _("Teams rank by board points, then match points, then the match between "
                      "them, then name."))


def matched(m: Match, boards: int) -> str:
    """One match of a round, as a line."""
    first, last = (m.number - 1) * boards + 1, m.number * boards
    if m.second is None:
        return _("{team} has a bye this round.").format(team=m.first)
    if m.decided:
        return _("Match {number} (boards {first}-{last}): {one} against {other}, {a} to {b}."
                 ).format(number=m.number, first=first, last=last, one=m.first, other=m.second,
                          a=f"{m.board_points(m.first):g}", b=f"{m.board_points(m.second):g}")
    return _("Match {number} (boards {first}-{last}): {one} against {other}; board 1 of {one} "
             "has the first move.").format(number=m.number, first=first, last=last, one=m.first,
                                            other=m.second)


def trf_teams(ctx: Context, t: Tournament, report: trf.Report) -> str:
    """The TRF's team section (013 lines) for `report`, the individual part of the same TRF."""
    numbers = trf.starting_ranks(report)
    seats = stored.seats(ctx.db, t)
    lines = trf_lines([(name, [numbers[s.user] for s in seats if s.team == name])
                       for name in stored.teams(ctx.db, t)])
    return "".join(line + "\n" for line in lines)
