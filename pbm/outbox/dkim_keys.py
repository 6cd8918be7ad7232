"""DKIM keys: made (`pbm dkim new`), read for signing (pbm.outbox.signing), and their DNS records."""
from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from pbm.outbox.signing import KeyProblem, Key

RSA_BITS = 2048


def load(path: Path, selector: str) -> Key:
    """The key of `selector` at `path`, as dkimpy takes it (KeyProblem if it cannot be used)."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise KeyProblem(f"the DKIM key of selector {selector}, {path}, cannot be read: "
                         f"{getattr(e, 'strerror', None) or e}") from None
    if isinstance(key, ed25519.Ed25519PrivateKey):
        seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
        return Key(selector.encode(), b"ed25519-sha256", base64.b64encode(seed))
    if isinstance(key, rsa.RSAPrivateKey) and key.key_size >= RSA_BITS:
        return Key(selector.encode(), b"rsa-sha256", key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption()))
    raise KeyProblem(f"the DKIM key of selector {selector}, {path}, is neither Ed25519 nor RSA of "
                     f"{RSA_BITS} bits or more: make one with pbm dkim new {selector}")


def new_key(path: Path, ed25519_key: bool = False) -> None:
    """Make a private key at `path` (0600; FileExistsError if there is one: it may be published)."""
    key = ed25519.Ed25519PrivateKey.generate() if ed25519_key else rsa.generate_private_key(65537, RSA_BITS)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, pem)
    finally:
        os.close(fd)


def public_value(path: Path, selector: str = "") -> tuple[str, str]:
    """(k=, p=) of the DNS record of the private key at `path` (KeyProblem if it cannot be read)."""
    key = serialization.load_pem_private_key(_read(path, selector), password=None).public_key()
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "ed25519", base64.b64encode(key.public_bytes(serialization.Encoding.Raw,
                                                            serialization.PublicFormat.Raw)).decode()
    return "rsa", base64.b64encode(key.public_bytes(serialization.Encoding.DER,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo)).decode()


def _read(path: Path, selector: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise KeyProblem(f"the DKIM key of selector {selector}, {path}, cannot be read: "
                         f"{e.strerror}") from None


def dns_record(path: Path, selector: str, domain: str) -> str:
    """The TXT record to publish for the key at `path`, in zone-file form (strings of at most 255
    characters, as DNS wants)."""
    kind, public = public_value(path, selector)
    text = f"v=DKIM1; k={kind}; p={public}"
    parts = " ".join(f'"{text[i:i + 255]}"' for i in range(0, len(text), 255))
    return f"{selector}._domainkey.{domain}. IN TXT ( {parts} )"
