"""The `pbm` command: serve, web, deliver, poll, outbox, inbound, user, timers, doctor, dkim, export,
backup.

Exit codes follow sysexits.h (os.EX_*), as MTAs expect of a delivery program (`pbm deliver`:
pbm.runners.deliver); the operator's commands are pbm.upkeep.commands.  Logs go to stderr and name messages by Message-ID, never by subject or
body (passwords!).
"""
from __future__ import annotations

import errno
import os
import sys

# Not `typing.TYPE_CHECKING`: a `pbm deliver` that hands its message to a running server imports
# next to nothing (pbm.runners.deliver.early), and typing, argparse and collections.abc are not
# nothing.  Type checkers read this name as they read typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from pbm.config import Config, ConfigError
    from pbm.runners.deliver import Early

from os import EX_CONFIG, EX_DATAERR, EX_OK, EX_SOFTWARE, EX_TEMPFAIL, EX_UNAVAILABLE, EX_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command.  `pbm deliver` exits 75 on anything that is not a verdict on the message
    (wrong usage, a crash): Postfix's pipe bounces on 64 and on any status outside sysexits.h
    (argparse's 2, Python's 1), and a bounce loses a move."""
    argv = sys.argv[1:] if argv is None else list(argv)
    delivering = "deliver" in argv
    try:
        early = None
        if delivering:
            from pbm.runners import deliver
            # a running server takes the message before anything else is imported (then this exits)
            early = deliver.early(argv, os.environ.get("PBM_CONFIG"))
        return _main(argv, early)
    except SystemExit as e:             # argparse: 2 on wrong usage, 0 after --help
        if e.code != 2:
            raise
        if delivering:
            print("pbm: exit 75 so that the MTA retries", file=sys.stderr)
            return EX_TEMPFAIL
        return EX_USAGE
    except Exception:
        if not delivering:
            raise
        import traceback
        print(f"pbm: message not recorded, exit 75 so that the MTA retries:\n{traceback.format_exc()}",
              file=sys.stderr)
        return EX_TEMPFAIL


def _main(argv: list[str], early: Early | None) -> int:
    os.umask(0o077)     # the database, the secret, the Maildir: readable by the server alone
    if early is not None:               # a pipe's plain `deliver` command line, read by `early`
        args = early
        args.run = _deliver
    else:
        args = _parser().parse_args(argv)
    if args.command == "deliver" and early is None:
        from pbm.runners import deliver
        args.sender = deliver.null_sender(args.sender)
        # exits with its answer if a running server takes it
        args.no_server = deliver.hand_over(args.config, args.sender, args.recipient)
    from pbm.config import ConfigError, load_config
    try:
        config = load_config(args.config)
    except ConfigError as e:
        if args.command == "doctor":
            return _upkeep("doctor")(e, args)
        print(f"pbm: {e}", file=sys.stderr)
        return EX_TEMPFAIL if args.command == "deliver" else EX_CONFIG
    _start(config, args.command)
    try:
        return args.run(config, args)
    except RuntimeError as e:           # the database must be restored: one line, not a traceback
        from pbm.model.store import DatabaseLost
        if not isinstance(e, DatabaseLost):
            raise
        print(f"pbm: {e}", file=sys.stderr)
        return EX_TEMPFAIL
    except BrokenPipeError:
        if args.command == "deliver":   # its exit status is the MTA's verdict (main: 75)
            raise
        # whoever read the output stopped early (`pbm outbox show 3 | head`): stop quietly, as cat
        # does; what is left unflushed goes nowhere (Python's documented way, signal.SIGPIPE's notes)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


PLAYS = {"deliver", "serve", "poll", "timers", "inbound"}   # commands that may need the rules tables
ONE_MESSAGE = {"deliver", "outbox"}     # processes that send what one message made: pictures kept on disk


def _start(config: Config, command: str) -> None:
    """Logging, and the caches of the rules tables, the compiled templates and the drawn pictures
    (made once, kept for the next process).  Not at the top of this module, nor the configuration: `pbm deliver`
    handing its message to a running server (pbm.runners.handover) needs none of them, and a process per
    message pays for every import."""
    from pbm import logs
    logs.configure_logging(config)
    if command in PLAYS:
        from pbm import rules_cache
        from pbm.outbox import compose
        rules_cache.install(config.data_dir / "cache")
        compose.compiled_cache = config.data_dir / "cache"
    if command in ONE_MESSAGE:
        from pbm.pictures import deferred
        deferred.kept_on_disk = config.data_dir / "cache" / "pictures"


def _parser() -> argparse.ArgumentParser:
    import argparse
    parser = argparse.ArgumentParser(prog="pbm", description="Play-by-email game server.")
    parser.add_argument("--config", metavar="FILE", default=os.environ.get("PBM_CONFIG"),
                        help="TOML configuration file (default: $PBM_CONFIG, else built-in defaults)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="SMTP listener, outbox worker and timers (and the pages, with [web])")
    serve.set_defaults(run=_serve)

    pages = sub.add_parser("web", help="the read-only game pages of [web] alone (mail taken by pbm deliver)")
    pages.set_defaults(run=_web)

    deliver = sub.add_parser("deliver", help="take one message on standard input (MTA pipe)")
    deliver.add_argument("--sender", metavar="ADDRESS",
                         help='envelope sender (Postfix: ${sender}); "", "<>" and MAILER-DAEMON are '
                              'the null return path')
    deliver.add_argument("--recipient", metavar="ADDRESS", nargs="+", action="extend", default=[],
                         help="envelope recipients (Postfix: --recipient=${recipient}); "
                              "--recipient A B and --recipient=A --recipient=B alike")
    deliver.set_defaults(run=_deliver)

    poll = sub.add_parser("poll", help="take mail from the IMAP mailbox in [imap]")
    poll.add_argument("--once", action="store_true", help="one round, then exit")
    poll.set_defaults(run=_poll)

    box = sub.add_parser("outbox", help="list the outbox (default), send what is queued, or show a reply")
    box.add_argument("action", nargs="?", choices=["list", "flush", "show"], default="list")
    box.add_argument("ids", nargs="*", type=int, metavar="ID", help="for show: the replies to print")
    box.add_argument("--status", choices=["queued", "sending", "sent", "failed"])
    box.add_argument("--limit", type=int, default=50, help="rows to list, newest first (default 50)")
    box.set_defaults(run=_upkeep("outbox"))

    incoming = sub.add_parser("inbound", help="messages that failed with an internal error: list, run again")
    incoming.add_argument("action", choices=["failed", "retry"])
    incoming.add_argument("ids", nargs="*", type=int, metavar="ID", help="for retry: the messages to run")
    incoming.set_defaults(run=_upkeep("inbound"))

    user = sub.add_parser("user", help="accounts: reset-password USERID prints a one-time code")
    user.add_argument("action", choices=["reset-password"])
    user.add_argument("user_id", metavar="USERID")
    user.set_defaults(run=_upkeep("user"))

    timers = sub.add_parser("timers", help="run the game timers once (cron, without `pbm serve`)")
    timers.set_defaults(run=_timers)

    review = sub.add_parser("review", help="do the queued engine reviews of finished games (cron), here "
                                           "or, with --server, for a pbm serve elsewhere")
    review.add_argument("--server", metavar="URL", help="take the reviews from this server's pages "
                                                         "(its [web] base_url) over HTTP")
    review.add_argument("--key", metavar="KEY", default=os.environ.get("PBM_REVIEW_KEY"),
                        help="one of the server's [review] keys (default: $PBM_REVIEW_KEY)")
    review.add_argument("--forever", action="store_true", help="keep waiting for reviews (a worker "
                                                              "on another machine)")
    review.set_defaults(run=_review)

    doctor = sub.add_parser("doctor", help="check the configuration, files, database, relay, templates")
    doctor.add_argument("--user", metavar="USER",
                        help="check as USER, who runs pbm (the MTA pipe's user=, cron, pbm serve); "
                             "needs root (default: the user running pbm doctor)")
    doctor.add_argument("--dns", action="store_true",
                        help="also look up the DNS records mail needs: SPF, DKIM, DMARC, MX, PTR")
    doctor.add_argument("--nameserver", metavar="HOST[:PORT]",
                        help="for --dns: ask this DNS server (default: the system's resolvers)")
    doctor.set_defaults(run=_upkeep("doctor"))

    dkim = sub.add_parser("dkim", help="new SELECTOR: make a DKIM key and print the DNS record to publish")
    dkim.add_argument("action", choices=["new"])
    dkim.add_argument("selector", metavar="SELECTOR")
    dkim.add_argument("--ed25519", action="store_true", help="an Ed25519 key (RFC 8463) instead of RSA 2048")
    dkim.set_defaults(run=_upkeep("dkim"))

    export = sub.add_parser("export", help="games, moves, players and ratings as CSV or JSON, and "
                                           "every finished game as PGN")
    export.add_argument("dest", metavar="DEST", help="the folder to write into (made if missing)")
    export.add_argument("--format", choices=["csv", "json"], default="csv", help="default csv")
    export.add_argument("--pgn", metavar="FOLDER", help="where the PGN files go (default DEST/pgn)")
    export.set_defaults(run=_upkeep("export"))

    tournament = sub.add_parser("tournament", help="check FILE.trf: pair a TRF's Swiss rounds again "
                                                   "with pbm's pairer and show where they differ")
    tournament.add_argument("action", choices=["check"])
    tournament.add_argument("file", metavar="FILE", help="a FIDE TRF-16 file")
    tournament.set_defaults(run=_upkeep("tournament"))

    backup = sub.add_parser("backup", help="a consistent copy of the database, while the server runs")
    backup.add_argument("file", metavar="FILE", help="where the copy goes (replaced if it exists)")
    backup.set_defaults(run=_upkeep("backup"))
    return parser


def _upkeep(name: str) -> Callable[..., int]:
    """The operator's command `name` (pbm.upkeep.commands), imported only when it runs."""
    def run(config: Config | ConfigError, args: argparse.Namespace) -> int:
        from pbm.upkeep import commands
        return getattr(commands, name)(config, args)
    return run


