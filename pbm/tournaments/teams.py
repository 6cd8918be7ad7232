"""Team matches, the pure part: which player of which team has which colour on which board, what a
match is worth, the team standings and crosstable, and the team lines of a TRF.

A team tournament pairs teams as its system pairs players (round robin by the Berger tables,
Swiss by FIDE's Dutch system over the teams' match results); each pairing of two teams is a match
of N boards, board K of one team against board K of the other.  Colours alternate by board: board
1 of the first-named team has White (moves first), board 2 Black, and so on; in the return match
of a double round robin the other team is named first, which reverses every board.  A leg (0 the
first game of a pairing, 1 a second one played with colours reversed) reverses them again.

Scores: board points (1, ½, 0 per game) and match points, 2 for the team with more board points, 1
each for a drawn match, 0 for the loser.  A Swiss bye counts as a match won (2 match points, as
pbm's individual Swiss counts its bye a win) with half the board points; a round robin's sit-out
counts nothing.  Standings: match points, then board points ("match", the default, as in FIDE's
Olympiad), or board points first ("board"); then the mutual match, then team name.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pbm.i18n import N_, _
from pbm.tournaments.crosstable import Table
from pbm.tournaments.model import Entrant, Game, Pairing, forfeit_against

RANKINGS = ("match", "board")
MATCH_POINTS = {"win": 2, "draw": 1, "loss": 0}
POINTS = N_("MP match points (2 a win, 1 a draw), BP board points")
LEGEND = N_("1 2 3 ...: board points against the team of that rank; ** itself, . to play")
BOARD_LEGEND = N_("Bd the board, Pts points from the games decided, Gms their number")


@dataclass(frozen=True)
class Team:
    """A team: its name, pairing number (the order teams were first named) and rating (the mean
    of its first line-up's ratings at the start)."""
    name: str
    number: int
    rating: float = 0.0

    def entrant(self) -> Entrant:
        return Entrant(self.name, self.rating, self.number)


@dataclass(frozen=True)
class Match:
    """One team pairing of a round: `second` None is a bye (or sit-out); `games` its board games
    in board order, White first as played."""
    round: int
    number: int
    first: str
    second: str | None
    games: tuple[Game, ...] = ()
    boards: int = 0
    leg: int = 0

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def decided(self) -> bool:
        return all(g.result is not None for g in self.games)

    def board_points(self, team: str, swiss: bool = True) -> float:
        """`team`'s board points; a Swiss bye half the boards, a sit-out nothing."""
        if self.bye:
            return self.boards / 2 if swiss else 0.0
        mine = 0 if team == self.first else 1
        return sum(g.points(self.players(board)[mine] or "") or 0.0
                   for board, g in enumerate(self.games, start=1) if g.result is not None)

    def players(self, board: int) -> tuple[str, str | None]:
        """The first-named team's player on `board`, then the other's (by colour of the board)."""
        g = self.games[board - 1]
        return (g.white, g.black) if first_team_white(board, self.leg) else (g.black or "", g.white)

    def match_points(self, team: str, swiss: bool = True) -> int | None:
        """2, 1 or 0 once every board is decided; None while one is played."""
        if self.bye:
            return MATCH_POINTS["win"] if swiss else 0
        if not self.decided:
            return None
        other = self.second if team == self.first else self.first
        mine, theirs = self.board_points(team), self.board_points(other or "")
        return MATCH_POINTS["win"] if mine > theirs else MATCH_POINTS["draw"] if mine == theirs \
            else MATCH_POINTS["loss"]

    def game(self) -> Game:
        """The match as one game for the pairers: the first-named team White, the result by the
        match points (None while a board is played)."""
        if self.bye:
            return Game(self.round, self.first, None)
        points = self.match_points(self.first)
        result = None if points is None else {2: "1-0", 1: "1/2-1/2", 0: "0-1"}[points]
        return Game(self.round, self.first, self.second, result)


def first_team_white(board: int, leg: int = 0) -> bool:
    """Whether the first-named team's player on `board` (1-based) has White: odd boards in the
    first leg, even boards in a second leg played with colours reversed."""
    return (board % 2 == 1) != (leg % 2 == 1)


def board_pairings(round_no: int, match_no: int, boards: int, first: list[str],
                   second: list[str], withdrawn: Iterable[str] = frozenset(),
                   leg: int = 0) -> list[Pairing]:
    """The games of a match: board K of `first` against board K of `second` (line-ups in board
    order), numbered after the matches before it ((match-1)*boards + K); a game with a player who
    withdrew is a forfeit."""
    pairings = []
    for k, (a, b) in enumerate(zip(first, second), start=1):
        white, black = (a, b) if first_team_white(k, leg) else (b, a)
        pairings.append(forfeit_against(round_no, (match_no - 1) * boards + k, white, black,
                                        withdrawn))
    return pairings


@dataclass(frozen=True)
class TeamStanding:
    rank: int
    team: str
    match_points: int
    board_points: float
    matches: int


def standings(teams: list[Team], matches: list[Match], ranking: str = "match",
              swiss: bool = True) -> list[TeamStanding]:
    """The teams first to last (module docstring); `matches` decided or not."""
    mp = {t.name: 0 for t in teams}
    bp = {t.name: 0.0 for t in teams}
    played = {t.name: 0 for t in teams}
    for m in matches:
        for team in (m.first, m.second):
            if team is None or m.match_points(team, swiss) is None:
                continue
            mp[team] += m.match_points(team, swiss) or 0
            bp[team] += m.board_points(team, swiss)
            played[team] += not m.bye

    def mutual(team: str, tied: list[str]) -> int:
        return sum(m.match_points(team) or 0 for m in matches if not m.bye and team in
                   (m.first, m.second) and ({m.first, m.second} - {team}) <= set(tied))

    def key(t: Team) -> tuple:
        first, then = (mp[t.name], bp[t.name]) if ranking == "match" else (bp[t.name], mp[t.name])
        return first, then

    ordered = sorted(teams, key=lambda t: (*(-v for v in key(t)), t.name))
    groups: dict[tuple, list[str]] = {}
    for t in ordered:
        groups.setdefault(key(t), []).append(t.name)
    ordered.sort(key=lambda t: (*(-v for v in key(t)), -mutual(t.name, groups[key(t)]), t.name))
    return [TeamStanding(i, t.name, mp[t.name], bp[t.name], played[t.name])
            for i, t in enumerate(ordered, start=1)]


def half(value: float) -> str:
    """Board points as written in a crosstable: 2, 1½, ½."""
    whole = int(value)
    return (str(whole) if whole or value == whole else "") + ("½" if value != whole else "")


def crosstable(teams: list[Team], matches: list[Match], ranking: str = "match",
               swiss: bool = True, short: bool = False) -> Table:
    """The team crosstable: rank, team, MP, BP, then the board points of each match, one column
    per opponent by rank (two results, the second match's after a slash, in a double round
    robin); a Swiss adds nothing else: its opponents are the columns met.  `short`, or past a
    dozen teams: the standings alone."""
    ranked = standings(teams, matches, ranking, swiss)
    rank = {s.team: s.rank for s in ranked}
    rows = []
    for s in ranked:
        cells = []
        for other in ranked:
            if other is s:
                cells.append("**")
                continue
            met = [m for m in matches if {m.first, m.second} == {s.team, other.team}]
            cells.append("/".join(half(m.board_points(s.team)) if m.decided else "." for m in met)
                         or ".")
        rows.append((str(s.rank), s.team, str(s.match_points), half(s.board_points), *cells))
    columns = [str(rank[s.team]) for s in ranked]
    first, second = (_("MP"), _("BP")) if ranking == "match" else (_("BP"), _("MP"))
    if ranking != "match":
        rows = [(r[0], r[1], r[3], r[2], *r[4:]) for r in rows]
    full = Table((_("Rk"), _("Team"), first, second, *columns), tuple(rows),
                 _(LEGEND) + "\n" + _(POINTS))
    return full if full.fits() and not short else Table(full.header[:4], tuple(r[:4] for r in rows),
                                                        _(POINTS))


def board_scores(lineups: dict[str, list[tuple[int, str]]], games: list[Game]) -> Table:
    """Each player's board score: team, board, player, points and games decided, the players of a
    team in board order (a substitute after the player they replaced)."""
    rows = []
    for team, players in lineups.items():
        for board, user in players:
            mine = [g for g in games if user in (g.white, g.black) and g.result is not None
                    and g.black is not None]
            points = sum(g.points(user) or 0.0 for g in mine)
            rows.append((str(board), user, half(points), str(len(mine)), team))
    return Table((_("Bd"), _("User"), _("Pts"), _("Gms"), _("Team")), tuple(rows), _(BOARD_LEGEND))


def trf_lines(teams: list[tuple[str, list[int]]]) -> list[str]:
    """TRF-16's team section: one 013 line a team, its name in columns 5-36 and its players'
    starting ranks from column 37, four columns each, a space between."""
    return [f"013 {name[:32]:<32}" + " ".join(f"{n:>4}" for n in numbers)
            for name, numbers in teams]


def read_trf_teams(text: str) -> list[tuple[str, list[int]]]:
    """The team lines (013) of a TRF: each team's name and its players' starting ranks."""
    found = []
    for line in text.splitlines():
        if line.startswith("013 "):
            numbers = line[36:]
            found.append((line[4:36].strip(), [int(numbers[i:i + 4]) for i in
                                               range(0, len(numbers.rstrip()), 5)]))
    return found
