"""`pbm doctor`: what an operator checks before (and after) going live, in one command.

Each check prints `ok` or what is wrong and how to fix it; the exit status is 1 if anything is wrong,
and only then.  A note (a choice an operator may have made on purpose, such as replies into a
Maildir, or what is fine for now, such as a database not made yet) is printed but is not a
problem.  It reads and connects, and changes nothing (it does not create the database).

What pbm must read and write is checked as the user that runs it (`--user`: the MTA's pipe
`user=`, the cron jobs' and `pbm serve`'s user), the LMTP socket as the group the MTA connects as.
"""
from __future__ import annotations

import os
import pwd
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import rules
from pbm import clock
from pbm.config import Config, ConfigError
from pbm.mail import reading, stamps
from pbm.model.db import Database
from pbm.model.play import reviews
from pbm.model.players import subscriptions
from pbm.model.store import behind, lost
from pbm.outbox import streams
from pbm.review import engine
from pbm.upkeep import health, reach, replica

NOTE = "note: "
WIDTH = len("configuration: ")                 # of the column of the checks' names


@dataclass(frozen=True)
class User:
    """The user pbm runs as, whose rights the checks look at."""
    name: str
    uid: int
    gid: int
    groups: list[int]

    @classmethod
    def named(cls, name: str | None) -> User:
        """That user (KeyError if there is none); None: the one running pbm doctor."""
        entry = pwd.getpwuid(os.geteuid()) if name is None else pwd.getpwnam(name)
        if entry.pw_uid == os.geteuid():
            return cls(entry.pw_name, entry.pw_uid, os.getegid(), os.getgroups())
        return cls(entry.pw_name, entry.pw_uid, entry.pw_gid,
                   os.getgrouplist(entry.pw_name, entry.pw_gid))

    def cannot(self, action: Callable[[], None]) -> str | None:
        """Why this user cannot do `action` (an OSError's words), or None if it can."""
        if self.uid != os.geteuid():
            return reach.as_user(action, self.uid, self.gid, self.groups)
        try:
            action()
        except OSError as e:
            return e.strerror or str(e)
        return None


Check = Callable[[Config, User], Iterator[str]]    # yields problems, each with its fix, and notes


def run(config: Config, out: Callable[[str], None] = print, user: User | None = None,
        more: list[tuple[str, Check]] | None = None) -> bool:
    """Run every check and the `more` asked for (the DNS records: pbm.upkeep.dns_records), as `user`
    (default: the one running it); True if none found a problem."""
    user = user or User.named(None)
    healthy = True
    for name, check in [*CHECKS, *(more or [])]:
        found = list(check(config, user))
        healthy = healthy and all(line.startswith(NOTE) for line in found)
        out(f"{name + ':':<{WIDTH}}{found[0] if found else 'ok'}")
        for line in found[1:]:
            out(f"{'':<{WIDTH}}{line}")
    out("everything looks right" if healthy else "fix the problems above, then run pbm doctor again")
    return healthy


def unreadable(error: ConfigError, user: User, out: Callable[[str], None] = print) -> None:
    """What `pbm doctor` says of a configuration that cannot be loaded at all."""
    out(f"{'configuration:':<{WIDTH}}{error} (as user {user.name})")
    out("fix the problems above, then run pbm doctor again")


def _configuration(config: Config, user: User) -> Iterator[str]:
    if user.uid == 0:
        yield (f"{NOTE}checked as root, who may read and write everything: `pbm doctor --user pbm` "
               f"checks as the user the MTA runs `pbm deliver` as")
    if config.path is not None and (why := user.cannot(lambda: open(config.path, "rb").close())):
        yield (f"user {user.name} cannot read {config.path} ({reach.describe(config.path)}): {why}; "
               f"chown {user.name}: {config.path}; chmod 600 {config.path}")
    if config.path is None:
        yield (f"{NOTE}no configuration file: the built-in defaults; give one with --config FILE or "
               f"PBM_CONFIG (config/pbm.toml lists every key)")
    # relative paths are relative to the configuration file's folder (without one: the current
    # folder), so the data is not always where a first look expects it
    yield f"{NOTE}the data (database, secret, outbox) lives in {config.data_dir.resolve()}"
    if config.outbound.mode == "maildir":
        yield (f"{NOTE}replies go into the Maildir {config.outbox_maildir}, not to the players; to "
               f"send them, set [outbound] mode = \"smtp\" and the relay's host")
    if config.server.address.endswith("@localhost"):     # the default, with a file or without
        # a trial on one machine (the README's) is sound: nobody writes from elsewhere, and no
        # reply leaves; once replies go out, players must be able to answer them
        yield (("" if config.outbound.mode == "smtp" else NOTE)
               + f"[server] address is {config.server.address}, which no player elsewhere can write "
                 f"to: set the address players write to before replies go out")
    if not config.admins.users:
        yield (f"{NOTE}no [admins] users: nobody can adjudicate a game or hear an appeal against a "
               f"ruling, so appeals are refused; name an arbiter (a registered user id) to allow them")


