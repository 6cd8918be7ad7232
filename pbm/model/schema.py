"""The database schema, as an append-only list of migrations.

MIGRATIONS[i] brings a database from schema version i to i + 1 (pbm.model.store applies what is missing,
in one transaction, and records the version in `schema_version`).  Never edit a migration that has
been released: append a new one.  A migration is SQL text, or a function of the database for the
changes ALTER TABLE cannot make (pbm.model.rebuild).  Times are UTC text from `pbm.model.db.timestamp()`, so they sort.
"""
from __future__ import annotations

from collections.abc import Callable

from pbm.commands.parse import MASK
from pbm.mail import reading
from pbm.model.db import Database

# 1: mail intake and outbox (pbm.intake, pbm.outbox).
MAIL = """
CREATE TABLE inbound (
    id INTEGER PRIMARY KEY,
    dedup_key TEXT NOT NULL UNIQUE,     -- the Message-ID, else "sha256:<hex of the raw bytes>"
    message_id TEXT,                    -- Message-ID header as received, NULL if there was none
    received_at TEXT NOT NULL,
    envelope_from TEXT,                 -- SMTP MAIL FROM ("" = null return path), NULL if unknown
    envelope_to TEXT NOT NULL DEFAULT '',   -- SMTP RCPT TO addresses, comma-separated
    sender TEXT,                        -- bare From address, NULL if there was none
    size INTEGER NOT NULL,              -- bytes received
    raw BLOB NOT NULL,                  -- the whole message; only its header when too_large
    status TEXT NOT NULL CHECK (status IN ('processed', 'automatic', 'too_large', 'failed')),
    detail TEXT                         -- why it was automatic, or the internal error (no message text)
);

CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    inbound_id INTEGER REFERENCES inbound(id),  -- the message answered; NULL for timer mail
    message_id TEXT NOT NULL UNIQUE,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    raw BLOB NOT NULL,                  -- the complete RFC 5322 message, CRLF line ends
    status TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
    queued_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_by TEXT,                    -- "host:pid" of the process sending it (status 'sending')
    claimed_until TEXT,                 -- after this the claim lapses and another process may send
    sent_at TEXT,
    last_error TEXT
);
CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
CREATE INDEX outbox_inbound ON outbox (inbound_id);
"""

# 2: accounts, games and ratings (pbm.model.accounts, pbm.model.games, pbm.model.ratings).  Every query the commands run
# per message is served by an index, so a command costs the same with 100 or 100,000 finished games.
GAMES = """
CREATE TABLE users (
    id TEXT PRIMARY KEY,                -- lower case; never reused, so old game records keep their meaning
    password TEXT NOT NULL,             -- "scrypt$N$r$p$salt$hash" (base64), see pbm.model.accounts
    created_at TEXT NOT NULL,
    closed_at TEXT                      -- set by signoff; the account can no longer be used
);

CREATE TABLE addresses (
    address TEXT NOT NULL,              -- lower case
    user_id TEXT NOT NULL REFERENCES users(id),
    position INTEGER NOT NULL,          -- 0 = where the user's mail goes; the others are also accepted
    PRIMARY KEY (address, user_id)
) WITHOUT ROWID;
CREATE INDEX addresses_user ON addresses (user_id, position);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,              -- rules variant name: xiangqi, janggi, ...
    board INTEGER NOT NULL,             -- the number players use, from 101 per variant
    player1 TEXT NOT NULL REFERENCES users(id),     -- moves first
    player2 TEXT NOT NULL REFERENCES users(id),
    params TEXT NOT NULL DEFAULT '{}',  -- JSON: the -params given to the rules core
    options TEXT NOT NULL DEFAULT '{}', -- JSON: the --options (timeout, reminder days)
    start_fen TEXT NOT NULL,
    rated INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'cancelled', 'declined')),
    ply INTEGER NOT NULL DEFAULT 0,
    to_move TEXT,                       -- the user whose turn it is; NULL unless active
    result TEXT NOT NULL DEFAULT '*',   -- 1-0, 0-1 (for the sides), 1/2-1/2, * (none)
    winner TEXT,
    reason TEXT,                        -- as printed: "checkmate", "bob resigned", "adjudicated by ..."
    offer TEXT CHECK (offer IN ('draw', 'undo')),   -- the pending proposal, if any ...
    offer_by TEXT,                      -- ... and who made it
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT,
    remind_at TEXT,                     -- when to remind to_move; NULL: no reminder due
    deadline TEXT,                      -- when to_move loses on time; NULL: no time limit
    UNIQUE (variant, board)
);
CREATE INDEX games_player1 ON games (player1, status, finished_at);
CREATE INDEX games_player2 ON games (player2, status, finished_at);
CREATE INDEX games_to_move ON games (to_move);
CREATE INDEX games_listing ON games (variant, status, finished_at);
CREATE INDEX games_running ON games (variant, board) WHERE status = 'active';
CREATE INDEX games_remind ON games (remind_at) WHERE remind_at IS NOT NULL;
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;

CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,               -- 1 = the first move
    move TEXT NOT NULL,                 -- canonical coordinates (replayed by rules.Game.from_record)
    notation TEXT NOT NULL,             -- the game's own notation (WXF), as shown in mails
    auto INTEGER NOT NULL DEFAULT 0,    -- 1: played from the player's queue
    played_at TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE premoves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    move TEXT NOT NULL,                 -- as the player wrote it; judged when it is played
    queued_at TEXT NOT NULL,
    PRIMARY KEY (game_id, user_id, seq)
) WITHOUT ROWID;

CREATE TABLE observers (
    game_id INTEGER NOT NULL REFERENCES games(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    since TEXT NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
CREATE INDEX observers_user ON observers (user_id);

-- The game record: who did what besides moving (offers, resignations, admin rulings with reasons).
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    user_id TEXT,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX events_game ON events (game_id);

CREATE TABLE ratings (
    variant TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id),
    rating REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (variant, user_id)
) WITHOUT ROWID;
CREATE INDEX ratings_order ON ratings (variant, rating DESC);
"""

