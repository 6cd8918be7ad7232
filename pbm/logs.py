"""Logging: where the server's logs go, and how an exception is told without its text.

Every process of `pbm serve` and every `pbm` command sets its logging up here; an exception is
logged by type and frames only, since its text may quote a message, and so a password.
"""
from __future__ import annotations

import logging
import sys
import traceback

from pbm.config import Config


def configure_logging(config: Config) -> None:
    """Logs go to stderr, at the configured level (also in the SMTP processes of `pbm serve`)."""
    logging.basicConfig(stream=sys.stderr, level=config.server.log_level.upper(),
                        format="%(asctime)s pbm[%(process)d] %(levelname)s %(name)s: %(message)s")
    logging.getLogger("mail.log").setLevel(logging.WARNING)    # aiosmtpd's chatter per connection


def describe_exception(error: BaseException) -> str:
    """Exception type and stack frames, without str(error): the text may quote the message."""
    kind = type(error)
    frames = "".join(traceback.format_list(traceback.extract_tb(error.__traceback__)))
    return f"{kind.__module__}.{kind.__qualname__}\n{frames}".rstrip()