def _file_modes(config: Config, user: User) -> Iterator[str]:
    data = config.data_dir
    if not data.exists():
        parent = next(folder for folder in data.parents if folder.exists())
        why = user.cannot(lambda: _writable(parent))
        if why:
            yield (f"{data} does not exist, and user {user.name} cannot create it in {parent} "
                   f"({reach.describe(parent)}): {why}; install -d -o {user.name} -m 700 {data}")
        else:
            yield f"{NOTE}{data} does not exist yet: pbm creates it (0700) on first use"
        return
    yield from _mode(data, 0o700, "chmod 700")
    for name in ("pbm.sqlite3", "pbm.sqlite3-wal", "pbm.sqlite3-shm", "secret"):
        if (data / name).exists():
            yield from _mode(data / name, 0o600, "chmod 600")
    for path in (data, *(data / name for name in ("pbm.sqlite3", "pbm.sqlite3-wal", "pbm.sqlite3-shm",
                                                  "secret"))):
        if path.exists() and (why := user.cannot(lambda: _writable(path))):
            yield (f"user {user.name} cannot write {path} ({reach.describe(path)}): {why}; "
                   f"chown -R {user.name}: {data}")
            break
    maildir = config.outbox_maildir
    for folder in (maildir, *(maildir / sub for sub in ("new", "cur", "tmp"))):
        if folder.exists():
            yield from _mode(folder, 0o700, "chmod 700")
    if config.path is not None and config.outbound.password:
        yield from _mode(config.path, 0o600, "chmod 600 (it holds the relay's password)")


def _writable(path: Path) -> None:
    """Raises PermissionError unless this process may write `path` (a folder: make files in it)."""
    if not os.access(path, os.R_OK | os.W_OK | (os.X_OK if path.is_dir() else 0)):
        raise PermissionError(13, "Permission denied")


def _mode(path: Path, most: int, fix: str) -> Iterator[str]:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & ~most:
        yield f"{path} is {mode:04o}, readable by others: {fix} {path}"


def _database(config: Config, user: User) -> Iterator[str]:
    from pbm.model.schema import MIGRATIONS
    path = config.data_dir / "pbm.sqlite3"
    problem = lost(config)
    if problem:
        yield problem
        return
    if not path.exists():
        yield f"{NOTE}no database at {path} yet: pbm creates it on first use"
        return
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=config.storage.busy_timeout)
        try:
            problem = behind(config, Database(db))
            if problem:
                yield problem
                return
            result = [row[0] for row in db.execute("PRAGMA integrity_check")]
            version = db.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as e:
        yield f"cannot read {path}: {e}; restore it from a backup"
        return
    if result != ["ok"]:
        yield f"{path} is damaged ({'; '.join(result[:3])}): stop pbm and restore it from a backup"
    elif health.marked(config):
        yield (f"{config.data_dir / health.MARKER} says the database was found damaged, and mail is "
               f"refused while it is there; the file is whole now: restart pbm serve, or remove it")
    if version != len(MIGRATIONS):
        yield (f"the database has schema version {version}, this pbm {len(MIGRATIONS)}: "
               f"{'pbm migrates it when it next opens it' if version < len(MIGRATIONS) else 'install the newer pbm that wrote it'}")


def _relay(config: Config, user: User) -> Iterator[str]:
    if config.outbound.mode != "smtp":
        yield f"{NOTE}not used ([outbound] mode is \"maildir\")"
        return
    from pbm.outbox.relay import check_relay
    problem = check_relay(config)
    if problem:
        out = config.outbound
        yield (f"{problem}; check [outbound] host, port ({out.host}:{out.port}), ssl/starttls"
               f"{', username and password' if out.username else ''}")


def _dkim(config: Config, user: User) -> Iterator[str]:
    """The DKIM keys can be read, by the user pbm runs as too: without them nothing is sent
    (pbm.outbox.signing).  Their DNS records: `pbm doctor --dns`."""
    if not config.outbound.dkim_selector:
        yield (f"{NOTE}replies are not DKIM-signed: pbm dkim new SELECTOR makes a key (docs/operating.md, "
               f"\"Getting into the inbox\")")
        return
    from pbm.outbox import signing
    try:
        signing.Signer(config)
    except signing.KeyProblem as e:
        yield f"{e}; nothing is sent until it can be"
        return
    for _selector, path in signing.configured(config):
        if why := user.cannot(lambda: open(path, "rb").close()):
            yield (f"user {user.name} cannot read the DKIM key {path} ({reach.describe(path)}): {why}; "
                   f"chown {user.name}: {path}; chmod 600 {path}")


