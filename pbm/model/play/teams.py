"""Team tournaments' records: the boards a team, the teams, who plays which board from which round
on, and each round's matches (pbm.tournaments.teams for what they mean).

A player's line-up row lives beside their entry (tournament_entrants): leaving before the start
takes the entry back, and with it the board (the line-ups read only players still entered).  The
games of a match are ordinary tournament_games rows, board (M-1)*boards + K for board K of match M.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbm.model.db import Database
from pbm.model.play.tournaments import Tournament


@dataclass(frozen=True)
class Settings:
    boards: int
    ranking: str


@dataclass(frozen=True)
class Seat:
    """A player's place in a team: from round `since` on they play board `board`."""
    user: str
    team: str
    board: int
    since: int


@dataclass(frozen=True)
class StoredMatch:
    round: int
    number: int
    first: str
    second: str | None


def settings(db: Database, t: Tournament) -> Settings | None:
    """The tournament's team settings; None for a tournament of players."""
    row = db.execute("SELECT boards, ranking FROM team_tournaments WHERE tournament_id = ?",
                     [t.id]).fetchone()
    return Settings(*row) if row else None


def make(db: Database, t: Tournament, boards: int, ranking: str) -> None:
    db.execute("INSERT INTO team_tournaments (tournament_id, boards, ranking) VALUES (?, ?, ?)",
               [t.id, boards, ranking])


def teams(db: Database, t: Tournament) -> list[str]:
    """The teams with a player entered, in the order they were named."""
    return list(dict.fromkeys(s.team for s in seats(db, t)))


def seats(db: Database, t: Tournament) -> list[Seat]:
    """Every entered player's seat, by team number, board, then round from which they play it
    (two substitutes for one board from the same round: in the order they joined)."""
    rows = db.execute("SELECT l.user_id, m.name, l.board, l.from_round FROM tournament_lineups l "
                      "JOIN tournament_teams m ON m.tournament_id = l.tournament_id AND "
                      "m.number = l.team JOIN tournament_entrants e ON e.tournament_id = "
                      "l.tournament_id AND e.user_id = l.user_id WHERE l.tournament_id = ? "
                      "ORDER BY m.number, l.board, l.from_round, e.number", [t.id])
    return [Seat(*row) for row in rows]


def seat(db: Database, t: Tournament, user: str, team: str, board: int, since: int) -> None:
    """Seat `user` (entered) on `board` of `team` from round `since`; a new team is numbered
    after the others."""
    row = db.execute("SELECT number FROM tournament_teams WHERE tournament_id = ? AND name = ?",
                     [t.id, team]).fetchone()
    if row is None:
        number = db.execute("SELECT coalesce(max(number), 0) + 1 FROM tournament_teams WHERE "
                            "tournament_id = ?", [t.id]).fetchone()[0]
        db.execute("INSERT INTO tournament_teams (tournament_id, number, name) VALUES (?, ?, ?)",
                   [t.id, number, team])
    else:
        number = row[0]
    db.execute("INSERT OR REPLACE INTO tournament_lineups (tournament_id, user_id, team, board, "
               "from_round) VALUES (?, ?, ?, ?, ?)", [t.id, user, number, board, since])


def add_match(db: Database, t: Tournament, match: StoredMatch) -> None:
    numbers = dict(db.execute("SELECT name, number FROM tournament_teams WHERE tournament_id = ?",
                              [t.id]).fetchall())
    db.execute("INSERT INTO tournament_matches (tournament_id, round, number, first, second) "
               "VALUES (?, ?, ?, ?, ?)", [t.id, match.round, match.number, numbers[match.first],
                                         numbers.get(match.second)])


def matches(db: Database, t: Tournament) -> list[StoredMatch]:
    """Every match so far, in round and match order."""
    rows = db.execute("SELECT m.round, m.number, a.name, b.name FROM tournament_matches m "
                      "JOIN tournament_teams a ON a.tournament_id = m.tournament_id AND "
                      "a.number = m.first LEFT JOIN tournament_teams b ON b.tournament_id = "
                      "m.tournament_id AND b.number = m.second WHERE m.tournament_id = ? "
                      "ORDER BY m.round, m.number", [t.id])
    return [StoredMatch(*row) for row in rows]
