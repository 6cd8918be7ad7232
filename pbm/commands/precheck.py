"""The passwords of a decoded message's commands, checked before the write transaction.

A message's path reads one way: pbm.mail decodes and judges it, this module checks its passwords
(reading the database only), then pbm.commands.dispatch runs its commands inside the transaction.
"""
from __future__ import annotations

from datetime import datetime, timezone

from pbm.commands import parse, registry
from pbm.commands.base import CommandError
from pbm.model.players import accounts
from pbm.model.db import Database


def precheck_passwords(db: Database, subject: str, body: str, *, quick: bool = False,
                       secret: bytes | None = None, now: datetime | None = None,
                       fresh: list[tuple[str, str]] | None = None) -> list[tuple[str, str, bool]] | None:
    """Check the passwords of a message's commands ahead of `handle`, outside the write lock.

    scrypt costs tens of milliseconds by design; paid inside the write transaction it would hold up
    every other message.  This only reads, changes nothing and raises nothing for bad input; what
    it finds is remembered (pbm.model.players.accounts), right or wrong, so `handle` checks again for free.
    Returns the (password, stored hash, right) triples, for another process to remember.  With
    `quick`, it returns None instead of running scrypt (for a password not checked before), so
    that the caller can check where scrypt's time holds nobody up.  With the server's `secret`, a
    password some process found right a moment ago (pbm.model.players.accounts.checked_recently) is taken as
    right without scrypt; `fresh` gets the (password, stored hash) that scrypt found right here, for
    the next processes (pbm.model.players.accounts.note_checked).
    """
    now = now or datetime.now(timezone.utc)
    checked = []
    subject = parse.strip_reply_prefix(subject)
    if subject.replace("*", "").strip() == "":
        subject, _, body = body.strip().partition("\n")
    lines = body.splitlines()[:parse.MAX_MULTIPLE] if subject.lower().split()[:1] == ["multiple"] else [subject]
    for line in lines:
        req = parse.split(line)
        try:
            command = registry.resolve(req)
        except CommandError:
            continue
        positions = command.password_positions(req.args)
        if not command.checks_password or not positions:
            continue
        position = positions[0]
        if position < len(req.args):
            user = accounts.get(db, req.args[position - 1])
            if user is None:
                continue
            password = req.args[position]
            known = accounts.remembered(password, user.password)
            if known is None and secret is not None \
                    and accounts.checked_recently(db, secret, password, user.password, now):
                accounts.remember(password, user.password, True)
                known = True
            if quick and known is None:
                return None
            right = accounts.verify_password(password, user.password)
            if right and known is None and fresh is not None:
                fresh.append((password, user.password))
            checked.append((password, user.password, right))
    return checked
