"""Accounts: user ids, the mail addresses that belong to them, and salted scrypt password hashes.

A password is checked on almost every command, so its hash cost is a trade-off between an attacker
holding a stolen database and the server's latency: scrypt with N=2**14, r=8, p=1 (16 MiB, the
classic interactive-login parameters).  The parameters are stored with each hash, so they can be
raised later without invalidating old hashes.  Checks are remembered for a while (as an HMAC under
a per-process random key, never the password itself), right and wrong ones: a player sending many
commands pays for scrypt once, and intake checks a message's passwords before its write
transaction, so that the command, inside it, finds the answer remembered and never runs scrypt
while holding the write lock.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import re
import threading
import zoneinfo
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from pbm.i18n import LANGUAGES
from pbm.model.db import Database, timestamp
from rules.said import said  # texts a player reads, translated where they are shown

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 14, 8, 1
MIN_PASSWORD = 8                        # so that a move (at most 7 characters) is never a password
MAX_ADDRESSES = 5

_USER_ID = re.compile(r"[a-z][a-z0-9_]{1,15}")
_ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"]+@[a-z0-9-]+(\.[a-z0-9-]+)+")
# Words that cannot be user ids: every word of a command (verbs, their aliases, in-game words),
# every game name, colour, side and list filter -- a user id among them would make commands
# ambiguous and error quotes unclear.  tests/test_commands_accounts.py checks this list against
# the command table.
RESERVED = frozenset("""active inactive next all draw help multiple list signup signoff change
    address password move board mvoe moveq qmove queue resign setup preview show status games
    history standings chat subscribe unsubscribe challenge adjudicate forfeit cancel
    accept propose reject undo pass clear rated unrated off record player seek seeks accept-seek vacation
    reset set
    conditional submit confirm notify replay
    tournament tournaments
    limit
    ruling appeal dismiss
    ratings
    review
    note notes
    red black green white cho han w b postmaster mailer_daemon
    xiangqi janggi padwarqi giqi""".split())


@dataclass(frozen=True)
class User:
    """A registered account."""
    id: str
    password: str       # the stored hash
    closed: bool


# --- what is acceptable ------------------------------------------------------------------------------

def user_id_problem(user_id: str) -> str | None:
    """Why `user_id` cannot be a new user id, or None."""
    if not _USER_ID.fullmatch(user_id.lower()):
        return said("a user id is 2 to 16 letters, digits or underscores, starting with a letter "
                    "(for example alice or bob_2)")
    if user_id.lower() in RESERVED:
        return said("{word} is a word the commands use, so it cannot be a user id", word=user_id.lower())
    return None


def password_problem(password: str, user_id: str) -> str | None:
    """Why `password` cannot be used (without quoting it: the answer goes by mail), or None."""
    if not MIN_PASSWORD <= len(password) <= 64:
        return said("a password is 8 to 64 characters long, without spaces")
    if password.isdigit():
        return said("a password may not be all digits (add some letters)")
    if password.startswith("-") or password == "**":
        return said("a password may not start with '-' or be '**': commands read those as parameters")
    if not password.isprintable():
        return said("a password may not contain control characters")
    if password.lower() == user_id.lower():
        return said("the password may not be the same as the user id")
    return None


def address_problem(address: str) -> str | None:
    if len(address) > 254 or not _ADDRESS.fullmatch(address.lower()):
        return said("{address} is not a mail address (write it as name@example.org, without <>)", address=address)
    return None


# --- passwords ---------------------------------------------------------------------------------------

_PROCESS_KEY = os.urandom(32)
_verified: OrderedDict[str, bytes] = OrderedDict()     # stored hash -> HMAC of the password
_rejected: OrderedDict[tuple[str, bytes], None] = OrderedDict()   # (stored hash, HMAC of a wrong one)
_verified_lock = threading.Lock()                      # checks run in several threads of pbm serve
_VERIFIED_MAX = 10_000


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    known = remembered(password, stored)
    if known is not None:
        return known
    right = _scrypt_check(password, stored)
    remember(password, stored, right)
    return right


def _scrypt_check(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r),
                                p=int(p), dklen=len(expected))
    except ValueError:
        return False
    return scheme == "scrypt" and hmac.compare_digest(actual, expected)


def remember(password: str, stored: str, right: bool) -> None:
    """Remember whether `password` is right for the hash `stored`: checked with scrypt here, or in
    `pbm serve` by the SMTP process that passed the message on (pbm.runners.listener)."""
    mac = _mac(password)
    with _verified_lock:
        if right:
            _verified[stored] = mac
            _rejected.pop((stored, mac), None)
        else:
            _rejected[(stored, mac)] = None
        for cache in (_verified, _rejected):
            if len(cache) > _VERIFIED_MAX:
                cache.popitem(last=False)


def remembered(password: str, stored: str) -> bool | None:
    """Whether `password` was found right (True) or wrong (False) for the hash `stored` before --
    no scrypt, microseconds -- or None if it was not checked yet."""
    mac = _mac(password)
    with _verified_lock:
        known = _verified.get(stored)
        if known is not None and hmac.compare_digest(known, mac):
            _verified.move_to_end(stored)
            return True
        return False if (stored, mac) in _rejected else None


# Across processes (each `pbm deliver` is one): a password found right is remembered in the database
# for CHECK_TTL, under a keyed hash of it with its stored hash -- useless without the server secret,
# and void once the password changes.  A wrong password is never remembered this way: each one
# costs scrypt, and counts for the guessing limit (pbm.model.players.guard).
CHECK_TTL = timedelta(minutes=15)


def _check_key(secret: bytes, password: str, stored: str) -> str:
    return hmac.new(secret, f"{stored}\0{password}".encode(), hashlib.sha256).hexdigest()


def checked_recently(db: Database, secret: bytes, password: str, stored: str, now: datetime) -> bool:
    """`password` was found right for `stored` by some process within CHECK_TTL."""
    return db.execute("SELECT 1 FROM password_checks WHERE key = ? AND expires_at > ?",
                      [_check_key(secret, password, stored), timestamp(now)]).fetchone() is not None


def note_checked(db: Database, secret: bytes, password: str, stored: str, now: datetime) -> None:
    """Remember that `password` is right for `stored` (call in a write transaction)."""
    db.execute("INSERT OR REPLACE INTO password_checks (key, expires_at) VALUES (?, ?)",
               [_check_key(secret, password, stored), timestamp(now + CHECK_TTL)])


def forget_checks(db: Database, now: datetime) -> None:
    db.execute("DELETE FROM password_checks WHERE expires_at <= ?", [timestamp(now)])


def _mac(password: str) -> bytes:
    return hmac.new(_PROCESS_KEY, password.encode(), hashlib.sha256).digest()


# --- storage -----------------------------------------------------------------------------------------

def get(db: Database, user_id: str) -> User | None:
    row = db.execute("SELECT id, password, closed_at FROM users WHERE id = ?",
                     [user_id.lower()]).fetchone()
    return User(row[0], row[1], row[2] is not None) if row else None


def create(db: Database, user_id: str, password: str, addresses: list[str],
           now: datetime, signed_up_from: str | None = None) -> None:
    db.execute("INSERT INTO users (id, password, created_at, signed_up_from) VALUES (?, ?, ?, ?)",
               [user_id, hash_password(password), timestamp(now),
                signed_up_from.lower() if signed_up_from else None])
    set_addresses(db, user_id, addresses)


def signups(db: Database, sender: str, since: datetime) -> int:
    """How many accounts were made from `sender` since then."""
    return db.execute("SELECT count(*) FROM users WHERE signed_up_from = ? AND created_at > ?",
                      [sender.lower(), timestamp(since)]).fetchone()[0]


def set_password(db: Database, user_id: str, password: str) -> None:
    """A new password also revokes the user's reply tokens (pbm.model.players.tokens): whoever could read the
    old game mails may be who the player is shutting out."""
    db.execute("UPDATE users SET password = ?, token_epoch = token_epoch + 1 WHERE id = ?",
               [hash_password(password), user_id])


def addresses(db: Database, user_id: str) -> list[str]:
    """The user's registered addresses, the main one first."""
    return [row[0] for row in db.execute("SELECT address FROM addresses WHERE user_id = ? ORDER BY "
                                         "position", [user_id])]


