"""The database schema, as an append-only list of migrations.

MIGRATIONS[i] brings a database from schema version i to i + 1 (pbm.model.store applies what is missing,
in one transaction, and records the version in `schema_version`).  Never edit a migration that has
been released: append a new one.  A migration is SQL text, or a function of the database for the
changes ALTER TABLE cannot make (pbm.model.rebuild).  Times are UTC text from `pbm.model.db.timestamp()`, so they sort.
"""
from __future__ import annotations

from collections.abc import Callable

from pbm.mail import reading
from pbm.mail.reading import MASK
from pbm.model.db import Database
from pbm.model.players.ratings import to_glicko_2
from pbm.model.play.reviews import REVIEWS
from pbm.model.schema_play import (
    APPEALS,
    CLOCKS,
    CORRESPONDENCE,
    KEYS_FIRST,
    LIMITS,
    NOTES,
    RESET_SOURCES,
    TEAMS,
    TOURNAMENT_CHOICES,
    TOURNAMENT_DIRECTING,
    TOURNAMENTS,
    TOURNAMENT_PAIRED,
)

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

# 2: accounts, games and ratings (pbm.model.players.accounts, pbm.model.play.games, pbm.model.players.ratings).  Every query the commands run
# per message is served by an index, so a command costs the same with 100 or 100,000 finished games.
GAMES = """
CREATE TABLE users (
    id TEXT PRIMARY KEY,                -- lower case; never reused, so old game records keep their meaning
    password TEXT NOT NULL,             -- "scrypt$N$r$p$salt$hash" (base64), see pbm.model.players.accounts
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
ALTER TABLE users ADD COLUMN preferences TEXT NOT NULL DEFAULT '{}';  -- JSON, see pbm.model.players.accounts

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

def _redact_at_rest(db: Database) -> None:
    """6: no password at rest, and the players' caps on running games (`GAME limit`).  Every stored
    message is redacted when it is recorded (with every word of its text masked but the command
    words), a failed one's bytes kept only sealed under the server secret (pbm.model.server.sealed); the
    messages stored before are redacted here, all their words masked -- failed ones too, since a
    migration has no secret to seal them with: run `pbm inbound retry` on those before upgrading."""
    db.execute("ALTER TABLE inbound ADD COLUMN sealed BLOB")   # a failed message's raw bytes, sealed
    db.execute("CREATE TABLE running_limits (user_id TEXT NOT NULL REFERENCES users(id), variant TEXT "
               "NOT NULL, most INTEGER NOT NULL, PRIMARY KEY (user_id, variant)) WITHOUT ROWID")
    rows = db.execute("SELECT id, raw FROM inbound WHERE redacted = 0").fetchall()
    db.conn.executemany("UPDATE inbound SET raw = ?, redacted = 1 WHERE id = ?",
                        [(reading.unread(raw, frozenset(), MASK), row_id) for row_id, raw in rows])


# 13: the storage's own checks: the key's columns first in WITHOUT ROWID tables (KEYS_FIRST), and the
# count of commits (pbm.model.db.Witness), one row, that tells a database which lost commits.
COMMITS = """
CREATE TABLE commits (n INTEGER NOT NULL);
INSERT INTO commits (n) VALUES (0);
"""
STORAGE = KEYS_FIRST + COMMITS

# Mail that reaches the inbox (pbm.outbox.streams): each reply's stream, and what came back about
# the mails of each stream -- bounces, complaints (ARF), unsubscriptions -- per address.
STREAMS = """
ALTER TABLE outbox ADD COLUMN stream TEXT NOT NULL DEFAULT 'transactional';
CREATE TABLE stream_reports (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    stream TEXT NOT NULL,               -- of the mail it is about
    kind TEXT NOT NULL CHECK (kind IN ('bounce', 'complaint', 'unsubscribe')),
    address TEXT NOT NULL,              -- lower case: where that mail went
    user_id TEXT,                       -- the reader, when known (an unsubscribe names them)
    outbox_id INTEGER,                  -- the mail it is about, when known
    detail TEXT NOT NULL DEFAULT '',
    told_at TEXT                        -- an unsubscribe or complaint: when the reader's next mail said so
);
CREATE INDEX stream_reports_user ON stream_reports (user_id, stream, kind);
CREATE INDEX stream_reports_untold ON stream_reports (address) WHERE told_at IS NULL;
"""

# One body for the copies of a mail (pbm.outbox.queue): the copies of an observed move's mail to
# observers who see the same view share the first copy's stored body, each row keeping its own
# envelope -- To, Message-ID, List-Unsubscribe -- in `head`; `outbox_messages` puts a row's message
# together (`raw`), as the sender hands it over, or gives its parts (`head`, `body_id`, `body`).
SHARED_BODIES = """
ALTER TABLE outbox ADD COLUMN head TEXT;         -- NULL: the body is the whole message
ALTER TABLE outbox ADD COLUMN body_of TEXT;      -- the Message-ID of the copy whose body this one shares
CREATE INDEX outbox_sharing ON outbox (body_of) WHERE body_of IS NOT NULL;
CREATE VIEW outbox_messages AS
SELECT o.id AS id, o.head AS head, coalesce(f.id, o.id) AS body_id, b.raw AS body,
    CASE WHEN o.head IS NULL THEN b.raw ELSE CAST(o.head || b.raw AS BLOB) END AS raw
FROM outbox o LEFT JOIN outbox f ON f.message_id = o.body_of JOIN outbox_bodies b ON b.id = coalesce(f.id, o.id);
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
    STORAGE,
    RESET_SOURCES,
    NOTES,
    to_glicko_2,
    REVIEWS,
    TOURNAMENT_DIRECTING,
    STREAMS,
    TEAMS,
    TOURNAMENT_PAIRED,
    SHARED_BODIES,
]
