"""`pbm doctor --dns`: the DNS records the big mailbox providers look up before they take pbm's mail
(docs/operating.md, "Getting into the inbox"), looked up with dnspython.

The SPF record of the envelope senders' domain, the DKIM key of each selector (and that it is the
public half of the configured private key), the DMARC record of the From's domain (and that the
signature's domain is aligned with it), the MX of both domains, and the PTR of `[outbound]
sending_ip` (confirmed forward).  What is missing or wrong is said with the record to publish.
`--nameserver HOST[:PORT]` asks that server instead of the system's resolvers.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator

import dns.exception
import dns.resolver
import dns.reversename

from pbm.config import Config
from pbm.mail.messages import TRANSACTIONAL
from pbm.outbox import dkim_keys, signing
from pbm.outbox.streams import envelope_sender

NOTE = "note: "                         # as pbm.upkeep.doctor's notes


class Unanswered(Exception):
    """DNS could not be asked (no server answered): the checks cannot say anything."""


def check(nameserver: str | None = None) -> Callable[[Config, object], Iterator[str]]:
    """The `dns` check of pbm doctor, asking `nameserver` (HOST or HOST:PORT) if given."""
    def dns_records(config: Config, user: object) -> Iterator[str]:
        lookup = _lookup(nameserver)
        try:
            yield from _records(config, lookup)
        except Unanswered as e:
            yield f"DNS did not answer ({e}); run pbm doctor --dns where DNS can be asked"
    return dns_records


Lookup = Callable[[str, str], list[str]]


def _lookup(nameserver: str | None) -> Lookup:
    resolver = dns.resolver.Resolver(configure=nameserver is None)
    if nameserver is not None:
        host, _sep, port = nameserver.rpartition(":") if nameserver.count(":") == 1 else (nameserver, "", "")
        resolver.nameservers = [host]
        resolver.port = int(port) if port else 53
    resolver.lifetime = 5.0

    def lookup(name: str, kind: str) -> list[str]:
        """The answers of type `kind` at `name` (TXT strings joined), [] if there are none."""
        try:
            answer = resolver.resolve(name, kind, search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        except dns.exception.Timeout:
            raise Unanswered(f"{kind} {name}: no answer within {resolver.lifetime:g} seconds") from None
        except dns.resolver.NoNameservers:
            raise Unanswered(f"{kind} {name}: every server refused or failed") from None
        if kind == "TXT":
            return [b"".join(record.strings).decode("utf-8", "replace") for record in answer]
        return [record.to_text() for record in answer]
    return lookup


def _records(config: Config, lookup: Lookup) -> Iterator[str]:
    from_domain = config.server.address.rpartition("@")[2].lower()
    envelope_domain = envelope_sender(config, TRANSACTIONAL).rpartition("@")[2].lower()
    ip = config.outbound.sending_ip
    spf = [text for text in lookup(envelope_domain, "TXT") if text.lower().startswith("v=spf1")]
    mechanism = f"ip{ipaddress.ip_address(ip).version}:{ip}" if ip else "ip4:YOUR.SENDING.ADDRESS"
    if not spf:
        yield (f"no SPF record for {envelope_domain} (the envelope senders' domain): publish "
               f"{envelope_domain}. IN TXT \"v=spf1 {mechanism} -all\"")
    elif len(spf) > 1:
        yield f"{envelope_domain} has {len(spf)} SPF records, which makes SPF fail: keep one ({spf[0]})"
    else:
        yield f"{NOTE}SPF of {envelope_domain}: {spf[0]}"
    yield from _dkim(config, lookup, from_domain)
    dmarc = [text for text in lookup(f"_dmarc.{from_domain}", "TXT") if text.lower().startswith("v=dmarc1")]
    if not dmarc:
        yield (f"no DMARC record for {from_domain}: publish _dmarc.{from_domain}. IN TXT "
               f"\"v=DMARC1; p=none; rua=mailto:postmaster@{from_domain}\" (then p=quarantine, once "
               f"the reports show only your own mail)")
    else:
        yield f"{NOTE}DMARC of {from_domain}: {dmarc[0]}"
    for domain in dict.fromkeys((from_domain, envelope_domain)):
        if not lookup(domain, "MX"):
            yield (f"no MX record for {domain}, so replies and bounces cannot reach it: publish "
                   f"{domain}. IN MX 10 mail.{domain}. (the host that takes mail for pbm)")
    yield from _ptr(ip, lookup)


def _dkim(config: Config, lookup: Lookup, from_domain: str) -> Iterator[str]:
    domain = signing.domain(config).lower()
    if not config.outbound.dkim_selector:
        yield ("mail is not DKIM-signed: make a key with pbm dkim new SELECTOR, set [outbound] "
               "dkim_selector = \"SELECTOR\" and publish the record it prints")
        return
    if not (domain == from_domain or domain.endswith(f".{from_domain}") or from_domain.endswith(f".{domain}")):
        yield (f"[outbound] dkim_domain {domain} is not aligned with the From's domain {from_domain}, so "
               f"DMARC does not count the signature: set dkim_domain = \"{from_domain}\"")
    for selector, path in signing.configured(config):
        try:
            kind, public = dkim_keys.public_value(path, selector)
            record = dkim_keys.dns_record(path, selector, domain)
        except (signing.KeyProblem, ValueError, TypeError) as e:
            yield f"{e}: make one with pbm dkim new {selector}"
            continue
        name = f"{selector}._domainkey.{domain}"
        published = [_tags(text) for text in lookup(name, "TXT")]
        keys = [tags.get("p", "") for tags in published if "p" in tags]
        if not keys:
            yield f"no DKIM key at {name}: publish {record}"
        elif public not in keys:
            yield (f"the DKIM key published at {name} does not match the private key {path}: mail "
                   f"signed with it fails; publish {record}")
        else:
            yield f"{NOTE}DKIM key at {name} matches {path} ({kind})"


def _tags(text: str) -> dict[str, str]:
    """`v=DKIM1; k=rsa; p=...` as a dict, whitespace inside a value removed (RFC 6376 3.2)."""
    tags = {}
    for part in text.split(";"):
        name, sep, value = part.partition("=")
        if sep:
            tags[name.strip().lower()] = "".join(value.split())
    return tags


def _ptr(ip: str, lookup: Lookup) -> Iterator[str]:
    if not ip:
        yield f"{NOTE}set [outbound] sending_ip (the address mail leaves from) to check its PTR record"
        return
    names = [name.rstrip(".") for name in lookup(dns.reversename.from_address(ip).to_text(), "PTR")]
    if not names:
        yield (f"no PTR record for {ip}: ask whoever gave you the address to point it at the "
               f"mail host's name (whose A record is {ip})")
        return
    kind = "A" if ipaddress.ip_address(ip).version == 4 else "AAAA"
    if not any(ipaddress.ip_address(ip) == ipaddress.ip_address(found)
               for name in names for found in lookup(name, kind)):
        yield (f"the PTR of {ip} names {names[0]}, whose {kind} record is not {ip}: publish "
               f"{names[0]}. IN {kind} {ip}")
    else:
        yield f"{NOTE}PTR of {ip}: {names[0]}"
