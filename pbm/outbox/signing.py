"""DKIM: every mail pbm sends is signed as it is handed over (pbm.outbox.sending), by dkimpy.

`[outbound] dkim_selector` and its key sign with rsa-sha256 (2048 bits) or ed25519-sha256, as the key
is; `dkim_ed25519_selector` adds an ed25519-sha256 signature beside an RSA one (RFC 8463: a receiver
that knows Ed25519 checks that one, the others the RSA one).  The signing domain is `dkim_domain`,
else the From's, so that DMARC finds it aligned.  Relaxed canonicalization of header and body, so
that a relay that refolds a header or changes line ends keeps the signature good.  `pbm dkim new`
makes a key (`new_key`) and prints the DNS TXT record to publish (`dns_record`).
"""
from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from pbm.config import Config

# What a signature covers: the headers a reader sees and the ones RFC 8058 wants signed; each named
# one more time than it appears would forbid adding it, but a relay may add a Reply-To or a second
# Content-Type to nothing pbm sent, so no header is signed twice.
SIGNED = (b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to", b"references",
          b"reply-to", b"auto-submitted", b"mime-version", b"content-type", b"list-unsubscribe",
          b"list-unsubscribe-post", b"feedback-id")
RSA_BITS = 2048


class KeyProblem(Exception):
    """A configured DKIM key cannot be used: the message says which and why."""


@dataclass(frozen=True)
class _Key:
    selector: bytes
    algorithm: bytes                    # b"rsa-sha256" or b"ed25519-sha256"
    private: bytes                      # as dkimpy takes it: PEM (RSA), base64 of the seed (Ed25519)


class Signer:
    """The signatures of one configuration: its keys, read once."""

    def __init__(self, config: Config):
        self.domain = domain(config).encode()
        self.keys = [_load(path, selector) for selector, path in configured(config)]

    def sign(self, raw: bytes) -> bytes:
        """`raw` with a DKIM-Signature for each key in front (as it is without keys)."""
        if not self.keys:
            return raw
        import dkim      # 70 ms: only where mail is signed, not in every `pbm deliver` that sends none
        headers = b""
        for key in self.keys:
            headers += dkim.sign(raw, key.selector, self.domain, key.private,
                                 canonicalize=(b"relaxed", b"relaxed"), signature_algorithm=key.algorithm,
                                 include_headers=_present(raw))
        return headers + raw


@cache
def signer(config: Config) -> Signer:
    """The configuration's signer, its keys read at the first mail sent (KeyProblem if they cannot be)."""
    return Signer(config)


def _present(raw: bytes) -> list[bytes]:
    """The names of SIGNED that the message's header has."""
    head = raw.split(b"\r\n\r\n", 1)[0].lower()
    return [name for name in SIGNED if head.startswith(name + b":") or b"\r\n" + name + b":" in head]


def domain(config: Config) -> str:
    """The signing domain: `[outbound] dkim_domain`, else the From's."""
    return config.outbound.dkim_domain or config.server.address.rpartition("@")[2]


def configured(config: Config) -> list[tuple[str, Path]]:
    """(selector, key file) of each signature configured: the RSA (or Ed25519) one, the Ed25519 one."""
    out = config.outbound
    return [(selector, key_path(config, selector, path))
            for selector, path in ((out.dkim_selector, out.dkim_key),
                                   (out.dkim_ed25519_selector, out.dkim_ed25519_key)) if selector]


def key_path(config: Config, selector: str, path: Path | None) -> Path:
    """Where the key of `selector` is: as configured, else data_dir/dkim/SELECTOR.pem."""
    return path or config.data_dir / "dkim" / f"{selector}.pem"


def _load(path: Path, selector: str) -> _Key:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise KeyProblem(f"the DKIM key of selector {selector}, {path}, cannot be read: "
                         f"{getattr(e, 'strerror', None) or e}") from None
    if isinstance(key, ed25519.Ed25519PrivateKey):
        seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
        return _Key(selector.encode(), b"ed25519-sha256", base64.b64encode(seed))
    if isinstance(key, rsa.RSAPrivateKey) and key.key_size >= RSA_BITS:
        return _Key(selector.encode(), b"rsa-sha256", key.private_bytes(
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
