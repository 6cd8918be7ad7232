"""The FIDE Tournament Report File (TRF-16), written and read back, and a TRF's Swiss rounds paired
again by pbm's pairer, so that a director can compare pbm with any endorsed pairing program.

Written: the header lines that apply (012 name, 042/052 dates, 062 players, 092 type, 102 the
director as chief arbiter, 122 the time control), one 001 line per player in the fixed columns of
the format (starting rank, name, rating, points, rank, then one column of ten characters per
round: opponent's starting rank, colour w/b, result 1 = 0 + - for games, "0000 - U" for the
pairing-allocated bye, "0000 - Z" for a round a player was not paired in, blank while a game is
played), and XXR, the number of rounds, which pairing programs read for a Swiss.  A player's name
is their user id; a rating of 0 (none) is left blank.  Read: the same lines from any program (other
header lines are kept as they are; XXC, the initial colour, is used by `check`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pbm.tournaments.dutch import pair
from pbm.tournaments.model import Entrant, Game, score
from pbm.tournaments.standings import standings

TYPES = {"roundrobin": "Round robin", "swiss": "Swiss Dutch system", "knockout": "Knockout"}
RESULTS = {1.0: "1", 0.5: "=", 0.0: "0"}
CODE_POINTS = {"1": 1.0, "+": 1.0, "U": 1.0, "F": 1.0, "W": 1.0, "=": 0.5, "H": 0.5, "D": 0.5}


@dataclass
class Report:
    """What a TRF holds that pbm uses: the tournament's name and system, its players, the games,
    and its number of rounds."""
    name: str
    system: str
    rounds: int
    entrants: list[Entrant] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)
    header: dict[str, str] = field(default_factory=dict)
    virtual: dict[str, tuple[float, ...]] = field(default_factory=dict)   # accelerated (250)
    decider: str | None = None          # a paired knockout's (pbm.tournaments.paired)


def starting_ranks(report: Report) -> dict[str, int]:
    """Each player's starting rank: a round robin's pairing number; otherwise the initial ranking
    (C.04.2: rating, then name; pbm has no titles), which pairing programs take as the pairing
    number, as pbm's own Swiss and knockout pairers do."""
    if report.system == "roundrobin":
        return {e.user: e.number for e in report.entrants}
    ranked = sorted(report.entrants, key=lambda e: (-e.rating, e.user))
    return {e.user: n for n, e in enumerate(ranked, start=1)}


def write(report: Report, tiebreaks: tuple[str, ...] | None = None) -> str:
    """The report as TRF-16 text (lines end with a newline; players by starting rank).  A round
    still being played is left out (its games are no results yet), so that every round written
    is whole; a knockout's replay has a column of its own after the game it replays."""
    unfinished = [g.round for g in report.games if g.result is None and not g.bye]
    done = [g for g in report.games if g.round < min(unfinished, default=report.rounds + 1)]
    last = max((g.round for g in done), default=0)
    return _text(Report(**{**report.__dict__, "games": done}), last, frozenset(), tiebreaks)


def request(report: Report, round_no: int, waiting: frozenset[str]) -> str:
    """The TRF asking a pairing program for round `round_no`: the rounds before it, and in that
    round a cell for each player not in `waiting` (a half-point bye asked for, H, or an absence,
    Z), so that the program pairs the players waiting."""
    games = [g for g in report.games if g.round < round_no or g.round == round_no and g.bye]
    return _text(Report(**{**report.__dict__, "games": games}), round_no, waiting, None)


def _text(report: Report, last: int, waiting: frozenset[str],
          tiebreaks: tuple[str, ...] | None) -> str:
    numbers = starting_ranks(report)
    ranked = {s.user: s.rank for s in standings(report.system, report.entrants, report.games,
                                                tiebreaks, report.rounds, report.decider)}
    header = {**report.header, "012": report.name, "062": str(len(report.entrants)),
              "092": TYPES[report.system]}
    if report.system == "swiss":
        header.setdefault("XXC", "white1")      # pbm always draws White for the first player
    lines = [f"{code} {value}" for code, value in sorted(header.items()) if code != "XXR"]
    columns = [(n, i) for n in range(1, last + 1) for i in range(max(
        (sum(u in (g.white, g.black) for g in report.games if g.round == n) for u in numbers),
        default=1) or 1)]
    for e in sorted(report.entrants, key=lambda e: numbers[e.user]):
        cells = []
        for n, i in columns:
            mine = [g for g in report.games if g.round == n and e.user in (g.white, g.black)]
            cells.append(cell(e.user, mine[i:i + 1], numbers, report.system) if i < len(mine)
                         or not i else " " * 8)      # a knockout replay's column: blank when none
        if e.user in waiting:
            cells = cells[:-1]
        points = sum(CODE_POINTS.get(c[7], 0.0) for c in cells)
        rating = f"{round(e.rating):>4}" if e.rating else "    "
        line = (f"001 {numbers[e.user]:>4}      {e.user[:33]:<33} {rating} {'':3} {'':>11} "
                f"{'':10} {points:4.1f} {ranked[e.user]:>4}")
        lines.append((line + "".join("  " + c for c in cells)).rstrip())
    lines.append(f"XXR {report.rounds}")
    lines += accelerations(report, numbers) + forbidden(report, numbers)
    return "\n".join(lines) + "\n"


