"""Accounts: user ids, the mail addresses that belong to them, and salted scrypt password hashes.

A password is checked on almost every command, so its hash cost is a trade-off between an attacker
holding a stolen database and the server's latency: scrypt with N=2**14, r=8, p=1 (16 MiB, the
classic interactive-login parameters).  The parameters are stored with each hash, so they can be
raised later without invalidating old hashes.  A long-running `pbm serve` remembers successful
checks for a while (as an HMAC under a per-process random key, never the password itself), so a
player sending many commands pays for scrypt once.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

import sqlite_utils

from pbm.store import timestamp

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 14, 8, 1
MAX_ADDRESSES = 5

_USER_ID = re.compile(r"[a-z][a-z0-9_]{1,15}")
_ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"]+@[a-z0-9-]+(\.[a-z0-9-]+)+")
# Words that commands read in the place of a user id, or that would read as a side or a game.
RESERVED = frozenset("""active inactive next all draw help multiple list signup signoff change
    red black green white cho han postmaster mailer_daemon
    xiangqi janggi padwarqi giqi""".split())


@dataclass(frozen=True)
class User:
    id: str
    password: str       # the stored hash
    closed: bool


# --- what is acceptable ------------------------------------------------------------------------------

def user_id_problem(user_id: str) -> str | None:
    """Why `user_id` cannot be a new user id, or None."""
    if not _USER_ID.fullmatch(user_id.lower()):
        return ("a user id is 2 to 16 letters, digits or underscores, starting with a letter "
                "(for example alice or bob_2)")
    if user_id.lower() in RESERVED:
        return f"{user_id.lower()} is a word the commands use, so it cannot be a user id"
    return None


def password_problem(password: str, user_id: str) -> str | None:
    """Why `password` cannot be used (without quoting it: the answer goes by mail), or None."""
    if not 4 <= len(password) <= 64:
        return "a password is 4 to 64 characters long, without spaces"
    if password.startswith("-") or password == "**":
        return "a password may not start with '-' or be '**': commands read those as parameters"
    if not password.isprintable():
        return "a password may not contain control characters"
    if password.lower() == user_id.lower():
        return "the password may not be the same as the user id"
    return None


def address_problem(address: str) -> str | None:
    if len(address) > 254 or not _ADDRESS.fullmatch(address.lower()):
        return f"{address} is not a mail address (write it as name@example.org, without <>)"
    return None


# --- passwords ---------------------------------------------------------------------------------------

_PROCESS_KEY = os.urandom(32)
_verified: OrderedDict[str, bytes] = OrderedDict()     # stored hash -> HMAC of the password
_verified_lock = threading.Lock()                      # checks run in several threads of pbm serve
_VERIFIED_MAX = 10_000


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    if remembered(password, stored):
        return True
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r),
                                p=int(p), dklen=len(expected))
    except ValueError:
        return False
    if scheme != "scrypt" or not hmac.compare_digest(actual, expected):
        return False
    remember_verified(password, stored)
    return True


def remember_verified(password: str, stored: str) -> None:
    """Remember that `password` is right for the hash `stored`: checked with scrypt here, or in
    `pbm serve` by the SMTP process that passed the message on (pbm.smtp_listener)."""
    with _verified_lock:
        _verified[stored] = _mac(password)
        if len(_verified) > _VERIFIED_MAX:
            _verified.popitem(last=False)


def remembered(password: str, stored: str) -> bool:
    """Whether `password` was found right for the hash `stored` before: no scrypt, microseconds."""
    with _verified_lock:
        known = _verified.get(stored)
        if known is None or not hmac.compare_digest(known, _mac(password)):
            return False
        _verified.move_to_end(stored)
        return True


def _mac(password: str) -> bytes:
    return hmac.new(_PROCESS_KEY, password.encode(), hashlib.sha256).digest()


# --- storage -----------------------------------------------------------------------------------------

def get(db: sqlite_utils.Database, user_id: str) -> User | None:
    row = db.execute("SELECT id, password, closed_at FROM users WHERE id = ?",
                     [user_id.lower()]).fetchone()
    return User(row[0], row[1], row[2] is not None) if row else None


def create(db: sqlite_utils.Database, user_id: str, password: str, addresses: list[str],
           now: datetime) -> None:
    db.execute("INSERT INTO users (id, password, created_at) VALUES (?, ?, ?)",
               [user_id, hash_password(password), timestamp(now)])
    set_addresses(db, user_id, addresses)


def set_password(db: sqlite_utils.Database, user_id: str, password: str) -> None:
    db.execute("UPDATE users SET password = ? WHERE id = ?", [hash_password(password), user_id])


def set_addresses(db: sqlite_utils.Database, user_id: str, addresses: list[str]) -> None:
    """Replace the user's addresses; the first one is where their mail goes."""
    db.execute("DELETE FROM addresses WHERE user_id = ?", [user_id])
    unique = list(dict.fromkeys(a.lower() for a in addresses))
    db.conn.executemany("INSERT INTO addresses (address, user_id, position) VALUES (?, ?, ?)",
                        [(address, user_id, i) for i, address in enumerate(unique)])


def close(db: sqlite_utils.Database, user_id: str, now: datetime) -> None:
    """Sign off: the id stays taken (old games name it), the addresses and subscriptions go."""
    db.execute("UPDATE users SET closed_at = ? WHERE id = ?", [timestamp(now), user_id])
    db.execute("DELETE FROM addresses WHERE user_id = ?", [user_id])
    db.execute("DELETE FROM observers WHERE user_id = ?", [user_id])


def mail_address(db: sqlite_utils.Database, user_id: str) -> str | None:
    """Where the user's mail goes (None for a closed account)."""
    row = db.execute("SELECT address FROM addresses WHERE user_id = ? AND position = 0",
                     [user_id]).fetchone()
    return row[0] if row else None


def owns_address(db: sqlite_utils.Database, user_id: str, address: str) -> bool:
    return db.execute("SELECT 1 FROM addresses WHERE address = ? AND user_id = ?",
                      [address.lower(), user_id]).fetchone() is not None
