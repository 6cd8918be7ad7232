"""DKIM: every mail pbm sends is signed as it is handed over (pbm.outbox.sending), by dkimpy.

`[outbound] dkim_selector` and its key sign with rsa-sha256 (2048 bits) or ed25519-sha256, as the key
is; `dkim_ed25519_selector` adds an ed25519-sha256 signature beside an RSA one (RFC 8463: a receiver
that knows Ed25519 checks that one, the others the RSA one).  The signing domain is `dkim_domain`,
else the From's, so that DMARC finds it aligned.  Relaxed canonicalization of header and body, so
that a relay that refolds a header or changes line ends keeps the signature good.  `pbm dkim new`
makes a key (`new_key`) and prints the DNS TXT record to publish (`dns_record`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pbm import Later
from pbm.config import Config

# What a signature covers: the headers a reader sees and the ones RFC 8058 wants signed; each named
# one more time than it appears would forbid adding it, but a relay may add a Reply-To or a second
# Content-Type to nothing pbm sent, so no header is signed twice.
SIGNED = (b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to", b"references",
          b"reply-to", b"auto-submitted", b"mime-version", b"content-type", b"list-unsubscribe",
          b"list-unsubscribe-post", b"feedback-id")
# The keys are read with the cryptography package (pbm.outbox.dkim_keys), loaded where keys are
# configured: a `pbm deliver` whose replies go unsigned loads none of it.
LOAD_KEY = Later("pbm.outbox.dkim_keys:load")


class KeyProblem(Exception):
    """A configured DKIM key cannot be used: the message says which and why."""


@dataclass(frozen=True)
class Key:
    """One configured DKIM key, read."""
    selector: bytes
    algorithm: bytes                    # b"rsa-sha256" or b"ed25519-sha256"
    private: bytes                      # as dkimpy takes it: PEM (RSA), base64 of the seed (Ed25519)


class Signer:
    """The signatures of one configuration: its keys, read once."""

    def __init__(self, config: Config):
        self.domain = domain(config).encode()
        self.keys = [LOAD_KEY(path, selector) for selector, path in configured(config)]

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