def accelerations(report: Report, numbers: dict[str, int]) -> list[str]:
    """An accelerated Swiss's virtual points as TRF-2025's 250 lines (game points, first and last
    round, first and last player), one per player and run of rounds with the same points."""
    lines = []
    for user in sorted(report.virtual, key=lambda u: numbers[u]):
        points, n = report.virtual[user], numbers[user]
        first = 1
        for r in range(1, len(points) + 1):
            if r == len(points) or points[r] != points[first - 1]:
                if points[first - 1]:
                    lines.append(f"250 {'':4} {points[first - 1]:4.1f} {first:>3} {r:>3} "
                                 f"{n:>4} {n:>4}")
                first = r + 1
    return lines


def forbidden(report: Report, numbers: dict[str, int]) -> list[str]:
    """pbm's bar on a rematch after a forfeit (pbm.tournaments.swiss), as TRF-2025's forbidden
    pairs (260: first round, last round, the players), from the round after the forfeit on; an
    XXP line would bar the pair in every round, the forfeit's own included."""
    if report.system != "swiss":
        return []
    return [f"260 {g.round + 1:>3} {report.rounds:>3} {numbers[g.white]:>4} {numbers[g.black]:>4}"
            for g in sorted(report.games, key=lambda g: (g.round, numbers[g.white]))
            if g.forfeit and not g.bye and g.round < report.rounds]


def cell(user: str, games: list[Game], numbers: dict[str, int], system: str = "swiss") -> str:
    """One round of a 001 line: 'OOOO C R'; a bye is coded as what it scores (U the
    pairing-allocated bye, H a half-point bye, Z a round robin's sit-out or a round not paired)."""
    g = next((g for g in games if user in (g.white, g.black)), None)
    if g is None:
        return "0000 - Z"
    if g.bye:
        return "0000 - H" if g.requested else "0000 - Z" if system == "roundrobin" else "0000 - U"
    colour = "w" if g.white == user else "b"
    points = g.points(user)
    result = " " if points is None else ("+" if points else "-") if g.forfeit else RESULTS[points]
    return f"{numbers[g.opponent(user)]:>4} {colour} {result}"


def read(text: str) -> Report:
    """A TRF-16's header, players and games (ValueError for a line that is not TRF)."""
    report = Report("", "swiss", 0)
    rows: dict[int, list[tuple[int, str, str]]] = {}
    gained: list[tuple[float, int, int, int, int]] = []       # 250: points, rounds, players
    for line in text.splitlines():
        code = line[:3]
        if code == "001":
            number = int(line[4:8])
            rating = line[48:52].strip()
            report.entrants.append(Entrant(line[14:47].strip(), float(rating or 0), number))
            cells = [line[i:i + 8].ljust(8) for i in range(91, len(line), 10)]
            rows[number] = [(int(c[:4].strip() or 0), c[5], c[7]) for c in cells]
        elif code == "012":
            report.name = line[4:].strip()
        elif code == "092":
            kind = line[4:].strip().lower()
            report.system = next((s for s, t in TYPES.items() if t.lower() == kind), "swiss")
        elif code == "XXR":
            report.rounds = int(line[4:].strip())
        elif code == "250":
            gained.append((float(line[9:13]), int(line[14:17]), int(line[18:21]),
                           int(line[22:26]), int(line[27:31])))
        elif code == "XXC" or code.isdigit() and code not in ("062", "260", "013"):
            # 062 is counted when written, 260 written from the forfeits; 013, the team lines,
            # are read by pbm.tournaments.teams.read_trf_teams
            report.header[code] = line[4:]
    users = {e.number: e.user for e in report.entrants}
    for points, first, last, low, high in gained:
        for number in range(low, high + 1):
            had = list(report.virtual.get(users[number], ()))
            had += [0.0] * (last - len(had))
            had[first - 1:last] = [points] * (last - first + 1)
            report.virtual[users[number]] = tuple(had)
    rounds = replayed(rows) if report.system == "knockout" else {}
    for number, cells in rows.items():
        for column, (opponent, colour, result) in enumerate(cells, start=1):
            n = rounds.get(column, column)
            if opponent == 0 and (result in "UF" or result == "Z" and report.system == "roundrobin"):
                report.games.append(Game(n, users[number], None))
            elif opponent == 0 and result == "H":
                report.games.append(Game(n, users[number], None, "H"))
            elif opponent and colour == "w":
                report.games.append(Game(n, users[number], users[opponent],
                                         result_of(result, rows[opponent][column - 1][2])))
    report.rounds = report.rounds or max((g.round for g in report.games), default=0)
    return report


