"""Who can reach the LMTP socket: the group the MTA connects as, from the modes and by trying.

Postfix's `lmtp` client runs as user `postfix`, group `postfix`: the socket's folders must let
that group through and the socket let it write.  `[lmtp] socket_group` names the group; unset, the
group of the socket's folder (docs/operating.md: that folder is owned pbm:postfix and setgid, so
the socket is made with that group).
"""
from __future__ import annotations

import errno
import grp
import os
import pwd
import socket
import stat
from collections.abc import Callable
from pathlib import Path

from pbm.config import Config, ConfigError

NOBODY = 65534      # the user the connection is tried as: the group alone lets it in, or nothing


def group_of(config: Config) -> int:
    """The gid the LMTP socket is given: `[lmtp] socket_group`, else its folder's group.
    ConfigError if the group does not exist."""
    name = config.lmtp.socket_group
    if not name:
        return config.lmtp.socket.parent.stat().st_gid
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise ConfigError(f"[lmtp] socket_group: there is no group {name!r} on this machine") from None


def group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def describe(path: Path) -> str:
    """`srw-rw---- pbm:postfix`, as ls shows it."""
    st = path.stat()
    return f"{stat.filemode(st.st_mode)} {user_name(st.st_uid)}:{group_name(st.st_gid)}"


def barrier(path: Path, gid: int) -> Path | None:
    """The first of `path`'s folders (or `path` itself, a socket) that a process of group `gid`
    alone -- not their owner -- cannot pass: no search right on a folder, no write right on the
    socket.  None: the modes let the group through."""
    for folder in reversed(path.parents):
        if not _allows(folder, gid, stat.S_IXGRP, stat.S_IXOTH):
            return folder
    if path.exists() and not _allows(path, gid, stat.S_IWGRP, stat.S_IWOTH):
        return path
    return None


def who_can_connect(path: Path) -> str:
    """Who the socket's modes let in, in words: "user pbm and group postfix", "anyone"."""
    st = path.stat()
    if st.st_mode & stat.S_IWOTH and all(folder.stat().st_mode & stat.S_IXOTH for folder in path.parents):
        return "anyone"
    who = [f"user {user_name(st.st_uid)}"] * bool(st.st_mode & stat.S_IWUSR)
    who += [f"group {group_name(st.st_gid)}"] * bool(st.st_mode & stat.S_IWGRP)
    return " and ".join(who) or "root alone"


def _allows(path: Path, gid: int, group_bit: int, other_bit: int) -> bool:
    st = path.stat()
    return bool(st.st_mode & (group_bit if st.st_gid == gid else other_bit))


def try_as_group(path: Path, gid: int) -> str | None:
    """Connect to the socket as the MTA would, with group `gid` alone (and the user nobody); needs
    root.  None if the server greeted; else why not, as the kernel says it."""
    def connect() -> str | None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(path))
            greeting = sock.recv(512)
            sock.sendall(b"QUIT\r\n")
        return None if greeting.startswith(b"220") else f"the server greeted with {greeting[:80]!r}"
    return as_user(connect, NOBODY, gid, [])


def as_user(check: Callable[[], str | None], uid: int, gid: int, groups: list[int]) -> str | None:
    """What `check` says (a problem, or None) run in a child process with that user's ids and
    nothing else; an OSError is said in the kernel's words.  Needs root unless they are ours."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: write the outcome, then leave
        os.close(read)
        try:
            os.setgroups(groups)
            os.setgid(gid)
            os.setuid(uid)
            outcome = check() or ""
        except OSError as e:
            outcome = os.strerror(e.errno) if e.errno else str(e)
        except BaseException as e:                  # noqa: BLE001 -- whatever it is, say it
            outcome = f"{type(e).__name__}: {e}"
        finally:
            os.write(write, outcome.encode(errors="replace")[:4000])
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answers:
        outcome = answers.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return outcome or None


REFUSED = os.strerror(errno.ECONNREFUSED)


def cannot_give(config: Config, uid: int, gid: int, groups: list[int]) -> str | None:
    """Why `pbm serve`, run as that user (ids, groups), could not give its socket the group the
    MTA needs (a new file gets the folder's group if the folder is setgid, else the process's; only
    root or a member may change it to another); None if it can.  ConfigError for an unknown group."""
    folder = config.lmtp.socket.parent
    if not folder.is_dir() and not config.lmtp.socket_group:
        return None                                 # pbm serve makes it, with its own group
    wanted = group_of(config)
    setgid = folder.is_dir() and folder.stat().st_mode & stat.S_ISGID
    born = folder.stat().st_gid if setgid else gid
    if wanted in (born, gid, *groups) or uid == 0:
        return None
    user, group = user_name(uid), group_name(wanted)
    return (f"[lmtp] socket: user {user} cannot give {config.lmtp.socket} the group {group}: make "
            f"its folder setgid with that group (chown :{group} {folder}; chmod g+s {folder})")