# 3: what a stranger's mail must not be able to do.  A challenge costs the challenged
# player nothing until they consent by moving or choosing a setup; failed passwords are counted per
# user id and per sender for the rate limit; a user's reply tokens can be revoked; raw messages are
# redacted once processed and purged after the retention period.
ABUSE = """
ALTER TABLE games ADD COLUMN challenger TEXT;       -- who sent the challenge; NULL before migration 3
ALTER TABLE games ADD COLUMN accepted_at TEXT;      -- when the challenged player consented (moved)
ALTER TABLE games ADD COLUMN expires_at TEXT;       -- a challenge not taken up by then is cancelled
UPDATE games SET accepted_at = created_at;
CREATE INDEX games_expiry ON games (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE password_failures (
    subject TEXT NOT NULL,              -- "user:alice" or "sender:mallory@example.org"
    at TEXT NOT NULL
);
CREATE INDEX password_failures_subject ON password_failures (subject, at);

ALTER TABLE users ADD COLUMN token_epoch INTEGER NOT NULL DEFAULT 0;  -- bumped: old reply tokens die
ALTER TABLE users ADD COLUMN preferences TEXT NOT NULL DEFAULT '{}';  -- JSON, see pbm.model.accounts

-- A forgotten password: one code per user at a time, mailed to the user's registered addresses.
CREATE TABLE reset_codes (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    code TEXT NOT NULL,                 -- HMAC of the code under the server secret, never the code
    issued_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) WITHOUT ROWID;

-- Per-recipient order in the outbox: a reply waits for the older unsent ones to its recipient.
CREATE INDEX outbox_unsent ON outbox (recipient, id) WHERE status IN ('queued', 'sending');

-- Addresses the relay refused for good (5xx): after 3 they are skipped (pbm.outbox.bounces).
CREATE TABLE bounces (
    address TEXT PRIMARY KEY,           -- lower case
    failures INTEGER NOT NULL,
    first_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    last_error TEXT NOT NULL
) WITHOUT ROWID;

-- 0: raw as received; 1: passwords masked (once processed); 2: purged to the header after retention
ALTER TABLE inbound ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0;
CREATE INDEX inbound_unpurged ON inbound (received_at) WHERE redacted < 2;
"""