def replayed(rows: dict[int, list[tuple[int, str, str]]]) -> dict[int, int]:
    """A knockout's round of each column: a column whose games all replay the column before's
    (the same pairs, colours reversed) holds that round's replays (TRF has one game a column)."""
    def games(column: int) -> set[tuple[int, int]]:
        return {(n, cells[column][0]) for n, cells in rows.items()
                if len(cells) > column and cells[column][0] and cells[column][1] == "w"}
    width = max((len(cells) for cells in rows.values()), default=0)
    found, n = {}, 0
    for column in range(width):
        these, before = games(column), games(column - 1) if column else set()
        if not (these and all((b, w) in before for w, b in these)):
            n += 1
        found[column + 1] = n
    return found


def result_of(white: str, black: str) -> str | None:
    """The game's result from the two players' result characters."""
    if white == " ":
        return None
    if white in "+-" or black in "+-":
        return {("+", "-"): "+-", ("-", "+"): "-+"}.get((white, black), "--")
    return {"1": "1-0", "0": "0-1", "=": "1/2-1/2"}[white]


def initial(report: Report) -> str:
    """The initial colour the file's pairing drew: XXC when it says (white1, black1), else as
    bbpPairings infers it: in the first round with colours, the colour of the highest player (by
    starting rank) paired by then, reversed when an odd number of players paired by then rank
    above them (the colour rule 5.2.5 alternates it down the ranking)."""
    said = report.header.get("XXC", "").strip().lower()
    if said.startswith(("white", "black")):
        return said[0].upper()
    first = min((g.round for g in report.games if not g.bye), default=None)
    above = 0
    for e in sorted(report.entrants, key=lambda e: e.number):
        mine = [g for g in report.games if e.user in (g.white, g.black)
                and (first is None or g.round <= first) and not g.requested]
        if not mine:
            continue
        game = next((g for g in mine if g.round == first and not g.bye), None)
        if game is not None:
            return "W" if (game.white == e.user) != bool(above % 2) else "B"
        above += 1
    return "W"


def check(report: Report) -> list[str]:
    """Each Swiss round of `report` paired again by pbm from the rounds before it: the rounds
    where pbm pairs differently, one line each ("" for none)."""
    numbers = {e.user: e.number for e in report.entrants}
    # the file's pairing numbers are its starting ranks, as bbpPairings reads them: pbm's pairer
    # ranks by rating, so each player is given the rating that puts them at their number
    ranked = [replace(e, rating=float(-e.number)) for e in report.entrants]
    found = []
    last = max((g.round for g in report.games), default=0)
    for n in range(1, last + 1):
        theirs = [g for g in report.games if g.round == n and not g.requested]
        if second_games(report.games, n):
            continue
        present = {u for g in theirs for u in (g.white, g.black) if u}
        absent = {e.user for e in report.entrants} - present
        ours = pair(ranked, report.games, n, absent, report.rounds, initial(report), report.virtual)

        def shown(pairs) -> str:
            return ", ".join(f"{numbers[w]}-{numbers[b]}" if b else f"{numbers[w]} bye"
                             for w, b in sorted(pairs, key=lambda p: numbers[p[0]]))
        mine = {(p.white, p.black) for p in ours}
        given = {(g.white, g.black) for g in theirs}
        if {frozenset(p) for p in mine} == {frozenset(p) for p in given}:
            if mine != given:
                found.append(f"round {n}: the same games, colours differ: the file "
                             f"{shown(given - mine)}; pbm {shown(mine - given)}")
        else:
            found.append(f"round {n}: the file pairs {shown(given)}; pbm pairs {shown(mine)}")
    return found


def second_games(games: list[Game], n: int) -> bool:
    """Whether round `n` only repeats round n-1 with colours reversed: the second games of a
    paired Swiss (pbm.tournaments.paired), which no pairing program pairs."""
    def pairs(r: int) -> set[tuple[str, str | None]]:
        return {(g.white, g.black) for g in games if g.round == r and not g.requested}
    these = pairs(n)
    return n > 1 and any(b for _w, b in these) and these == {
        (b, w) if b else (w, b) for w, b in pairs(n - 1)}
