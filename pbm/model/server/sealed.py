"""The raw bytes of a failed message, sealed under the server secret.

A message that failed with an internal error is kept so that `pbm inbound retry` can run it once the
fault is fixed, and its commands may hold passwords: what the database keeps in plain text is the
redacted form (like every stored message), and the raw bytes only encrypted, with AES-GCM under a
key derived from the server secret by HKDF (both from `cryptography`).  A copy of the database
alone, a backup or a replica, then yields no password.

`cryptography` is imported when a message is sealed or unsealed, not with this module: every
`pbm deliver` loads the intake, and a failure is rare (its import is a tenth of a process's start).
"""
from __future__ import annotations

import os

_INFO = b"pbm inbound sealed v1"
_NONCE = 12


def _key(secret: bytes):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret))


def seal(secret: bytes, raw: bytes, inbound_key: str) -> bytes:
    """`raw` encrypted and authenticated, bound to the message's dedup key."""
    nonce = os.urandom(_NONCE)
    return nonce + _key(secret).encrypt(nonce, raw, inbound_key.encode())


def unseal(secret: bytes, sealed: bytes, inbound_key: str) -> bytes:
    """The raw bytes again; cryptography's InvalidTag if the secret or the data is not the one."""
    return _key(secret).decrypt(sealed[:_NONCE], sealed[_NONCE:], inbound_key.encode())