def _templates(config: Config, user: User) -> Iterator[str]:
    try:
        from pbm.outbox import compose
        names = sorted(compose.load_templates())
        environment = compose.environment()
        for name in names:
            environment.get_template(name)
        compose.render("error.j2", what="command", command="xiangqi move 101 alice ********",
                       problem="A sample problem.", usage=["xiangqi move BOARD USERID PASSWORD MOVE"],
                       help_topic="move")
    except Exception as e:
        yield f"the mail templates do not render ({type(e).__name__}: {e}): reinstall pbm"


def _lmtp(config: Config, user: User) -> Iterator[str]:
    path = config.lmtp.socket
    if path is None:
        yield f"{NOTE}not used (no [lmtp] socket: pbm serve takes mail by SMTP only)"
        return
    if not path.parent.exists():
        yield f"[lmtp] socket: its folder {path.parent} does not exist; create it for pbm"
        return
    if path.exists() and not path.is_socket():
        yield f"[lmtp] socket: {path} exists and is not a socket; remove it"
        return
    try:
        gid = reach.group_of(config)
        problem = reach.cannot_give(config, user.uid, user.gid, user.groups)
    except ConfigError as e:
        yield str(e)
        return
    if problem:
        yield problem
    group = reach.group_name(gid)
    blocked = reach.barrier(path, gid)
    if blocked == path:
        yield (f"the MTA's group {group} cannot connect to {path} ({reach.describe(path)}): restart "
               f"pbm serve (it gives the socket [lmtp] socket_group) or set [lmtp] socket_mode = 0o660")
    elif blocked is not None:
        folder_group = reach.group_name(blocked.stat().st_gid)
        unset = (f"if the MTA's group is {folder_group}, leave [lmtp] socket_group unset (the "
                 f"socket then gets its folder's group); else "
                 if blocked == path.parent and config.lmtp.socket_group and folder_group != group else "")
        yield (f"the MTA's group {group} cannot enter {blocked} ({reach.describe(blocked)}), so it "
               f"cannot reach {path}: {unset}chown :{group} {blocked}; chmod g+x {blocked}")
    elif not path.exists():
        yield (f"{NOTE}no socket yet: pbm serve makes it at {path} when it starts; the MTA's group "
               f"{group} can reach its folder")
    elif os.geteuid() != 0:
        yield (f"{NOTE}by its modes, {reach.who_can_connect(path)} can connect to {path}: the MTA "
               f"must run as one of them; as root, pbm doctor tries it as group {group}")
    elif (why := reach.try_as_group(path, gid)) == reach.REFUSED:
        yield f"{NOTE}nobody listens on {path}: the MTA defers mail there until pbm serve runs"
    elif why:
        yield f"the MTA's group {group} cannot connect to {path} ({reach.describe(path)}): {why}"
    else:
        yield (f"{NOTE}tried as group {group} ([lmtp] socket_group, else the folder's): pbm serve "
               f"answers on {path}; only {reach.who_can_connect(path)} can connect, so the MTA "
               f"must run as one of them")


def _replica(config: Config, user: User) -> Iterator[str]:
    """The Litestream replica's lag, where one is configured."""
    if not config.storage.litestream_config:
        return
    current, line = replica.lag(config)
    yield f"{NOTE}{line}" if current else line


