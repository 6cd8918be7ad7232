"""Reply-To tokens: a player answers a game mail with just the move, no user id or password.

Every game mail to a player carries `Reply-To: pbm+xiangqi-101-alice-k3f9q2ab@host`.  The last part
is an HMAC of the rest under the server secret, so only mail the server sent to that player (or
that the player forwarded) holds a working token; forging one means guessing 40 bits by mail.
Tokens do not expire: a token for a finished game is still genuine, and the command layer answers
"the game is over" rather than "bad token".  They are revoked, though: rotating the server secret
revokes all of them, and a user's password change revokes theirs -- the MAC also covers the user's
token epoch (pbm.model.players.accounts), which a password change increments.  Epoch 0 is left out of the MAC,
so tokens made before epochs existed still work.
"""
from __future__ import annotations

import base64
import hmac
import re
from collections.abc import Callable

MAC_LENGTH = 8      # base32 characters = 40 bits

_TOKEN = re.compile(r"^([a-z][a-z0-9]*)-(\d+)-([a-z][a-z0-9_]*)-([a-z2-7]+)$")


def _mac(secret: bytes, text: str, length: int = MAC_LENGTH) -> str:
    digest = hmac.digest(secret, text.encode(), "sha256")    # one C call: a mail per observer makes one
    return base64.b32encode(digest).decode().lower()[:length]


def make(secret: bytes, variant: str, board: int, user: str, epoch: int = 0) -> str:
    """The token of `user` for board `board` of `variant`."""
    text = f"{variant}-{board}-{user}"
    return f"{text}-{_mac(secret, _signed(text, epoch))}"


def check(secret: bytes, token: str,
          epoch_of: Callable[[str], int] = lambda user: 0) -> tuple[str, int, str] | None:
    """(variant, board, user) for a genuine token of the user's current epoch, else None.

    Case-insensitive, because some mail systems change the case of local parts.
    """
    found = _TOKEN.match(token.strip().lower())
    if not found:
        return None
    variant, board, user, mac = found.groups()
    if not hmac.compare_digest(mac, _mac(secret, _signed(f"{variant}-{board}-{user}", epoch_of(user)))):
        return None
    return variant, int(board), user


def claimed(token: str) -> tuple[str, int, str] | None:
    """(variant, board, user) that a token names, genuine or not: to say which game a reply with
    a broken token was about, never to act on it."""
    found = _TOKEN.match(token.strip().lower())
    return (found.group(1), int(found.group(2)), found.group(3)) if found else None


def _signed(text: str, epoch: int) -> str:
    return f"{text}-{epoch}" if epoch else text


def reply_address(server_address: str, token: str) -> str:
    """`local+TOKEN@domain` for the server's `local@domain`."""
    local, _, domain = server_address.rpartition("@")
    return f"{local}+{token}@{domain}"


# --- game pages ----------------------------------------------------------------------------------------
# A reader's link to a game's web page (pbm.web) ends in `xiangqi-101-alice-MAC`: 26 base32 characters
# (130 bits) of an HMAC under the server secret over the game, the reader and their token epoch, so
# that a password change revokes the links of the old password with its reply addresses.  A page
# cannot be brute-forced by mail's slowness, hence the longer MAC.

PAGE_MAC_LENGTH = 26
_PAGE = re.compile(r"^([a-z][a-z0-9]*)-(\d+)-([a-z][a-z0-9_]*)-([a-z2-7]{26})$")


def page(secret: bytes, variant: str, board: int, user: str, epoch: int) -> str:
    """The last part of `user`'s link to the page of board `board` of `variant`."""
    text = f"{variant}-{board}-{user}"
    return f"{text}-{_page_mac(secret, text, epoch)}"


def page_url(base_url: str, secret: bytes, variant: str, board: int, user: str, epoch: int) -> str:
    """`user`'s link to the page of a game under the pages' `base_url` ("": the server has no pages)."""
    return f"{base_url.rstrip('/')}/g/{page(secret, variant, board, user, epoch)}" if base_url else ""