def _serve(config: Config, args: argparse.Namespace) -> int:
    from pbm.config import ConfigError
    from pbm.runners import serve
    from pbm.upkeep import health
    try:
        return EX_OK if serve.run(config) else EX_SOFTWARE
    except health.Damaged as e:
        print(f"pbm: {e}", file=sys.stderr)
        return EX_DATAERR
    except ConfigError as e:
        print(f"pbm: {e}", file=sys.stderr)
        return EX_CONFIG
    except OSError as e:
        return _unavailable(e)


def _unavailable(e: OSError) -> int:
    """A port taken (by another program, or a pbm already running): one line, as for the other
    start-up errors, and EX_UNAVAILABLE; any other failure stays a crash with its traceback."""
    if e.errno != errno.EADDRINUSE:
        raise e
    print(f"pbm: cannot listen: {e.strerror or e} (another program, or another pbm, holds that port)",
          file=sys.stderr)
    return EX_UNAVAILABLE


def _web(config: Config, args: argparse.Namespace) -> int:
    from pbm.web import server
    if not config.web.listen:
        print("pbm: [web] listen and base_url are not set: there are no pages to serve", file=sys.stderr)
        return EX_CONFIG
    try:
        server.run(config)
    except OSError as e:
        return _unavailable(e)
    return EX_OK


