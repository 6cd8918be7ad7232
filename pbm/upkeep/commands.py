"""The operator's commands of `pbm` (pbm.cli): outbox, inbound, user, doctor, dkim, export, backup and
tournament check -- each reads the configuration the command line gave, does its one thing and
says what it found; none of them is imported by `pbm deliver` or `pbm serve`."""
from __future__ import annotations

import argparse
import os
import sys

from pbm.config import Config, ConfigError
from os import EX_DATAERR, EX_OK, EX_SOFTWARE, EX_TEMPFAIL, EX_USAGE


def backup(config: Config, args: argparse.Namespace) -> int:
    from pathlib import Path

    from pbm.model.store import open_db
    from pbm.upkeep import backup

    size = backup.backup(open_db(config), Path(args.file))
    print(f"{args.file}: {size} bytes")
    return EX_OK


def export(config: Config, args: argparse.Namespace) -> int:
    from pathlib import Path

    from pbm.model.store import open_db
    from pbm.upkeep import export

    dest = Path(args.dest)
    counts = export.export(open_db(config), dest, args.format, config.server.address,
                           Path(args.pgn) if args.pgn else dest / "pgn")
    print(", ".join(f"{name} {count}" for name, count in counts.items()))
    return EX_OK


def tournament(config: Config, args: argparse.Namespace) -> int:
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


def doctor(config: Config | ConfigError, args: argparse.Namespace) -> int:
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


def dkim(config: Config, args: argparse.Namespace) -> int:
    """`pbm dkim new SELECTOR`: the key in data_dir/dkim/SELECTOR.pem, and what to do with it."""
    from pbm.outbox import dkim_keys, signing

    path = signing.key_path(config, args.selector, None)
    try:
        dkim_keys.new_key(path, args.ed25519)
    except FileExistsError:
        print(f"pbm: {path} exists (its record may be published): choose another selector", file=sys.stderr)
        return EX_USAGE
    print(f"made {path}; publish this record, then set [outbound] "
          f"{'dkim_ed25519_selector' if args.ed25519 else 'dkim_selector'} = \"{args.selector}\":\n"
          f"{dkim_keys.dns_record(path, args.selector, signing.domain(config))}")
    return EX_OK


def outbox(config: Config, args: argparse.Namespace) -> int:
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
                         "LEFT JOIN outbox_messages b ON b.id = o.id WHERE o.id = ?", [reply_id]).fetchone()
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


def inbound(config: Config, args: argparse.Namespace) -> int:
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


def user(config: Config, args: argparse.Namespace) -> int:
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


