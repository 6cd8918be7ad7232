"""The server's configuration: one TOML file, every key with a default.

`pbm serve` runs with no file at all.  Keys mirror the file: `config.smtp.listen` is `listen` in
`[smtp]`.  Unknown sections and keys are refused, so a typo is an error instead of a silently ignored
setting.  Relative paths resolve against the directory of the config file (or the working directory
when there is none), so a config file and its data can move together.  config/pbm.toml documents
every key.
"""
from __future__ import annotations

import dataclasses
import os
import secrets
import tomllib
import typing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pbm import Later


class ConfigError(ValueError):
    """The configuration file cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class ServerSection:
    """The [server] table of the configuration file (docs/operating.md)."""
    address: str = "pbm@localhost"
    name: str = "pbm"
    secret: str = field(default="", repr=False)   # "" = random, kept in data_dir/secret
    log_level: str = "INFO"
    timer_interval: float = 60.0        # seconds between runs of the game timers in `pbm serve`
    challenge_days: float = 14.0        # a challenge not taken up within this is cancelled
    min_timeout_days: float = 1.0       # the shortest --timeout a challenge may set
    challenge_needs_password: bool = False
    password_failures: int = 5          # failed passwords per user id or sender in ...
    password_window_minutes: float = 15.0   # ... this window; then answers stop, back-off doubles
    retention_days: float = 30.0        # raw bodies of processed messages are purged after this
    vacation_days: float = 30.0         # days of vacation a player may take per calendar year
    seek_days: float = 7.0              # an open challenge (seek) nobody took is withdrawn after this
    tournament_directors: list[str] = field(default_factory=list)   # who may create; empty: anyone
    challenges_per_mail: int = 3        # challenges carried out from one mail
    challenges_pending_per_player: int = 3  # a challenger's challenges to one player not yet taken up
    challenges_pending: int = 20        # a challenger's challenges not yet taken up, to anyone
    challenges_per_day: int = 20        # challenges one user may make in a day
    challenges_waiting: int = 5         # challenges waiting for one player, from all challengers
    reset_codes_per_day: int = 3        # reset codes mailed to one user in a day, however many ask
    signups_per_day: int = 3            # accounts made from one sender address in a day
    answers_per_day: int = 5            # mails to one address that is no player's in a day
    comment_chars: int = 4000           # characters of a comment, chat or appeal; the rest is cut
    tournaments_per_week: int = 2       # tournaments one user may create in a week
    tournament_players: int = 64        # entrants of one tournament, at most


@dataclass(frozen=True)
class StorageSection:
    """The [storage] table of the configuration file (docs/operating.md)."""
    data_dir: Path = Path("var")
    busy_timeout: float = 10.0          # seconds to wait for another process's write lock
    reserve_mb: float = 64.0            # below this free space, new mail is refused (452 / 75)
    check_minutes: float = 60.0         # `pbm serve` checks the database (quick_check) this often
    litestream_config: str = ""         # Litestream's configuration file: `pbm doctor` reports the lag


class _Listening:
    """A section whose `listen` is HOST:PORT."""
    listen: str

    @property
    def host(self) -> str:
        return _split_listen(self.listen)[0]

    @property
    def port(self) -> int:
        return _split_listen(self.listen)[1]


@dataclass(frozen=True)
class SmtpSection(_Listening):
    """The [smtp] table of the configuration file (docs/operating.md)."""
    listen: str = "127.0.0.1:2525"
    max_message_size: int = 25 * 1024 * 1024
    hostname: str = ""                  # name in the SMTP greeting; "" = the machine's name
    processes: int = 0                  # SMTP processes besides the main one; 0 = it speaks SMTP


@dataclass(frozen=True)
class OutboundSection:
    """The [outbound] table of the configuration file (docs/operating.md)."""
    mode: str = "maildir"               # "maildir" or "smtp"
    maildir: Path | None = None         # default: data_dir/outbox
    host: str = "localhost"
    port: int = 25
    ssl: bool = False                   # implicit TLS (port 465)
    starttls: bool = False
    ca_file: str = ""                   # CA bundle to verify the relay with; "" = system CAs
    username: str = ""
    password: str = field(default="", repr=False)
    timeout: float = 30.0
    retry_base: float = 60.0            # first retry after this many seconds, then doubling ...
    retry_max: float = 3600.0           # ... up to this many seconds between attempts ...
    give_up_after: float = 5 * 86400.0  # ... and failed for good this long after it was queued
    # Getting into the inbox (pbm.outbox.streams, pbm.outbox.signing, docs/operating.md)
    bounce_address: str = ""            # envelope sender, +STREAM tagged; "" = [server] address
    dkim_selector: str = ""             # DKIM rsa-sha256 (or Ed25519) signature; "" = no signature
    dkim_key: Path | None = None        # its private key (PEM); default data_dir/dkim/SELECTOR.pem
    dkim_domain: str = ""               # the signature's d=; "" = the domain of [server] address
    dkim_ed25519_selector: str = ""     # a second signature, ed25519-sha256 (RFC 8463); "" = none
    dkim_ed25519_key: Path | None = None    # default data_dir/dkim/SELECTOR.pem
    sending_ip: str = ""                # the public IP mail leaves from: `pbm doctor --dns` checks its PTR


@dataclass(frozen=True)
class SecuritySection:
    """The [security] table of the configuration file (docs/operating.md)."""
    authserv_id: str = ""               # the MTA whose Authentication-Results header is trusted
    require_dmarc: bool = False         # a From's privileges need that MTA's DMARC (or aligned) pass


@dataclass(frozen=True)
class ClocksSection:
    """The [clocks] table of the configuration file (docs/operating.md)."""
    outage_after: float = 2.0           # hours without a heartbeat that make an outage, credited to clocks
    digest_hour: int = 6                # UTC hour of the daily digest (the first timer run at or after it)
    max_hold: float = 6.0               # hours a move's MX time may lie before pbm took the mail


@dataclass(frozen=True)
class AdminsSection:
    """The [admins] table of the configuration file (docs/operating.md)."""
    users: list[str] = field(default_factory=list)
    notify: list[str] = field(default_factory=list)   # addresses told about internal errors


@dataclass(frozen=True)
class LmtpSection:
    """The [lmtp] table of the configuration file (docs/operating.md)."""
    socket: Path | None = None          # a Unix socket for LMTP from the local MTA; None = none
    socket_mode: int = 0o660            # who may connect: the MTA's group (see docs/operating.md)
    socket_group: str = ""              # the MTA's group; "" = the group of the socket's folder


@dataclass(frozen=True)
class ImapSection:
    """The [imap] table of the configuration file (docs/operating.md)."""
    host: str = "localhost"
    port: int = 993
    ssl: bool = True
    starttls: bool = False
    ca_file: str = ""
    username: str = ""
    password: str = field(default="", repr=False)
    mailbox: str = "INBOX"
    done_mailbox: str = ""              # "" = flag processed mail \Seen instead of moving it
    interval: float = 60.0              # seconds between polls of `pbm poll` without --once


@dataclass(frozen=True)
class WebSection(_Listening):
    """The [web] table of the configuration file (docs/operating.md)."""
    listen: str = ""                    # HOST:PORT of the read-only game pages; "" = no pages
    base_url: str = ""                  # the pages' URL as players reach it (behind a proxy, say)
    connections: int = 256              # open connections to the pages, at most (more: closed at once)
    connections_per_address: int = 32   # ... from one client address
    head_timeout: float = 10.0          # seconds a connection may take to send a whole request


@dataclass(frozen=True)
class ReviewSection:
    """The [review] table of the configuration file (docs/operating.md)."""
    engine: str = ""                    # a UCI engine's command; "" = fairy-stockfish on PATH or in /usr/games
    nodes: int = 1_000_000              # searched per position: fixed, so a review is the same every time
    threads: int = 1                    # the engine's Threads (more than 1 makes reviews differ run to run)
    hash: int = 64                      # the engine's Hash, in MB
    timeout: float = 60.0               # seconds one position may take before the engine counts as hung
    workers: int = 1                    # review processes `pbm serve` runs (nice); 0 = remote workers only
    per_day: int = 20                   # reviews one player may ask for in a day
    keys: list[str] = field(default_factory=list, repr=False)   # keys of remote workers (`pbm review --server`)


SECTIONS: dict[str, type] = {
    "server": ServerSection,
    "storage": StorageSection,
    "smtp": SmtpSection,
    "outbound": OutboundSection,
    "admins": AdminsSection,
    "imap": ImapSection,
    "lmtp": LmtpSection,
    "security": SecuritySection,
    "clocks": ClocksSection,
    "web": WebSection,
    "review": ReviewSection,
}


@dataclass(frozen=True, eq=False)
class Config:
    """The whole configuration, read once (`load_config`)."""
    server: ServerSection
    storage: StorageSection
    smtp: SmtpSection
    outbound: OutboundSection
    admins: AdminsSection
    imap: ImapSection
    lmtp: LmtpSection
    security: SecuritySection
    clocks: ClocksSection
    web: WebSection = field(default_factory=WebSection)
    review: ReviewSection = field(default_factory=ReviewSection)
    path: Path | None = None            # the file it was read from, if any

    @property
    def data_dir(self) -> Path:
        return self.storage.data_dir

    @property
    def outbox_maildir(self) -> Path:
        return self.outbound.maildir or self.storage.data_dir / "outbox"

    @cached_property
    def secret(self) -> bytes:
        """The HMAC key for reply tokens: configured, or random and kept in data_dir/secret.

        Created on first use, not on load, so read-only commands leave the data directory alone.
        """
        if self.server.secret:
            return self.server.secret.encode()
        return _persistent_secret(self.storage.data_dir / "secret")


def load_config(path: str | os.PathLike | None) -> Config:
    """Read the TOML file at `path` (None: defaults only) and return a checked Config."""
    if path is None:
        data: dict = {}
        base = Path.cwd()
        source = None
    else:
        source = Path(path).resolve()
        try:
            with open(source, "rb") as f:
                data = tomllib.load(f)
        except OSError as e:
            raise ConfigError(f"cannot read config file {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: {e}") from None
        base = source.parent
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"{path}: unknown section [{unknown[0]}]; known: {', '.join(SECTIONS)}")
    sections = {name: _section(cls, name, data.get(name, {}), base, path)
                for name, cls in SECTIONS.items()}
    config = Config(**sections, path=source)
    _check(config, path)
    return config


def _section(cls: type, name: str, values: object, base: Path, path: object):
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key {key!r} in [{name}]; known: {', '.join(sorted(known))}")
        kwargs[key] = _coerce(value, hints[key], f"[{name}] {key}", base, path)
    for f in dataclasses.fields(cls):   # default relative paths resolve like configured ones
        if f.name not in kwargs and hints[f.name] is Path:
            kwargs[f.name] = base / f.default
    return cls(**kwargs)


def _coerce(value: object, hint: object, where: str, base: Path, path: object) -> object:
    """Check `value` against the field's type; resolve paths; accept ints for floats."""
    if hint in (Path, Path | None):
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{path}: {where} must be a non-empty path string")
        return base / Path(value).expanduser()
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint == list[str]:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise ConfigError(f"{path}: {where} must be a list of strings")
    if type(value) is not hint:
        raise ConfigError(f"{path}: {where} must be a {getattr(hint, '__name__', hint)}, not {value!r}")
    return value