class Zones(Sequence[str]):
    """The IANA time zones `set tz=` takes, UTC first, read from the tz database when first asked
    for more than the default (a command that sets no zone never reads it)."""

    def __getitem__(self, index):           # type: ignore[override]
        return "UTC" if index == 0 else _zones()[index]

    def __len__(self) -> int:
        return len(_zones())


@functools.cache
def _zones() -> tuple[str, ...]:
    return ("UTC", *sorted(zone for zone in zoneinfo.available_timezones() if zone != "UTC"))


ZONES = Zones()

# What a player may set with `set USERID PASSWORD name=value`: the values, the default first.
PREFERENCES = {
    # own: a picture from your side; red: from the first player's side; off: none; svg: from your
    # side, drawn in SVG (for a client that shows it: not Gmail or Outlook); list: the pieces in
    # words instead of any board (pbm.commands.mails.piecelist), for a screen reader
    "board": ("own", "red", "off", "svg", "list"),
    "notation": ("both", "coordinates", "wxf",      # the move list: coordinates, WXF, or both;
                 "chinese", "chinese-traditional", "korean"),   # or a style of rules.notation_styles
    "lang": tuple(LANGUAGES),                       # the language of the mails (pbm.i18n)
    "board_faces": ("hanja", "hangul"),             # Janggi's pieces in the picture of the board
    "autoleave": ("off", "on"),                     # on: a vacation day is spent instead of a time-out
    "digest": ("off", "daily"),                     # daily: a mail of the games waiting (pbm.commands.timing.digest)
    "calendar": ("on", "off"),                      # on: a deadline's iCalendar event in board mails
    "notes": ("private", "share"),                  # share: notes join a game's record once it ends
    "movetimes": ("off", "on"),                     # on: each move's time in the move list
    "tz": ZONES,                                    # the zone those times are in (an IANA name)
    "review": ("off", "on"),                        # on: an engine's review of each finished game (docs/review.md)
    "subscribed": ("on", "off"),                    # off: no subscribed mail (players.subscriptions)
}


