"""The tables of correspondence play and of its defences: migrations 7 to 14 of pbm.model.schema
(conditional moves and clocks, tournaments, fair clocks, appeals, the limits against abuse, a
tournament's choices, the key's columns first, reset codes by source).  Never edit a migration that has shipped; add a new one."""
from __future__ import annotations

# 7: correspondence play: conditional moves (a tree of branches per player, each row one line from
# the position at `ply`), clocks with a bank and an increment, a submitted move waiting for its
# confirmation, and end-of-game notices.
CORRESPONDENCE = """
CREATE TABLE conditionals (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    ply INTEGER NOT NULL,               -- moves played when the line's first (the opponent's) move is due
    line TEXT NOT NULL,                 -- coordinate moves, blank-separated: opponent, reply, opponent...
    PRIMARY KEY (game_id, user_id, line)
) WITHOUT ROWID;

CREATE TABLE clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    left1 REAL NOT NULL,                -- seconds on player1's clock when their turn began / they last moved
    left2 REAL NOT NULL                 -- the same for player2
);

CREATE TABLE submitted (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    move TEXT NOT NULL,                 -- as the player wrote it
    fen TEXT NOT NULL,                  -- the position it was submitted in: confirm plays it only there
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;

CREATE TABLE end_notices (
    user_id TEXT NOT NULL REFERENCES users(id),
    variant TEXT NOT NULL,
    game_id INTEGER NOT NULL,           -- 0: every game the user plays in `variant`
    PRIMARY KEY (variant, game_id, user_id)
) WITHOUT ROWID;
"""

# 8: tournaments by mail (pbm.model.play.tournaments): the event, its entrants (their rating frozen at
# the start, for seeding and pairing), and every pairing with the game it started and its result.
TOURNAMENTS = """
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    name TEXT NOT NULL,                 -- lower case: letters, digits, hyphens
    director TEXT NOT NULL REFERENCES users(id),
    system TEXT NOT NULL CHECK (system IN ('roundrobin', 'swiss', 'knockout')),
    double INTEGER NOT NULL DEFAULT 0,  -- 1: a double round robin
    rounds INTEGER,                     -- Swiss: as asked, then as the field allows; others: at start
    params TEXT NOT NULL DEFAULT '{}',  -- JSON: the -params of every game
    options TEXT NOT NULL DEFAULT '{}', -- JSON: the --options of every game (timeout, reminder)
    rated INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    round INTEGER NOT NULL DEFAULT 0,   -- the round being played (0: not started)
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    UNIQUE (variant, name)
);
CREATE INDEX tournaments_listing ON tournaments (variant, status);

CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    number INTEGER NOT NULL,            -- order of entry: the round robin pairing number
    rating REAL,                        -- the rating at the start (seeding, Swiss ranking)
    joined_at TEXT NOT NULL,
    withdrawn_at TEXT,                  -- left or withdrawn after the start: forfeits the rest
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
CREATE INDEX tournament_entrants_user ON tournament_entrants (user_id);

CREATE TABLE tournament_games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,             -- the pairing's board number in its round
    white TEXT NOT NULL REFERENCES users(id),   -- moves first
    black TEXT REFERENCES users(id),    -- NULL: a bye
    result TEXT,                        -- 1-0, 0-1, 1/2-1/2, +-, -+, --; NULL while played (and byes)
    game_id INTEGER REFERENCES games(id)    -- NULL for a bye or a forfeit decided at pairing
);
CREATE INDEX tournament_games_round ON tournament_games (tournament_id, round);
CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id) WHERE game_id IS NOT NULL;
"""

# 9: clocks that never cheat a player (pbm.model.server.heartbeats, pbm.commands.timing.timeouts): the server's
# heartbeats and the outages found between them, the credit each game got from one (told in its next
# board mail), the leave days autoleave spent, the time-outs of a player (`GAME player`) and the
# most a tournament lets its entrants have.
CLOCKS = """
CREATE TABLE heartbeats (
    name TEXT PRIMARY KEY,              -- 'timers': the last timer run; 'digest': the last digest run
    at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE outages (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,           -- the last heartbeat before the gap
    ended_at TEXT NOT NULL              -- the first after it
);

CREATE TABLE outage_credits (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),     -- the player to move, whose clock ran
    seconds REAL NOT NULL,              -- given back to them; deleted once told
    outage_id INTEGER NOT NULL REFERENCES outages(id)
);

ALTER TABLE vacations ADD COLUMN automatic INTEGER NOT NULL DEFAULT 0;  -- 1: a day autoleave spent
CREATE INDEX events_timeouts ON events (user_id, at) WHERE kind = 'timeout';
ALTER TABLE tournaments ADD COLUMN max_timeouts INTEGER;   -- to join: at most this many in a year
"""