def public_page_url(base_url: str, variant: str, board: int) -> str:
    """The link to a game's public page (pbm.web.pages.public), the same for everyone ("": no pages)."""
    return f"{base_url.rstrip('/')}/p/{variant}-{board}" if base_url else ""


def check_page(secret: bytes, token: str,
               epoch_of: Callable[[str], int | None]) -> tuple[str, int, str] | None:
    """(variant, board, user) of a genuine page link of the user's current epoch (`epoch_of`: None for
    no such user), else None."""
    found = _PAGE.match(token)
    if not found:
        return None
    variant, board, user, mac = found.groups()
    epoch = epoch_of(user)
    if epoch is None or not hmac.compare_digest(mac, _page_mac(secret, f"{variant}-{board}-{user}", epoch)):
        return None
    return variant, int(board), user


def _page_mac(secret: bytes, text: str, epoch: int) -> str:
    return _mac(secret, f"page-{text}-{epoch}", PAGE_MAC_LENGTH)


# Confirmation tokens: `pbm+confirm-alice-k3f9q2ab@host`, the Reply-To of the mail asking an address
# given for alice to confirm it.  The MAC covers the address, so only a reply from it confirms.
_CONFIRMATION = re.compile(r"^confirm-([a-z][a-z0-9_]*)-([a-z2-7]+)$")


def confirmation(secret: bytes, user: str, address: str) -> str:
    """The token with which `address` confirms that it is `user`'s."""
    return f"confirm-{user}-{_mac(secret, f'confirm-{user}-{address.lower()}')}"


def confirming(token: str) -> bool:
    """Whether a token is a confirmation's (genuine or not)."""
    return _CONFIRMATION.match(token.strip().lower()) is not None


def confirmed_user(secret: bytes, token: str, sender: str) -> str | None:
    """The user whose address `sender` confirms with `token`, if the token is that address's."""
    found = _CONFIRMATION.match(token.strip().lower())
    if not found:
        return None
    user, mac = found.groups()
    return user if hmac.compare_digest(mac, _mac(secret, f"confirm-{user}-{sender.lower()}")) else None


# Unsubscribe tokens (RFC 8058): `unsub-subscribed-alice-3-MAC` ends the List-Unsubscribe URI of a
# subscribed mail to alice, and the local part of its mailto:.  The MAC (100 bits: the URI is open
# to guessing at web speed; longer, and `pbm+TOKEN` would pass the 64 characters of a local part)
# covers the stream, the reader and the number of times the reader
# unsubscribed before (pbm.model.players.subscriptions.generation): once used, a token is spent, so
# a token replayed after the reader turned the stream back on changes nothing.
UNSUBSCRIBE_MAC_LENGTH = 20
_UNSUBSCRIBE = re.compile(r"^unsub-([a-z]+)-([a-z][a-z0-9_]*)-(\d+)-([a-z2-7]{20})$")


def unsubscribe(secret: bytes, stream: str, user: str, generation: int) -> str:
    """The token that turns `stream` off for `user`, until it is used."""
    text = f"unsub-{stream}-{user}-{generation}"
    return f"{text}-{_mac(secret, text, UNSUBSCRIBE_MAC_LENGTH)}"


def unsubscribing(token: str) -> bool:
    """Whether a token is an unsubscribe token (genuine or not)."""
    return _UNSUBSCRIBE.match(token.strip().lower()) is not None


def check_unsubscribe(secret: bytes, token: str) -> tuple[str, str, int] | None:
    """(stream, user, generation) of a genuine unsubscribe token, else None."""
    found = _UNSUBSCRIBE.match(token.strip().lower())
    if not found:
        return None
    stream, user, generation, mac = found.groups()
    text = f"unsub-{stream}-{user}-{generation}"
    return (stream, user, int(generation)) if hmac.compare_digest(
        mac, _mac(secret, text, UNSUBSCRIBE_MAC_LENGTH)) else None
