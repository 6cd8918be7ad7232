"""Senders checked by the MTA (RFC 8601), through real `pbm deliver` processes: only the configured
MTA's Authentication-Results header is trusted; without its pass a From grants nothing."""
from __future__ import annotations

from email.message import EmailMessage

import pytest
from support.postoffice import plain
from support.processes import PbmEnv

from pbm.mail import authresults, reading

MX = "mx.pbm.test"
PASS = f"{MX}; spf=pass smtp.mailfrom=bob@example.org; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
FORGED = "mx.evil.example; dmarc=pass header.from=example.org"
FAIL = f"{MX}; spf=fail smtp.mailfrom=bob@example.org; dmarc=fail header.from=example.org"


def vouched(*headers: str, sender: str = "bob@example.org") -> bool:
    msg = EmailMessage()
    for value in headers:
        msg["Authentication-Results"] = value
    return authresults.vouched(reading.parse(bytes(msg)), sender, MX)


def test_only_the_configured_mtas_topmost_verdict_counts():
    assert vouched(PASS)
    assert not vouched(FORGED) and not vouched() and not vouched(FAIL)
    assert not vouched(FAIL, PASS)                  # the MTA's own header is the topmost one
    assert not vouched(PASS, sender="bob@other.example")            # not aligned with the From
    assert vouched(f"{MX}; dkim=pass header.d=example.org")         # no DMARC verdict: aligned DKIM
    assert vouched(f"{MX}; spf=pass smtp.mailfrom=x@mail.example.org")  # ... or aligned SPF
    assert not vouched(f"{MX}; dkim=pass header.d=evil.example")


def test_a_forged_header_under_the_mta_s_own_id_counts_only_where_the_mta_wrote_none():
    """RFC 8601 section 5: the MTA adds its header on top of what the sender wrote, and should
    remove copies of its own id (OpenDMARC does not); pbm reads the topmost one with that id only.
    Where the MTA wrote none (a milter down, with milter_default_action = accept), a forged one is
    all there is: docs/operating.md says tempfail so that no mail arrives unchecked."""
    forged_pass = f"{MX}; dmarc=pass header.from=example.org; spf=pass smtp.mailfrom=bob@example.org"
    assert not vouched(f"{MX}; dmarc=none (p=none dis=none) header.from=example.org", forged_pass)
    assert not vouched(f"{MX.upper()}; dmarc=fail header.from=example.org", forged_pass)   # ids: any case
    unparseable = f"{MX}; dmarc=pass header.from=example.org; dkim=pass (no closing"
    assert not vouched(unparseable, PASS)
    assert not vouched(f"(comment) {MX}; dmarc=fail header.from=example.org", PASS)
    assert vouched(FORGED.replace("dmarc=pass", "dmarc=fail"), PASS)    # another id above: not the MTA's
    assert vouched(forged_pass)                                          # nothing above it: trusted


@pytest.fixture
def game(pbm_env: PbmEnv) -> PbmEnv:
    pbm_env.configure(security={"authserv_id": MX, "require_dmarc": True})
    for user, password in (("alice", "Sw0rdfish"), ("bob", "Hunter22")):
        pbm_env.mail(f"signup {user} {password}", sender=f"{user}@example.org",
                     Authentication_Results=PASS.replace("bob@", f"{user}@"))
    pbm_env.mail("xiangqi challenge alice bob",
                 Authentication_Results=PASS.replace("bob@", "alice@"))
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3", Authentication_Results=PASS.replace("bob@", "alice@"))
    return pbm_env


def bobs_turn_mail(env: PbmEnv) -> EmailMessage:
    return [m for m in env.replies() if str(m["To"]) == "bob@example.org" and m["Reply-To"]][-1]


@pytest.mark.parametrize("header", [PASS])
def test_a_trusted_dmarc_pass_keeps_the_reply_token_working(game: PbmEnv, header: str) -> None:
    turn = bobs_turn_mail(game)
    reply = game.message("Re: " + str(turn["Subject"]), "h10g8\n", sender="bob@example.org",
                         to=str(turn["Reply-To"]), Authentication_Results=header)
    assert game.deliver(reply).returncode == 0
    assert game.query("SELECT count(*) FROM moves") == [(2,)]


@pytest.mark.parametrize("header", [FORGED, FAIL, None], ids=["untrusted", "failed", "none"])
def test_without_a_trusted_pass_a_from_grants_nothing(game: PbmEnv, header: str | None) -> None:
    turn = bobs_turn_mail(game)
    extra = {"Authentication_Results": header} if header else {}
    reply = game.message("Re: " + str(turn["Subject"]), "h10g8\n", sender="bob@example.org",
                         to=str(turn["Reply-To"]), **extra)
    assert game.deliver(reply).returncode == 0
    [refusal] = game.replies()
    assert refusal["Reply-To"] is None and "did not vouch for bob@example.org" in " ".join(plain(refusal).split())
    assert game.query("SELECT count(*) FROM moves") == [(1,)]
    # many commands in one mail: answered once, without a token
    game.mail("multiple", "xiangqi show 101\nxiangqi show 101\nxiangqi challenge bob alice",
              sender="bob@example.org", **extra)
    [answer] = game.replies()
    assert answer["Reply-To"] is None
    assert game.query("SELECT count(*) FROM games") == [(1,)]      # no standing: no challenge
    # a password still works; the game mail, with its token, goes to the registered address
    game.mail("xiangqi move 101 bob Hunter22 h10g8", sender="bob@example.org", **extra)
    mails = game.replies()
    assert game.query("SELECT count(*) FROM moves") == [(2,)]
    to_bob = [m for m in mails if str(m["To"]) == "bob@example.org"]
    assert len(to_bob) == 2 and sum(m["Reply-To"] is not None for m in to_bob) == 1
    noted = next(m for m in to_bob if m["Reply-To"] is not None)
    assert "did not vouch for" in " ".join(plain(noted).split())