# 10: appeals against a ruling (pbm.model.play.appeals): one per player and game, open until an arbiter
# adjudicates the game again or dismisses it.
APPEALS = """
CREATE TABLE appeals (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    text TEXT NOT NULL,                 -- the player's words (the mail's body), passwords masked
    at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'dismissed', 'decided')),
    arbiter TEXT REFERENCES users(id),  -- who closed it
    closed_at TEXT,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
"""


# 11: limits that hurt only the one who abuses them (pbm.model.players.guard, pbm.commands.accounts.flood).  Reset
# codes are kept a day, one row per code mailed (at most `reset_codes_per_day` to a user, each valid
# on its own); who signed up from which address; addresses given for someone else, waiting for their
# confirmation; what a limit refused, so that the player it protects is told once a day.
LIMITS = """
DROP TABLE reset_codes;
CREATE TABLE reset_codes (
    user_id TEXT NOT NULL REFERENCES users(id),
    issued_at TEXT NOT NULL,
    code TEXT NOT NULL,                 -- HMAC of the code under the server secret, never the code
    expires_at TEXT NOT NULL,
    used_at TEXT,                       -- a code works once
    PRIMARY KEY (user_id, issued_at)
) WITHOUT ROWID;

ALTER TABLE users ADD COLUMN signed_up_from TEXT;   -- the sender of the signup (lower case)
CREATE INDEX users_signups ON users (signed_up_from, created_at);

CREATE TABLE pending_addresses (
    address TEXT NOT NULL,              -- lower case
    user_id TEXT NOT NULL REFERENCES users(id),
    position INTEGER NOT NULL,          -- where it was given in the list (0: the main address)
    asked_at TEXT NOT NULL,             -- when its confirmation was mailed (one a day at most)
    PRIMARY KEY (user_id, address)
) WITHOUT ROWID;

CREATE TABLE refusals (
    kind TEXT NOT NULL,                 -- "challenge": a challenge over the challenged player's cap
    user_id TEXT NOT NULL,              -- who the limit protects
    other TEXT NOT NULL,                -- who was refused
    at TEXT NOT NULL,
    told INTEGER NOT NULL DEFAULT 0     -- 1: the mail telling `user_id` of it
);
CREATE INDEX refusals_user ON refusals (user_id, kind, at);
"""


# 12: a tournament's choices at its creation (pbm.commands.tournaments.tournament_choices): the tie-breaks,
# FIDE's abbreviations comma-separated ("BH-C1,BH,SB"; empty: the system's defaults), the rating
# band of the entry ("1400-1800"; empty: everyone) and the theme (the moves every game starts after,
# as coordinates, comma-separated; empty: none).
TOURNAMENT_CHOICES = """
ALTER TABLE tournaments ADD COLUMN tiebreaks TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN band TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN theme TEXT NOT NULL DEFAULT '';
"""


# 13: in a WITHOUT ROWID table the key's columns come first, in the key's order.  SQLite 3.40.1
# (Debian 12's) misreads a NOT NULL column in `PRAGMA quick_check` when they do not: it reported
# "NULL value in end_notices.user_id" for every end-of-game notice, and `pbm serve` took that for
# damage.  The three tables that broke the rule are made again with the same rows.
KEYS_FIRST = """
CREATE TABLE conditionals_keyed (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    line TEXT NOT NULL,                 -- coordinate moves, blank-separated: opponent, reply, opponent...
    ply INTEGER NOT NULL,               -- moves played when the line's first (the opponent's) move is due
    PRIMARY KEY (game_id, user_id, line)
) WITHOUT ROWID;
INSERT INTO conditionals_keyed (game_id, user_id, line, ply) SELECT game_id, user_id, line, ply FROM conditionals;
DROP TABLE conditionals;
ALTER TABLE conditionals_keyed RENAME TO conditionals;

CREATE TABLE end_notices_keyed (
    variant TEXT NOT NULL,
    game_id INTEGER NOT NULL,           -- 0: every game the user plays in `variant`
    user_id TEXT NOT NULL REFERENCES users(id),
    PRIMARY KEY (variant, game_id, user_id)
) WITHOUT ROWID;
INSERT INTO end_notices_keyed (variant, game_id, user_id) SELECT variant, game_id, user_id FROM end_notices;
DROP TABLE end_notices;
ALTER TABLE end_notices_keyed RENAME TO end_notices;

CREATE TABLE pending_addresses_keyed (
    user_id TEXT NOT NULL REFERENCES users(id),
    address TEXT NOT NULL,              -- lower case
    position INTEGER NOT NULL,          -- where it was given in the list (0: the main address)
    asked_at TEXT NOT NULL,             -- when its confirmation was mailed (one a day at most)
    PRIMARY KEY (user_id, address)
) WITHOUT ROWID;
INSERT INTO pending_addresses_keyed (user_id, address, position, asked_at)
    SELECT user_id, address, position, asked_at FROM pending_addresses;
DROP TABLE pending_addresses;
ALTER TABLE pending_addresses_keyed RENAME TO pending_addresses;
"""


