"""A stub DNS server on loopback for the tests of mail's DNS records (pbm doctor --dns, DKIM): a UDP
socket on a free port answering from a dict of records, built with dnspython's message API, in a
thread of the test's process.  No network: the tests give pbm its address (`--nameserver`), and
dkimpy's verifier the same answers (`txt`, its dnsfunc)."""
from __future__ import annotations

import socket
import threading
from pathlib import Path

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset

from pbm.outbox import dkim_keys


class StubDNS:
    """Answers A, MX, PTR, TXT... queries from `records`: {(name, type): [value, ...]}; a name it
    does not hold is NXDOMAIN."""

    def __init__(self, records: dict[tuple[str, str], list[str]]):
        self.records = {(name.rstrip(".").lower(), kind.upper()): values for (name, kind), values in records.items()}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return                  # closed
            query = dns.message.from_wire(data)
            response = dns.message.make_response(query)
            question = query.question[0]
            name = question.name.to_text().rstrip(".").lower()
            kind = dns.rdatatype.to_text(question.rdtype)
            values = self.records.get((name, kind))
            if values:
                texts = [_quoted(value) for value in values] if kind == "TXT" else values
                response.answer.append(dns.rrset.from_text(question.name, 60, "IN", kind, *texts))
            elif not any(held == name for held, _ in self.records):
                response.set_rcode(dns.rcode.NXDOMAIN)
            self.sock.sendto(response.to_wire(), peer)

    def txt(self, name: bytes, timeout: float = 5) -> bytes | None:
        """dkimpy's dnsfunc: the TXT record at `name`, the same answer the server gives."""
        values = self.records.get((name.decode().rstrip(".").lower(), "TXT"))
        return values[0].encode() if values else None

    def close(self) -> None:
        self.sock.close()
        self.thread.join(5)


def _quoted(text: str) -> str:
    """A TXT value in zone-file form: strings of at most 255 characters, quoted."""
    return " ".join(f'"{text[i:i + 255]}"' for i in range(0, len(text), 255))


def dkim_record(key: Path) -> str:
    """The TXT value that publishes the key at `key` (as pbm dkim new prints it)."""
    kind, public = dkim_keys.public_value(key)
    return f"v=DKIM1; k={kind}; p={public}"
