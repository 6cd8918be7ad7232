"""The `pbm` command: serve, web, deliver, poll, outbox, inbound, user, timers, doctor, dkim, export,
backup.

Exit codes follow sysexits.h, as MTAs expect of a delivery program (`pbm deliver`:
pbm.runners.deliver).  Logs go to stderr and name messages by Message-ID, never by subject or
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
    from collections.abc import Sequence

    from pbm.config import Config, ConfigError

EX_OK = 0
EX_USAGE = 64
EX_DATAERR = 65         # `pbm serve`: the database is damaged, or not a pbm database
EX_UNAVAILABLE = 69     # `pbm serve`, `pbm web`: a port to listen on is taken
EX_SOFTWARE = 70
EX_TEMPFAIL = 75
EX_CONFIG = 78


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


def _main(argv: list[str], early: object) -> int:
    os.umask(0o077)     # the database, the secret, the Maildir: readable by the server alone
    args = _parser().parse_args(argv)
    if args.command == "deliver":
        from pbm.runners import deliver
        args.sender = deliver.null_sender(args.sender)
        # exits with its answer if a running server takes it (unless `early` asked it already)
        args.no_server = early.no_server if isinstance(early, deliver.Early) else \
            deliver.hand_over(args.config, args.sender, args.recipient)
    from pbm.config import ConfigError, load_config
    try:
        config = load_config(args.config)
    except ConfigError as e:
        if args.command == "doctor":
            return _doctor(e, args)
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


def _start(config: Config, command: str) -> None:
    """Logging, and the caches of the rules tables and the compiled templates (compiled once, kept
    for the next process).  Not at the top of this module, nor the configuration: `pbm deliver`
    handing its message to a running server (pbm.runners.handover) needs none of them, and a process per
    message pays for every import."""
    from pbm import logs
    logs.configure_logging(config)
    if command in PLAYS:
        from pbm import rules_cache
        from pbm.outbox import compose
        rules_cache.install(config.data_dir / "cache")
        compose.compiled_cache = config.data_dir / "cache"


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
    box.set_defaults(run=_outbox)

    incoming = sub.add_parser("inbound", help="messages that failed with an internal error: list, run again")
    incoming.add_argument("action", choices=["failed", "retry"])
    incoming.add_argument("ids", nargs="*", type=int, metavar="ID", help="for retry: the messages to run")
    incoming.set_defaults(run=_inbound)

    user = sub.add_parser("user", help="accounts: reset-password USERID prints a one-time code")
    user.add_argument("action", choices=["reset-password"])
    user.add_argument("user_id", metavar="USERID")
    user.set_defaults(run=_user)

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
    doctor.set_defaults(run=_doctor)

    dkim = sub.add_parser("dkim", help="new SELECTOR: make a DKIM key and print the DNS record to publish")
    dkim.add_argument("action", choices=["new"])
    dkim.add_argument("selector", metavar="SELECTOR")
    dkim.add_argument("--ed25519", action="store_true", help="an Ed25519 key (RFC 8463) instead of RSA 2048")
    dkim.set_defaults(run=_dkim)

    export = sub.add_parser("export", help="games, moves, players and ratings as CSV or JSON, and "
                                           "every finished game as PGN")
    export.add_argument("dest", metavar="DEST", help="the folder to write into (made if missing)")
    export.add_argument("--format", choices=["csv", "json"], default="csv", help="default csv")
    export.add_argument("--pgn", metavar="FOLDER", help="where the PGN files go (default DEST/pgn)")
    export.set_defaults(run=_export)

    tournament = sub.add_parser("tournament", help="check FILE.trf: pair a TRF's Swiss rounds again "
                                                   "with pbm's pairer and show where they differ")
    tournament.add_argument("action", choices=["check"])
    tournament.add_argument("file", metavar="FILE", help="a FIDE TRF-16 file")
    tournament.set_defaults(run=_tournament)

    backup = sub.add_parser("backup", help="a consistent copy of the database, while the server runs")
    backup.add_argument("file", metavar="FILE", help="where the copy goes (replaced if it exists)")
    backup.set_defaults(run=_backup)
    return parser


def _backup(config: Config, args: argparse.Namespace) -> int:
    from pathlib import Path

    from pbm.model.store import open_db
    from pbm.upkeep import backup

    size = backup.backup(open_db(config), Path(args.file))
    print(f"{args.file}: {size} bytes")
    return EX_OK


def _export(config: Config, args: argparse.Namespace) -> int:
    from pathlib import Path

    from pbm.model.store import open_db
    from pbm.upkeep import export

    dest = Path(args.dest)
    counts = export.export(open_db(config), dest, args.format, config.server.address,
                           Path(args.pgn) if args.pgn else dest / "pgn")
    print(", ".join(f"{name} {count}" for name, count in counts.items()))
    return EX_OK


def _tournament(config: Config, args: argparse.Namespace) -> int:
    """Exit 0 when pbm pairs every round as the file does, 1 when a round differs, 65 when the file
    cannot be read as a TRF (one line saying why)."""
    from pathlib import Path

    from pbm.tournaments import trf

    try:
        data = Path(args.file).read_bytes()     # UTF-8 (FIDE's), UTF-16 with its byte-order mark, or
        try:                                    # CP1252 (what Swiss-Manager and other Windows tools write)
            text = data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252")
        report = trf.read(text)
        differ = trf.check(report) if report.system == "swiss" else []
    except (OSError, UnicodeDecodeError, ValueError, KeyError, IndexError) as e:
        print(f"pbm: {args.file}: {_unreadable(e)}", file=sys.stderr)
        return EX_DATAERR
    if report.system != "swiss":
        print(f"{args.file}: not a Swiss tournament (092 says {trf.TYPES[report.system]}); "
              f"nothing to pair again")
        return EX_OK
    for line in differ:
        print(line)
    last = max((g.round for g in report.games), default=0)
    print(f"{args.file}: {report.name}, {len(report.entrants)} players, {last} rounds paired again "
          f"by pbm's Dutch system: {len(differ)} differ")
    return 1 if differ else EX_OK


def _unreadable(error: Exception) -> str:
    """Why `pbm tournament check` cannot read a file, and what a TRF holds instead."""
    what = ("it cannot be read" if isinstance(error, OSError) else
            "it is not text in UTF-8, UTF-16 or CP1252" if isinstance(error, UnicodeDecodeError) else
            f"a player's number or a round's cell is not a number ({error})" if isinstance(error, ValueError) else
            f"a round names {error} as opponent or result, which is no player of the file nor a TRF "
            f"result (1, 0, =, + or -)" if isinstance(error, KeyError) else
            "a player's row has fewer rounds than an opponent's row says they played")
    return (f"not a TRF-16 file pbm can read: {what}. Each 001 line gives the player's number in "
            f"columns 5-8 and, from column 92, one cell per round: the opponent's number, the "
            f"colour (w or b) and the result")


def _doctor(config: Config | ConfigError, args: argparse.Namespace) -> int:
    """1 for a problem (a configuration it cannot load is one), 64 for a user that cannot be used."""
    from pbm.config import Config
    from pbm.upkeep import doctor
    try:
        user = doctor.User.named(args.user)
    except KeyError:
        print(f"pbm: there is no user {args.user}", file=sys.stderr)
        return EX_USAGE
    if user.uid != os.geteuid() and os.geteuid() != 0:
        print(f"pbm: only root can check as another user ({args.user})", file=sys.stderr)
        return EX_USAGE
    if not isinstance(config, Config):
        doctor.unreadable(config, user)
        return 1
    more = []
    if args.dns:
        from pbm.upkeep import dns_records
        more.append(("dns", dns_records.check(args.nameserver)))
    return EX_OK if doctor.run(config, user=user, more=more) else 1


def _dkim(config: Config, args: argparse.Namespace) -> int:
    """`pbm dkim new SELECTOR`: the key in data_dir/dkim/SELECTOR.pem, and what to do with it."""
    from pbm.outbox import signing

    path = signing.key_path(config, args.selector, None)
    try:
        signing.new_key(path, args.ed25519)
    except FileExistsError:
        print(f"pbm: {path} exists (its record may be published): choose another selector", file=sys.stderr)
        return EX_USAGE
    print(f"made {path}; publish this record, then set [outbound] "
          f"{'dkim_ed25519_selector' if args.ed25519 else 'dkim_selector'} = \"{args.selector}\":\n"
          f"{signing.dns_record(path, args.selector, signing.domain(config))}")
    return EX_OK


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


def _outbox(config: Config, args: argparse.Namespace) -> int:
    from pbm.model.store import open_db
    from pbm.outbox import queue, sending

    db = open_db(config)
    if args.action == "flush":
        report = sending.send_due(db, config, force=True)
        print(f"sent {report.sent}, to retry {report.retrying}, failed {report.failed}")
        return EX_OK if not report.retrying and not report.failed else EX_TEMPFAIL
    if args.action == "show":
        return _show(db, args.ids)
    counts = queue.counts(db)
    print(", ".join(f"{status} {counts.get(status, 0)}"
                    for status in ("queued", "sending", "sent", "failed")))
    from pbm.outbox import streams
    print("\n".join(f"{stream}: {line}" for stream, line in streams.summary(db).items()))
    rows = queue.listing(db, args.status, args.limit)
    if rows:
        print(f"{'ID':>6}  {'STATUS':<7} {'TRIES':>5}  {'WHEN (UTC)':<19}  {'TO':<30}  SUBJECT")
    for row in rows:
        when = {"sent": row["sent_at"], "queued": row["next_attempt_at"]}.get(row["status"], row["queued_at"])
        print(f"{row['id']:>6}  {row['status']:<7} {row['attempts']:>5}  {when[:19]:<19}  "
              f"{row['recipient']:<30}  {row['subject']}")
        if row["last_error"] and row["status"] != "sent":
            print(f"{'':8}{row['last_error']}")
    return EX_OK


def _show(db, ids: list[int]) -> int:
    """`pbm outbox show ID...`: each reply as a reader sees it, its headers and its text part."""
    from email import message_from_bytes, policy

    if not ids:
        print("pbm: which replies? `pbm outbox show ID...` (see `pbm outbox`)", file=sys.stderr)
        return EX_USAGE
    status = EX_OK
    for reply_id in ids:
        row = db.execute("SELECT b.raw, o.recipient, o.subject, o.sent_at FROM outbox o "
                         "LEFT JOIN outbox_bodies b ON b.id = o.id WHERE o.id = ?", [reply_id]).fetchone()
        if row is None:
            print(f"pbm: there is no reply {reply_id} in the outbox", file=sys.stderr)
            status = EX_USAGE
            continue
        if row[0] is None:
            print(f"To: {row[1]}\nSubject: {row[2]}\nSent: {row[3]}\n\n(its body was dropped "
                  f"[server] retention_days after it was sent)\n")
            continue
        mail = message_from_bytes(row[0], policy=policy.default)
        for name in ("From", "To", "Reply-To", "Subject", "Date"):
            if mail[name]:
                print(f"{name}: {mail[name]}")
        body = mail.get_body(preferencelist=("plain",))
        print()
        print(body.get_content().rstrip("\n") if body is not None else "(no text part)")
        attached = [part.get_filename() for part in mail.iter_attachments() if part.get_filename()]
        if attached:
            print(f"\n(attached: {', '.join(attached)})")
        print()
    return status


def _inbound(config: Config, args: argparse.Namespace) -> int:
    """`pbm inbound failed` lists what `pbm inbound retry ID...` can run again once fixed."""
    from pbm import intake, logs
    from pbm.model.server import received
    from pbm.model.store import open_db
    from pbm.outbox import sending

    db = open_db(config)
    if args.action == "failed":
        rows = received.failed(db)
        if not rows:
            print("none: no message has failed with an internal error")
        for row in rows:
            error = (row["detail"] or "").partition("\n")[0]
            print(f"{row['id']:>6}  {row['received_at'][:19]}  {row['sender'] or '-'}  "
                  f"{row['message_id'] or '-'}  {error}")
        return EX_OK
    if not args.ids:
        print("pbm: which messages? `pbm inbound retry ID...` (see `pbm inbound failed`)", file=sys.stderr)
        return EX_USAGE
    status = EX_OK
    for inbound_id in args.ids:
        try:
            result = intake.retry(db, config, inbound_id)
        except LookupError as e:
            print(f"pbm: {e}", file=sys.stderr)
            status = EX_USAGE
            continue
        except Exception as e:
            print(f"pbm: inbound {inbound_id} failed again, nothing changed:\n"
                  f"{logs.describe_exception(e)}", file=sys.stderr)
            status = EX_SOFTWARE
            continue
        print(f"inbound {inbound_id}: processed, {len(result.outbox_ids)} replies queued")
        sending.send_due(db, config, ids=result.outbox_ids)
    return status


def _user(config: Config, args: argparse.Namespace) -> int:
    """An administrator resets a password: a one-time code for the player, who sets a new password
    with it by mail (the code is printed here, for a player who cannot get mail at their address)."""
    from datetime import datetime, timezone

    from pbm.model.players import accounts, resets
    from pbm.model.db import transaction
    from pbm.model.store import open_db

    db = open_db(config)
    user = accounts.get(db, args.user_id)
    if user is None or user.closed:
        print(f"pbm: there is no user {args.user_id}", file=sys.stderr)
        return EX_USAGE
    with transaction(db):
        code = resets.issue(db, config.secret, user.id, datetime.now(timezone.utc), 0, own=False, force=True)
    print(f"One-time code for {user.id}, valid for a day: {code}\n"
          f"The player sets a new password by mailing the subject:\n"
          f"    password set {user.id} {code} NEWPASSWORD")
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
