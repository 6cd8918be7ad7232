"""Sending through an SMTP relay (smarthost): `[outbound] mode = "smtp"`.

A module of its own, imported when a relay is used, so that a process that writes its replies into
the Maildir (the embedded default, and most `pbm deliver` runs) never loads the SMTP client and TLS.
"""
from __future__ import annotations

import smtplib
import ssl

from pbm.config import Config
from pbm.outbox.streams import envelope_sender
from pbm.outbox.transports import Refused, Unavailable


class Relay:
    """An SMTP relay (smarthost): one connection per batch, STARTTLS or TLS, AUTH if configured."""

    idempotent = False                  # a second delivery is a second mail

    def __init__(self, config: Config):
        self.config = config
        self.smtp: smtplib.SMTP | None = None

    def send(self, row: dict) -> None:
        if self.smtp is None:
            self.smtp = self._connect()
        options = []
        if not row["recipient"].isascii():
            self.smtp.ehlo_or_helo_if_needed()
            if not self.smtp.has_extn("smtputf8"):
                raise Refused("the address is not ASCII, and the relay does not offer SMTPUTF8 "
                               "(RFC 6531), which it needs", temporary=False)
            options = ["SMTPUTF8"]
        try:
            self.smtp.sendmail(envelope_sender(self.config, row["stream"]), [row["recipient"]], row["raw"],
                               mail_options=options)
        # Order matters: every SMTPException is an OSError.
        except smtplib.SMTPRecipientsRefused as e:
            code, text = next(iter(e.recipients.values()))
            raise Refused(_response(code, text), temporary=400 <= code < 500) from None
        except smtplib.SMTPResponseException as e:
            if e.smtp_code == 421:      # the relay is closing the connection
                self.smtp.close()
                self.smtp = None
            raise Refused(_response(e.smtp_code, e.smtp_error), temporary=400 <= e.smtp_code < 500) \
                from None
        except smtplib.SMTPServerDisconnected as e:
            self.smtp = None
            raise Unavailable(f"connection lost: {e}") from None
        except smtplib.SMTPException as e:  # e.g. SMTPUTF8 needed but not offered
            raise Refused(f"{type(e).__name__}: {e}", temporary=False) from None
        except OSError as e:
            self.smtp = None
            raise Unavailable(f"connection lost: {type(e).__name__}: {e}") from None

    def sync(self) -> None:
        pass                            # the relay's 250 means it has the message

    def _connect(self) -> smtplib.SMTP:
        out = self.config.outbound
        context = ssl.create_default_context(cafile=out.ca_file or None)
        smtp = None
        try:
            if out.ssl:
                smtp = smtplib.SMTP_SSL(out.host, out.port, timeout=out.timeout, context=context)
            else:
                smtp = smtplib.SMTP(out.host, out.port, timeout=out.timeout)
                if out.starttls:
                    smtp.starttls(context=context)
            if out.username:
                smtp.login(out.username, out.password)
            return smtp
        except (smtplib.SMTPException, OSError) as e:
            if smtp is not None:
                smtp.close()
            detail = _response(e.smtp_code, e.smtp_error) if isinstance(e, smtplib.SMTPResponseException) \
                else f"{type(e).__name__}: {e}"
            raise Unavailable(f"relay {out.host}:{out.port}: {detail}") from None

    def close(self) -> None:
        if self.smtp is not None:
            try:
                self.smtp.quit()
            except (smtplib.SMTPException, OSError):
                self.smtp.close()
            self.smtp = None


def check_relay(config: Config) -> str | None:
    """Connect to the relay as a send would (EHLO, STARTTLS or TLS, AUTH if configured) and leave:
    None if that worked, else what went wrong (for `pbm doctor`)."""
    relay = Relay(config)
    try:
        relay.smtp = relay._connect()
        relay.smtp.ehlo_or_helo_if_needed()
    except Unavailable as e:
        return str(e)
    except (smtplib.SMTPException, OSError) as e:
        return f"{type(e).__name__}: {e}"
    finally:
        relay.close()
    return None


def _response(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {' '.join(text.split())}"
