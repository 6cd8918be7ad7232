"""`pbm deliver`: one message from the MTA's pipe, handed to a running `pbm serve` or recorded here.

It exits 0 only once the message is durably recorded, and 75 (EX_TEMPFAIL: the MTA keeps the
message and tries again) whenever it is not, whatever the reason, so that no mail is ever lost to a
bounce (pbm.cli also turns wrong usage and crashes of `pbm deliver` into 75).  Handing the message
to a running server, it exits with the server's verdict: pbm.runners.handover.  Light at the top
(no email package, SQLite or templates): a process that hands over loads only what it uses.
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False                   # as in pbm.cli: typing is not imported to hand over
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

    from pbm.config import Config
    from pbm.runners import handover

EX_OK = 0
EX_TEMPFAIL = 75


def null_sender(sender: str | None) -> str | None:
    """The envelope sender as pbm stores it: the null return path as "".  Postfix's pipe writes
    it as MAILER-DAEMON unless its `null_sender=` is set; others write "<>"."""
    if sender is not None and sender.strip().strip("<>").lower() in ("", "mailer-daemon"):
        return ""
    return sender


class Early:
    """What `early` read of a plain argv (the configuration file, the envelope), and found: no
    running server took the message (`no_server`, as `hand_over`).  pbm.cli runs the command with
    these, building no argparse parser for a command line it has read already."""

    def __init__(self, config: str | None, sender: str | None, recipients: list[str],
                 no_server: handover.NoServer | None):
        self.config, self.sender, self.recipient, self.no_server = config, sender, recipients, no_server
        self.command = "deliver"


def early(argv: list[str], config_file: str | None) -> Early | None:
    """Hand the message over before argparse and the rest of pbm are imported, when `argv` is a
    plain `[--config FILE] deliver [--sender S] [--recipient A [B ...]]...` (each option also as
    `--name=value`), as an MTA's pipe writes it; exits with the server's verdict if one took it.
    None where `argv` says anything else: pbm.cli then parses it and hands over itself."""
    sender, recipients, command = None, [], None
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name in ("--config", "--sender", "--recipient") and not equals:
            value = next(words, None)
            if value is None:
                return None
        if word == "deliver" and command is None:
            command = word
        elif name == "--config" and command is None:
            config_file = value
        elif name == "--sender" and command and sender is None:
            sender = value
        elif name == "--recipient" and command:
            recipients.append(value)
        elif command and recipients and not word.startswith("-") and not equals:
            recipients.append(word)     # --recipient A B: the pipe's ${recipient} expanded
        else:
            return None
    if command is None:
        return None
    return Early(config_file, null_sender(sender), recipients,
                 hand_over(config_file, null_sender(sender), recipients))


def hand_over(config_file: str | None, sender: str | None,
              recipients: Sequence[str]) -> handover.NoServer | None:
    """With `[lmtp] socket`, pass the message to the server listening there (pbm.runners.handover)
    and exit with its verdict; else why not (None: no socket), with what was read of the message."""
    from pbm.runners import handover
    path = handover.socket_path(config_file)
    if path is None:
        return None
    try:
        leave(handover.hand_over(path, sys.stdin.buffer, sender, recipients))
    except handover.NoServer as e:
        return e


def run(config: Config, sender: str | None, recipients: Sequence[str],
        no_server: handover.NoServer | None) -> int:
    """Record the message here and send its replies: no running server took it (`hand_over`)."""
    import logging

    from pbm.runners import handover
    log = logging.getLogger("pbm")
    if no_server is None or no_server.message is None:
        raw, size = handover.read_limited(sys.stdin.buffer, config.smtp.max_message_size)
    else:
        raw, size = no_server.message
        if len(raw) < size <= config.smtp.max_message_size:     # cut at the server's limit
            log.warning("pbm serve takes fewer bytes than [smtp] max_message_size says: restart it; "
                        "exit 75 so that the MTA retries")
            return EX_TEMPFAIL
    try:
        from pbm import intake, logs
        from pbm.model.store import DatabaseLost, open_db
        from pbm.outbox import claims, sending
        from pbm.upkeep import health
    except Exception:                   # a broken installation must not lose mail either
        log.exception("cannot load pbm, exit 75 so that the MTA retries")
        return EX_TEMPFAIL
    if no_server is not None:
        log.info("delivered in this process: %s", no_server)
    try:
        db = open_db(config)
        result = intake.accept(db, config, raw, sender, recipients, size=size,
                               claimant=claims.claimant())
    except intake.TransientError as e:
        log.warning("temporary failure, exit 75 so that the MTA retries: %s", e)
        return EX_TEMPFAIL
    except DatabaseLost as e:           # emptied or missing where pbm's data is: restore it
        log.error("%s; exit 75 so that the MTA retries", e)
        return EX_TEMPFAIL
    except PermissionError as e:        # the owner of data_dir is not the pipe's user=
        import pwd
        user = pwd.getpwuid(os.geteuid()).pw_name
        log.error("user %s cannot create or write %s (%s), so the message is not recorded; exit 75 "
                  "so that the MTA retries (pbm doctor --user %s says what to change)",
                  user, e.filename or config.data_dir, e.strerror, user)
        return EX_TEMPFAIL
    except Exception as e:
        if health.damage(e):
            log.error("%s; exit 75 so that the MTA retries", health.advice(config, str(e)))
        else:
            log.error("message not recorded, exit 75 so that the MTA retries:\n%s",
                      logs.describe_exception(e))
        return EX_TEMPFAIL
    if result.outbox_ids:
        try:        # the message is safe; whatever is not sent now stays queued
            sending.send_due(db, config, ids=result.outbox_ids)
        except Exception as e:
            log.warning("replies stay queued: %s", logs.describe_exception(e))
    leave(EX_OK)


def leave(status: int) -> NoReturn:
    """Exit at once: everything is committed (synchronous=FULL) and the replies written and synced,
    so the interpreter's teardown -- freeing every module and object, a quarter of a short
    process's life -- would only make the MTA wait.  The log (on stderr) is flushed first."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