# 4: what players expect of a turn server: comments kept with the move they came with
# (for the PGN record), every rating change (for profiles), open challenges anyone can take (seeks),
# and vacations that stop a player's clocks.
PLAYERS = """
ALTER TABLE events ADD COLUMN ply INTEGER;          -- moves played when it happened (comments: after which)

CREATE TABLE rating_changes (
    variant TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id),
    game_id INTEGER NOT NULL REFERENCES games(id),
    at TEXT NOT NULL,
    before REAL NOT NULL,
    after REAL NOT NULL
);
CREATE INDEX rating_changes_user ON rating_changes (variant, user_id, at);

CREATE TABLE seeks (
    id INTEGER PRIMARY KEY,             -- the number players take it by
    variant TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id),
    params TEXT NOT NULL DEFAULT '{}',
    options TEXT NOT NULL DEFAULT '{}',
    rated INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'taken', 'withdrawn', 'expired')),
    game_id INTEGER REFERENCES games(id)
);
CREATE INDEX seeks_open ON seeks (variant, status, expires_at);

CREATE TABLE vacations (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    started_at TEXT NOT NULL,
    ends_at TEXT NOT NULL,              -- as asked for
    ended_at TEXT                       -- NULL while it runs; earlier than ends_at if called off
);
CREATE INDEX vacations_user ON vacations (user_id, started_at);
CREATE INDEX vacations_running ON vacations (ends_at) WHERE ended_at IS NULL;

ALTER TABLE games ADD COLUMN paused_left REAL;      -- seconds left on to_move's clock while it is stopped
"""

# 5: cheaper commands: a password found right is remembered across processes for a short
# while, by a keyed hash of it and its stored hash, so that each command does not pay scrypt; a
# reply's bytes (20 KB with the drawn board) live apart from its row, which claiming and marking it
# sent rewrite -- SQLite rewrites a whole row on every UPDATE.
SPEED = """
CREATE TABLE password_checks (
    key TEXT PRIMARY KEY,               -- HMAC(server secret, stored hash, password): never the password
    expires_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE outbox_bodies (
    id INTEGER PRIMARY KEY REFERENCES outbox(id),   -- the outbox row whose message this is
    raw BLOB NOT NULL                   -- the complete message, CRLF line ends
);
INSERT INTO outbox_bodies (id, raw) SELECT id, raw FROM outbox;
ALTER TABLE outbox DROP COLUMN raw;
"""

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

# 8: tournaments by mail (pbm.model.tournaments): the event, its entrants (their rating frozen at
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

# 9: clocks that never cheat a player (pbm.model.heartbeats, pbm.commands.timeouts): the server's
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

# 10: appeals against a ruling (pbm.model.appeals): one per player and game, open until an arbiter
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


def _redact_at_rest(db: Database) -> None:
    """6: no password at rest, and the players' caps on running games (`GAME limit`).  Every stored
    message is redacted when it is recorded (with every word of its text masked but the command
    words), a failed one's bytes kept only sealed under the server secret (pbm.model.sealed); the
    messages stored before are redacted here, all their words masked -- failed ones too, since a
    migration has no secret to seal them with: run `pbm inbound retry` on those before upgrading."""
    db.execute("ALTER TABLE inbound ADD COLUMN sealed BLOB")   # a failed message's raw bytes, sealed
    db.execute("CREATE TABLE running_limits (user_id TEXT NOT NULL REFERENCES users(id), variant TEXT "
               "NOT NULL, most INTEGER NOT NULL, PRIMARY KEY (user_id, variant)) WITHOUT ROWID")
    rows = db.execute("SELECT id, raw FROM inbound WHERE redacted = 0").fetchall()
    db.conn.executemany("UPDATE inbound SET raw = ?, redacted = 1 WHERE id = ?",
                        [(reading.unread(raw, frozenset(), MASK), row_id) for row_id, raw in rows])


# 11: limits that hurt only the one who abuses them (pbm.model.guard, pbm.commands.flood).  Reset
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


# 12: a tournament's choices at its creation (pbm.commands.tournament_choices): the tie-breaks,
# FIDE's abbreviations comma-separated ("BH-C1,BH,SB"; empty: the system's defaults), the rating
# band of the entry ("1400-1800"; empty: everyone) and the theme (the moves every game starts after,
# as coordinates, comma-separated; empty: none).
TOURNAMENT_CHOICES = """
ALTER TABLE tournaments ADD COLUMN tiebreaks TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN band TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN theme TEXT NOT NULL DEFAULT '';
"""

MIGRATIONS: list[str | Callable[[Database], None]] = [
    MAIL,
    GAMES,
    ABUSE,
    PLAYERS,
    SPEED,
    _redact_at_rest,
    CORRESPONDENCE,
    TOURNAMENTS,
    CLOCKS,
    APPEALS,
    LIMITS,
    TOURNAMENT_CHOICES,
]