def defaults() -> dict[str, str]:
    """Every preference at its default: a reader pbm does not know."""
    return {name: values[0] for name, values in PREFERENCES.items()}


def preferences(db: Database, user_id: str) -> dict[str, str]:
    """Every preference of the user, defaults filled in."""
    row = db.execute("SELECT preferences FROM users WHERE id = ?", [user_id]).fetchone()
    return stored_preferences(row[0] if row else "{}")


def stored_preferences(stored: str) -> dict[str, str]:
    """Every preference of a stored JSON text, defaults filled in (a copy: the caller's own)."""
    return dict(_parsed(stored))


@functools.lru_cache(maxsize=1024)
def _parsed(stored: str) -> dict[str, str]:
    """Readers share a few sets of preferences: a move mailed to a hundred observers parses each
    once, not a hundred times."""
    chosen = json.loads(stored)
    return {name: chosen.get(name, values[0]) for name, values in PREFERENCES.items()}


class Reader(NamedTuple):
    """What a game mail to a user needs of them: where it goes (None: a closed account), how they
    like it, and their reply tokens' epoch."""
    address: str | None
    preferences: dict[str, str]
    token_epoch: int


def readers(db: Database, user_ids: list[str]) -> dict[str, Reader]:
    """`Reader` of each user, in one query (a move mails every player and observer)."""
    marks = ",".join("?" * len(user_ids))
    found = {row[0]: reader(*row[1:]) for row in db.execute(
        f"SELECT u.id, a.address, u.preferences, u.token_epoch FROM users u LEFT JOIN addresses a "
        f"ON a.user_id = u.id AND a.position = 0 WHERE u.id IN ({marks})", user_ids)}
    return {user: found.get(user, reader(None, None, None)) for user in user_ids}


def reader(address: str | None, preferences: str | None, token_epoch: int | None) -> Reader:
    """A `Reader` from its columns (all None for a user who does not exist)."""
    return Reader(address, stored_preferences(preferences or "{}"), token_epoch or 0)


def set_preferences(db: Database, user_id: str, chosen: dict[str, str]) -> None:
    db.execute("UPDATE users SET preferences = ? WHERE id = ?",
               [json.dumps({**preferences(db, user_id), **chosen}, sort_keys=True), user_id])


def token_epoch(db: Database, user_id: str) -> int:
    row = db.execute("SELECT token_epoch FROM users WHERE id = ?", [user_id]).fetchone()
    return row[0] if row else 0


def set_addresses(db: Database, user_id: str, addresses: list[str]) -> None:
    """Replace the user's addresses; the first one is where their mail goes."""
    db.execute("DELETE FROM addresses WHERE user_id = ?", [user_id])
    unique = list(dict.fromkeys(a.lower() for a in addresses))
    db.conn.executemany("INSERT INTO addresses (address, user_id, position) VALUES (?, ?, ?)",
                        [(address, user_id, i) for i, address in enumerate(unique)])


def close(db: Database, user_id: str, now: datetime) -> None:
    """Sign off: the id stays taken (old games name it), the addresses and subscriptions go."""
    db.execute("UPDATE users SET closed_at = ? WHERE id = ?", [timestamp(now), user_id])
    db.execute("DELETE FROM addresses WHERE user_id = ?", [user_id])
    db.execute("DELETE FROM observers WHERE user_id = ?", [user_id])


def mail_address(db: Database, user_id: str) -> str | None:
    """Where the user's mail goes (None for a closed account)."""
    row = db.execute("SELECT address FROM addresses WHERE user_id = ? AND position = 0",
                     [user_id]).fetchone()
    return row[0] if row else None


def user_of_address(db: Database, address: str, among: tuple[str, ...] = ()) -> str | None:
    """The user the address belongs to, preferring one of `among` (an address may serve several)."""
    users = [row[0] for row in db.execute("SELECT user_id FROM addresses WHERE address = ? ORDER BY "
                                          "position, user_id", [address.lower()])]
    return next((u for u in users if u in among), users[0] if users else None)


def claimed(db: Database, user_id: str, address: str) -> tuple[User | None, bool]:
    """The user a command names, and whether `address` (its sender) is one of theirs: one query,
    as every command with a password asks both."""
    row = db.execute("SELECT id, password, closed_at, EXISTS (SELECT 1 FROM addresses a WHERE "
                     "a.address = ? AND a.user_id = users.id) FROM users WHERE id = ?",
                     [address.lower(), user_id.lower()]).fetchone()
    return (User(row[0], row[1], row[2] is not None), bool(row[3])) if row else (None, False)


def owns_address(db: Database, user_id: str, address: str) -> bool:
    return db.execute("SELECT 1 FROM addresses WHERE address = ? AND user_id = ?",
                      [address.lower(), user_id]).fetchone() is not None
