"""Whether the MTA vouches for a message's From address (RFC 8601 Authentication-Results).

Anyone can write any From; the receiving MTA can check it (SPF, DKIM, DMARC) and says what it found
in an `Authentication-Results` header naming itself (its authserv-id).  Only the header of the MTA
named in `[security] authserv_id` is read -- any other such header may have been written by the
sender, and RFC 8601 says to ignore it -- and the topmost of them, the one that MTA added on top
of whatever the sender wrote (RFC 8601 section 5 asks it to remove copies of its own id that arrive
from outside; OpenDMARC does not, so pbm never looks further down).  That topmost one decides even
when it cannot be parsed: then it vouches for nothing.  Parsed with `authres`.

Vouched for: that MTA's `dmarc=pass`; where it gives no DMARC verdict, a DKIM pass whose signing
domain (header.d) or an SPF pass whose envelope domain (smtp.mailfrom) is aligned with the From's
domain (relaxed alignment: one is the other or a subdomain of it).
"""
from __future__ import annotations

import re
from email.message import Message

import authres

from pbm.mail import reading


def vouched(msg: Message, sender: str, authserv_id: str) -> bool:
    """Whether the MTA named `authserv_id` vouches for `sender` (the From address) of `msg`."""
    domain = sender.rpartition("@")[2].lower()
    for value in msg.get_all("Authentication-Results") or []:
        text = reading.decode_words(str(value))
        if _AUTHSERV_ID.match(text)[1].lower() != authserv_id.lower():
            continue
        try:
            header = authres.AuthenticationResultsHeader.parse("Authentication-Results: " + text)
        except Exception:           # not parseable: it vouches for nothing, and ends the search
            return False
        return (header.authserv_id or "").lower() == authserv_id.lower() and _passes(header.results, domain)
    return False


_AUTHSERV_ID = re.compile(r"\s*(?:\([^)]*\)\s*)*([^;\s]*)")    # the first word, after any comment


def _passes(results: list, domain: str) -> bool:
    dmarc = [r for r in results if r.method == "dmarc"]
    if dmarc:
        return any(r.result == "pass" and _aligned(_property(r, "header", "from"), domain, exact=True)
                   for r in dmarc)
    return any(r.result == "pass" and (
        (r.method == "dkim" and _aligned(_property(r, "header", "d"), domain)) or
        (r.method == "spf" and _aligned(_property(r, "smtp", "mailfrom").rpartition("@")[2], domain)))
        for r in results)


def _property(result, kind: str, name: str) -> str:
    return next((str(p.value).lower() for p in result.properties if p.type == kind and p.name == name), "")


def _aligned(found: str, domain: str, exact: bool = False) -> bool:
    """Relaxed alignment of `found` with the From's `domain` (for DMARC's header.from, which names
    the From's domain itself: equal, or absent when the MTA leaves it out)."""
    if exact:
        return found in ("", domain)
    return bool(found) and (found == domain or domain.endswith("." + found) or found.endswith("." + domain))