def _outages(config: Config, user: User) -> Iterator[str]:
    """The last outage of the server (a gap between heartbeats, credited to the clocks), and
    whether the timers still run."""
    path = config.data_dir / "pbm.sqlite3"
    if not path.exists():
        return
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=config.storage.busy_timeout)
        try:
            last = db.execute("SELECT started_at, ended_at FROM outages ORDER BY id DESC LIMIT 1").fetchone()
            beat = db.execute("SELECT at FROM heartbeats WHERE name = 'timers'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:               # an older schema: pbm migrates it when it next opens it
        return
    if last:
        hours = (datetime.fromisoformat(last[1]) - datetime.fromisoformat(last[0])) / timedelta(hours=1)
        yield (f"{NOTE}the last outage: no heartbeat from {last[0][:16]} to {last[1][:16]} UTC "
               f"({hours:.1f} hours), given back to every running clock")
    if beat is None:
        yield f"{NOTE}the timers have not run yet (pbm serve runs them; else pbm timers from cron)"
    elif clock.now() - datetime.fromisoformat(beat[0]) > timedelta(hours=config.clocks.outage_after):
        yield (f"the timers last ran at {beat[0][:16]} UTC: start pbm serve, or run pbm timers from "
               f"cron at least every {config.clocks.outage_after:g} hours")


STAMPS_READ = 50                # the last messages taken whose MX line `_move_times` looks for


def _move_times(config: Config, user: User) -> Iterator[str]:
    """Whether the mail taken carries the `Received:` line of `[security] authserv_id`, whose time
    the moves go by (pbm.mail.stamps); without it pbm times them by its own arrival."""
    mx = config.security.authserv_id
    path = config.data_dir / "pbm.sqlite3"
    if not mx or not path.exists():
        return
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=config.storage.busy_timeout)
        try:
            kept = [row[0] for row in db.execute("SELECT raw FROM inbound WHERE status = 'processed' "
                                                 "ORDER BY id DESC LIMIT ?", [STAMPS_READ])]
        finally:
            db.close()
    except sqlite3.Error:               # an older schema: pbm migrates it when it next opens it
        return
    unstamped = sum(stamps.reached_mx(reading.parse(raw), mx) is None for raw in kept)
    if unstamped:
        line = (f"{unstamped} of the last {len(kept)} messages carry no Received: line written by {mx} "
                f"([security] authserv_id): their moves are timed by pbm's own arrival, not the MX's; "
                f"make the MX name itself the same in both (OpenDMARC's AuthservID as Postfix's "
                f"myhostname), or set authserv_id to the name its Received: line gives after \"by\"")
        yield line if unstamped == len(kept) else NOTE + line


def _streams(config: Config, user: User) -> Iterator[str]:
    """Bounces and complaints of the last 30 days per stream (pbm.outbox.streams): a problem past
    the complaint rate Gmail tolerates, 0.3%, a note below it."""
    if not config.web.base_url.startswith("https://"):
        yield (("" if config.outbound.mode == "smtp" else NOTE)
               + "subscribed mail offers no one-click unsubscribe (RFC 8058), which Gmail wants of a "
                 "sender of 5,000 mails a day: serve the pages ([web] listen) on an https:// base_url")
    path = config.data_dir / "pbm.sqlite3"
    if not path.exists():
        return
    since = clock.now() - timedelta(days=30)
    try:
        db = Database(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=config.storage.busy_timeout))
        try:
            counts, said = subscriptions.counts(db, since), streams.summary(db, since)
        finally:
            db.close()
    except sqlite3.Error:               # an older schema: pbm migrates it when it next opens it
        return
    for stream, words in said.items():
        sent, complaints = counts.get((stream, "sent"), 0), counts.get((stream, "complaint"), 0)
        line = f"{stream} mail in 30 days: {words}"
        if sent and complaints / sent >= COMPLAINT_RATE:
            yield (f"{line}: the complaint rate {complaints / sent:.1%} is past {COMPLAINT_RATE:.1%}, "
                   f"above which Gmail refuses mail; find what readers mark as spam")
        else:
            yield f"{NOTE}{line}"


COMPLAINT_RATE = 0.003                  # Gmail's limit (docs/operating.md, "Getting into the inbox")


def _review(config: Config, user: User) -> Iterator[str]:
    """The engine answers a search of Xiangqi's start (as the workers start it), and the reviews whose
    last attempt failed, with the engine's words."""
    argv = engine.command(config)
    if argv is None:
        yield (f"{NOTE}no engine, so no reviews of finished games: {engine.INSTALL} (Debian puts it in "
               f"/usr/games), or set [review] engine to a UCI engine's command")
        return
    settings = engine.Settings(tuple(argv), 1000, 1, 16, config.review.timeout)
    try:
        with engine.Engine(settings, "xiangqi") as probe:
            probe.evaluate(rules.Game.new("xiangqi").fen(), [])
    except engine.EngineError as e:
        yield f"[review] engine {' '.join(argv)}: {e}; reviews wait until it works"
    path = config.data_dir / "pbm.sqlite3"
    if path.exists() and not lost(config):
        try:
            db = Database(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=config.storage.busy_timeout))
            try:
                failed = reviews.failures(db)
            finally:
                db.close()
        except sqlite3.Error:
            failed = []                  # the database check says what is wrong with it
        for game_id, attempts, error in failed:
            yield f"the review of game {game_id} failed ({attempts} attempts), to be tried again: {error}"

CHECKS: list[tuple[str, Check]] = [
    ("configuration", _configuration),
    ("file modes", _file_modes),
    ("database", _database),
    ("relay", _relay),
    ("dkim", _dkim),
    ("templates", _templates),
    ("lmtp", _lmtp),
    ("replica", _replica),
    ("review", _review),
    ("outages", _outages),
    ("move times", _move_times),
    ("streams", _streams),
]