# 14: reset codes counted per asking source (pbm.model.players.resets): `own` says whether the code
# was asked for from a registered address of the user; several codes may be issued in the same
# instant (the lines of one `multiple` mail), so the code is part of the key.
RESET_SOURCES = """
CREATE TABLE reset_codes_sourced (
    user_id TEXT NOT NULL REFERENCES users(id),
    issued_at TEXT NOT NULL,
    code TEXT NOT NULL,                 -- HMAC of the code under the server secret, never the code
    expires_at TEXT NOT NULL,
    used_at TEXT,                       -- a code works once
    own INTEGER NOT NULL DEFAULT 0,     -- 1: asked for from a registered address of the user
    PRIMARY KEY (user_id, issued_at, code)
) WITHOUT ROWID;
INSERT INTO reset_codes_sourced (user_id, issued_at, code, expires_at, used_at)
    SELECT user_id, issued_at, code, expires_at, used_at FROM reset_codes;
DROP TABLE reset_codes;
ALTER TABLE reset_codes_sourced RENAME TO reset_codes;
"""


# 15: a player's private notes on a game (pbm.model.play.notes): the text, the moves played when it was
# written, and a line they worked out from there (moves in coordinates, space-separated; '' for none);
# `note_shares`: the games whose notes their writer gave to the record (`GAME notes ... share`).
NOTES = """
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    line TEXT NOT NULL DEFAULT '',
    written_at TEXT NOT NULL
);
CREATE INDEX notes_game ON notes (game_id, user_id);
CREATE TABLE note_shares (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    UNIQUE (game_id, user_id)
);
"""


# A director's tools for a Swiss (pbm.commands.tournaments.directing): Baku acceleration, entries
# taken until round `late` is paired, the half-point byes a player may ask for (`byes`, and each
# one asked: `tournament_byes`), and each result the director corrected.
TOURNAMENT_DIRECTING = """
ALTER TABLE tournaments ADD COLUMN accelerated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN byes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE tournament_byes (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    round INTEGER NOT NULL,             -- a round not yet paired: the player gets half a point
    asked_at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, user_id, round)
) WITHOUT ROWID;
CREATE TABLE tournament_corrections (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,             -- the pairing's board in its round
    was TEXT NOT NULL,                  -- the result before, White first
    now TEXT NOT NULL,                  -- the result the director gave
    director TEXT NOT NULL REFERENCES users(id),
    at TEXT NOT NULL
);
CREATE INDEX tournament_corrections_of ON tournament_corrections (tournament_id);
"""

# paired games (pbm.tournaments.paired): '' not paired; else the knockout's decider on a tied pair,
# 'pair' (another pair of games) or 'seed' (the higher seed), 'pair' for the other systems
TOURNAMENT_PAIRED = """
ALTER TABLE tournaments ADD COLUMN paired TEXT NOT NULL DEFAULT '';
"""


# Team tournaments (pbm.model.play.teams, whose docstring tells the rows).
TEAMS = """
CREATE TABLE team_tournaments (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
    boards INTEGER NOT NULL,
    ranking TEXT NOT NULL DEFAULT 'match'   -- 'match': match points first; 'board': board points
);
CREATE TABLE tournament_teams (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    number INTEGER NOT NULL,            -- the order teams were first named in
    name TEXT NOT NULL,
    PRIMARY KEY (tournament_id, number),
    UNIQUE (tournament_id, name)
) WITHOUT ROWID;
CREATE TABLE tournament_lineups (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    team INTEGER NOT NULL,              -- tournament_teams.number
    board INTEGER NOT NULL,
    from_round INTEGER NOT NULL,        -- 1 for the line-up at the start; later for a substitute
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
CREATE TABLE tournament_matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    number INTEGER NOT NULL,
    first INTEGER NOT NULL,             -- the first-named team: its board 1 has White
    second INTEGER,                     -- NULL: a bye (or a round robin's sit-out)
    PRIMARY KEY (tournament_id, round, number)
) WITHOUT ROWID;
"""