def _check(config: Config, path: object) -> None:
    if config.outbound.mode not in ("maildir", "smtp"):
        raise ConfigError(f"{path}: [outbound] mode must be \"maildir\" or \"smtp\"")
    if config.outbound.ssl and config.outbound.starttls:
        raise ConfigError(f"{path}: [outbound] ssl and starttls exclude each other")
    if "@" not in config.server.address:
        raise ConfigError(f"{path}: [server] address must be a mail address, not {config.server.address!r}")
    if not 0 <= config.smtp.processes <= 64:
        raise ConfigError(f"{path}: [smtp] processes must be 0 to 64, not {config.smtp.processes}")
    if not 0 <= config.lmtp.socket_mode <= 0o777:
        raise ConfigError(f"{path}: [lmtp] socket_mode must be a file mode such as 0o660")
    if config.smtp.max_message_size < 1024:
        raise ConfigError(f"{path}: [smtp] max_message_size must be at least 1024 bytes")
    if config.outbound.sending_ip and not _is_ip(config.outbound.sending_ip):
        raise ConfigError(f"{path}: [outbound] sending_ip must be an IP address, not "
                          f"{config.outbound.sending_ip!r}")
    if not 0 <= config.clocks.digest_hour <= 23:
        raise ConfigError(f"{path}: [clocks] digest_hour must be an hour of the day, 0 to 23")
    if config.clocks.outage_after <= 0:
        raise ConfigError(f"{path}: [clocks] outage_after must be a number of hours above 0")
    if config.clocks.max_hold < 0:
        raise ConfigError(f"{path}: [clocks] max_hold must be a number of hours, 0 or more")
    if config.review.nodes < 1 or config.review.threads < 1 or config.review.hash < 1 or \
            config.review.timeout <= 0 or not 0 <= config.review.workers <= 64 or config.review.per_day < 0:
        raise ConfigError(f"{path}: [review] nodes, threads, hash and timeout must be above 0, workers 0 "
                          f"to 64, per_day 0 or more")
    for section, listen in (("smtp", config.smtp.listen), ("web", config.web.listen or "x:0")):
        try:
            _split_listen(listen)
        except ValueError:
            raise ConfigError(f"{path}: [{section}] listen must be HOST:PORT, not {listen!r}") from None
    if bool(config.web.listen) != bool(config.web.base_url) or not (
            config.web.base_url == "" or config.web.base_url.startswith(("http://", "https://"))):
        raise ConfigError(f"{path}: [web] listen and base_url go together, base_url an http:// or "
                          f"https:// URL (the pages as players reach them)")


# Loaded where `[outbound] sending_ip` is set, which most configurations leave out.
_IP_ADDRESS = Later("ipaddress:ip_address")


def _is_ip(text: str) -> bool:
    try:
        _IP_ADDRESS(text)
    except ValueError:
        return False
    return True


def _split_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(listen)
    return host.strip("[]"), int(port)


def _persistent_secret(path: Path) -> bytes:
    """Read the secret at `path`, creating it (mode 0600) if missing.

    Written to a temporary file and hard-linked into place, so two processes starting at once agree
    on one secret and nobody ever reads a half-written file.
    """
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".secret.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_hex(32).encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass                            # another process won the race; use its secret
    finally:
        os.unlink(tmp)
    return path.read_bytes().strip()
