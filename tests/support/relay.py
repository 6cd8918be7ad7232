"""An SMTP relay for the outbox tests: aiosmtpd on a free loopback port, with STARTTLS and AUTH
when asked, that can refuse messages (4xx, 5xx) or be down."""
from __future__ import annotations

import ssl

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

RELAY_USER, RELAY_PASSWORD = "pbm-relay", "relay-Pa55word"


class Relay:
    """A real SMTP server standing in for the smarthost.  `script` holds the answers to successive
    DATA commands (None: accept); mail to the `refuse` addresses is refused for good."""

    def __init__(self, port: int, tls: ssl.SSLContext | None = None, script: list | None = None,
                 smtputf8: bool = False, refuse: frozenset[str] = frozenset()):
        self.script = list(script or [])
        self.refuse = refuse            # recipients answered 550 (unknown user), always
        self.attempts = 0
        self.accepted: list[tuple[str, list[str], bytes]] = []
        self.logins: list[bytes] = []
        options = dict(tls_context=tls, require_starttls=True, auth_required=True,
                       authenticator=self._authenticate) if tls else {}
        self.controller = Controller(self, hostname="127.0.0.1", port=port, enable_SMTPUTF8=smtputf8,
                                     **options)
        self.controller.start()

    def _authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        self.logins.append(auth_data.login)
        ok = (auth_data.login, auth_data.password) == (RELAY_USER.encode(), RELAY_PASSWORD.encode())
        return AuthResult(success=ok, handled=False)    # handled=False: aiosmtpd answers 535

    async def handle_DATA(self, server, session, envelope) -> str:
        self.attempts += 1
        answer = self.script.pop(0) if self.script else None
        if self.refuse & set(envelope.rcpt_tos):
            answer = "550 5.1.1 No such user"
        if answer:
            return answer
        self.accepted.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 2.0.0 queued"

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None