def _deliver(config: Config, args: argparse.Namespace) -> int:
    from pbm.runners import deliver
    return deliver.run(config, args.sender, args.recipient, args.no_server)


def _poll(config: Config, args: argparse.Namespace) -> int:
    from pbm.config import ConfigError
    from pbm.runners import poll
    try:
        poll.run(config, once=args.once)
    except ConfigError as e:
        print(f"pbm: {e}", file=sys.stderr)
        return EX_CONFIG
    except poll.ImapError as e:
        print(f"pbm: {e}", file=sys.stderr)
        return EX_TEMPFAIL
    return EX_OK


def _timers(config: Config, args: argparse.Namespace) -> int:
    """75 when the database stays locked (cron runs it again), as `pbm deliver`."""
    import sqlite3

    from pbm.commands.timing import timers
    from pbm.model.store import open_db
    from pbm.outbox import sending

    try:
        db = open_db(config)
        queued = timers.run_due(db, config)
        report = sending.send_due(db, config)
    except sqlite3.OperationalError as e:   # another process holds the write lock past busy_timeout
        if "locked" not in str(e) and "busy" not in str(e):
            raise
        print(f"pbm: the database is busy ({e}); the timers run again at the next run: exit 75",
              file=sys.stderr)
        return EX_TEMPFAIL
    print(f"timers queued {queued} mail{'' if queued == 1 else 's'}; sent {report.sent}")
    return EX_OK


def _review(config: Config, args: argparse.Namespace) -> int:
    from pbm.runners import reviewers
    return reviewers.command(config, args.server, args.key, args.forever)
