"""`pbm doctor --dns` against a stub DNS server on loopback (no network): what it finds missing or
wrong is named with the record to publish -- a missing DMARC record, a DKIM key that is not the
configured private key's, no SPF, no PTR -- and a site whose records are all there passes."""
from __future__ import annotations

from support.dns_stub import StubDNS, dkim_record
from support.processes import PbmEnv

DOMAIN = "pbm.test"
IP = "192.0.2.25"


def doctor(env: PbmEnv, records: dict[tuple[str, str], list[str]]) -> tuple[int, str]:
    server = StubDNS(records)
    try:
        result = env.run("doctor", "--dns", "--nameserver", server.address)
    finally:
        server.close()
    lines = result.stdout.decode()
    return result.returncode, lines[lines.index("dns:"):]


def test_doctor_dns_names_what_is_missing_and_a_key_that_does_not_match(pbm_env: PbmEnv) -> None:
    for selector in ("s2026", "old2025"):
        assert pbm_env.run("dkim", "new", selector).returncode == 0
    pbm_env.configure(outbound={"dkim_selector": "s2026", "sending_ip": IP})
    good = {
        (DOMAIN, "TXT"): [f"v=spf1 ip4:{IP} -all"],
        (f"s2026._domainkey.{DOMAIN}", "TXT"): [dkim_record(pbm_env.data_dir / "dkim" / "s2026.pem")],
        (f"_dmarc.{DOMAIN}", "TXT"): [f"v=DMARC1; p=quarantine; rua=mailto:postmaster@{DOMAIN}"],
        (DOMAIN, "MX"): [f"10 mx.{DOMAIN}."],
        ("25.2.0.192.in-addr.arpa", "PTR"): [f"mx.{DOMAIN}."],
        (f"mx.{DOMAIN}", "A"): [IP],
    }
    status, said = doctor(pbm_env, good)
    assert "note: DKIM key at s2026._domainkey.pbm.test matches" in said, said
    assert f"note: PTR of {IP}: mx.{DOMAIN}" in said and "note: DMARC of pbm.test" in said, said
    assert status == 0 and "everything looks right" in said, said

    # no DMARC record, and the published key is another one's
    wrong = {**good, (f"s2026._domainkey.{DOMAIN}", "TXT"): [dkim_record(pbm_env.data_dir / "dkim" / "old2025.pem")]}
    del wrong[(f"_dmarc.{DOMAIN}", "TXT")]
    status, said = doctor(pbm_env, wrong)
    flat = " ".join(said.split())
    assert status == 1, said
    assert (f'no DMARC record for {DOMAIN}: publish _dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=none; '
            f'rua=mailto:postmaster@{DOMAIN}"') in flat, said
    assert (f"the DKIM key published at s2026._domainkey.{DOMAIN} does not match the private key "
            f"{pbm_env.data_dir / 'dkim' / 's2026.pem'}: mail signed with it fails; publish "
            f"s2026._domainkey.{DOMAIN}. IN TXT ( \"v=DKIM1; k=rsa; p=") in flat, said

    # nothing published at all
    status, said = doctor(pbm_env, {})
    flat = " ".join(said.split())
    assert f'no SPF record for {DOMAIN} (the envelope senders\' domain): publish {DOMAIN}. IN TXT "v=spf1 ip4:{IP} -all"' in flat
    assert f"no DKIM key at s2026._domainkey.{DOMAIN}: publish s2026._domainkey.{DOMAIN}. IN TXT" in flat
    assert f"no MX record for {DOMAIN}" in flat and f"no PTR record for {IP}" in flat, said


def test_doctor_says_a_dkim_key_it_cannot_read_stops_the_mail(pbm_env: PbmEnv) -> None:
    pbm_env.configure(outbound={"dkim_selector": "gone"})
    result = pbm_env.run("doctor")
    said = " ".join(result.stdout.decode().split())
    assert result.returncode == 1
    assert (f"dkim: the DKIM key of selector gone, {pbm_env.data_dir / 'dkim' / 'gone.pem'}, cannot be "
            f"read: No such file or directory; nothing is sent until it can be") in said, said
