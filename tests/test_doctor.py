"""`pbm doctor`: says ok where things are right, and names what is wrong, with its fix and
exit status 1 -- file modes, a damaged database, a relay that does not answer or refuses the login,
a socket path that is not a socket; as root, what the MTA's user cannot read or make (`--user`)
and a socket the MTA's group cannot open.  The relay is a real aiosmtpd server with STARTTLS and
AUTH; the other user is `pbmtest` (support.users)."""
from __future__ import annotations

import os
import ssl
import stat
import subprocess

from support.relay import RELAY_PASSWORD, RELAY_USER
from support.users import user_python

from pbm.config import load_config
from pbm.upkeep import doctor as checks


def doctor(env, *args: str) -> tuple[int, str]:
    result = env.run("doctor", *args)
    return result.returncode, result.stdout.decode()


def test_a_healthy_installation(pbm_env):
    pbm_env.mail("help")                        # the database, the secret and the Maildir exist
    code, out = doctor(pbm_env)
    assert code == 0, out
    assert "file modes:    ok" in out and "database:      ok" in out and "templates:     ok" in out
    assert "note: replies go into the Maildir" in out and "everything looks right" in out


def test_file_modes_and_a_damaged_database(pbm_env):
    pbm_env.mail("help")
    database = pbm_env.data_dir / "pbm.sqlite3"
    database.chmod(0o644)
    code, out = doctor(pbm_env)
    assert code == 1 and f"{database} is 0644, readable by others: chmod 600 {database}" in out
    database.chmod(0o600)
    pbm_env.query("PRAGMA wal_checkpoint(TRUNCATE)")        # every page in the file itself
    data = bytearray(database.read_bytes())
    for page in range(1, 12):                       # scribble over the type of some b-tree pages
        data[page * 4096] = 0x33
    database.write_bytes(bytes(data))
    code, out = doctor(pbm_env)
    assert code == 1 and "restore it from a backup" in out


def test_the_relay_with_starttls_and_auth(relay_env, certificate):
    env, start = relay_env
    code, out = doctor(env)
    assert code == 1 and "relay 127.0.0.1" in out and "check [outbound] host, port" in out  # nobody there
    cert, key = certificate
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    start(tls=tls)
    env.configure(outbound={"host": "localhost", "starttls": True, "ca_file": str(cert),
                            "username": RELAY_USER, "password": "wrong-password"})
    code, out = doctor(env)
    assert code == 1 and "535" in out and "username and password" in out
    assert "wrong-password" not in out
    env.configure(outbound={"password": RELAY_PASSWORD})
    code, out = doctor(env)
    assert "relay:         ok" in out, out


def test_an_lmtp_path_that_is_not_a_socket(pbm_env):
    path = pbm_env.root / "lmtp.sock"
    path.write_text("")
    pbm_env.configure(lmtp={"socket": str(path)})
    code, out = doctor(pbm_env)
    assert code == 1 and "is not a socket; remove it" in out


def test_the_verdict_on_the_default_address_is_the_same_with_a_file_or_without(tmp_path, monkeypatch):
    """Each line reads "name: verdict"; no LMTP socket is said to be unused, not "ok"; the default
    pbm@localhost is a problem whether it comes from the built-in defaults or from a file."""
    monkeypatch.chdir(tmp_path)
    config_file = tmp_path / "pbm.toml"
    config_file.write_text("[storage]\nbusy_timeout = 5\n")
    for config in (load_config(None), load_config(config_file)):
        lines: list[str] = []
        assert checks.run(config, lines.append) is False
        said = "\n".join(lines)
        assert "configuration: " in said and "[server] address is pbm@localhost, which no player" in said
        assert f"the data (database, secret, outbox) lives in {tmp_path / 'var'}" in said
        assert "lmtp:          note: not used (no [lmtp] socket" in said


def test_what_the_mta_s_user_cannot_read_or_create_is_named(open_pbm_env):
    """`--user`: the user of the MTA's pipe (user=pbm), who must read the configuration and make
    the data folder; a folder pbm can make later is a note, not a problem (exit 0)."""
    pbm_env, user = open_pbm_env
    home = pbm_env.root / "home"
    home.mkdir()
    pbm_env.configure(storage={"data_dir": str(home / "var")}, server={"address": "pbm@pbm.test"})
    pbm_env.config_path.chmod(0o600)
    code, out = doctor(pbm_env, "--user", user.pw_name)
    assert code == 1
    assert (f"user {user.pw_name} cannot read {pbm_env.config_path} (-rw------- root:root): Permission "
            f"denied; chown {user.pw_name}: {pbm_env.config_path}; chmod 600") in out
    assert (f"{home / 'var'} does not exist, and user {user.pw_name} cannot create it in {home} "
            f"(drwxr-xr-x root:root): Permission denied; install -d -o {user.pw_name} -m 700") in out
    os.chown(pbm_env.config_path, user.pw_uid, user.pw_gid)
    os.chown(home, user.pw_uid, user.pw_gid)
    code, out = doctor(pbm_env, "--user", user.pw_name)
    assert code == 0, out
    assert "note: " + str(home / "var") + " does not exist yet: pbm creates it" in out


def test_a_data_folder_the_user_cannot_write(open_pbm_env):
    pbm_env, user = open_pbm_env
    pbm_env.configure(server={"address": "pbm@pbm.test"})
    pbm_env.mail("help")                        # made by root: the pipe's user cannot write it
    os.chown(pbm_env.config_path, user.pw_uid, user.pw_gid)
    code, out = doctor(pbm_env, "--user", user.pw_name)
    assert code == 1
    assert (f"user {user.pw_name} cannot write {pbm_env.data_dir} (drwx------ root:root): Permission "
            f"denied; chown -R {user.pw_name}: {pbm_env.data_dir}") in out


def test_a_delivery_to_a_folder_it_cannot_make_says_so_in_one_sentence(open_pbm_env):
    pbm_env, user = open_pbm_env
    home = pbm_env.root / "home"
    home.mkdir()
    pbm_env.configure(storage={"data_dir": str(home / "var")})
    pbm_env.config_path.chmod(0o644)
    result = subprocess.run([user_python(user), "-m", "pbm", "--config", str(pbm_env.config_path),
                             "deliver"], input=bytes(pbm_env.message("help")), capture_output=True,
                            user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd=pbm_env.root)
    assert result.returncode == 75
    [line] = result.stderr.decode().splitlines()
    assert line.endswith(f"ERROR pbm: user {user.pw_name} cannot create or write {home / 'var'} "
                         f"(Permission denied), so the message is not recorded; exit 75 so that the "
                         f"MTA retries (pbm doctor --user {user.pw_name} says what to change)")


def test_the_lmtp_socket_gets_the_mta_s_group_and_doctor_tries_it(open_pbm_env):
    """`[lmtp] socket_group` unset: the group of the socket's folder; doctor connects as that
    group (as root), and names the folder or socket that group cannot pass."""
    pbm_env, user = open_pbm_env
    folder = pbm_env.root / "spool"
    folder.mkdir(mode=0o750)
    os.chown(folder, 0, user.pw_gid)             # the "MTA's" group; not setgid: pbm serve sets it
    path = folder / "lmtp.sock"
    pbm_env.configure(lmtp={"socket": str(path)}, server={"address": "pbm@pbm.test"})
    server = pbm_env.start_server()
    assert (path.stat().st_gid, stat.S_IMODE(path.stat().st_mode)) == (user.pw_gid, 0o660)
    code, out = doctor(pbm_env)
    assert (f"lmtp:          note: tried as group {user.pw_name} ([lmtp] socket_group, else the "
            f"folder's): pbm serve answers") in out
    assert f"only user root and group {user.pw_name} can connect" in out
    path.chmod(0o600)
    code, out = doctor(pbm_env)
    assert code == 1 and (f"the MTA's group {user.pw_name} cannot connect to {path} (srw------- "
                          f"root:{user.pw_name}): restart pbm serve") in out
    path.chmod(0o660)
    folder.chmod(0o700)
    code, out = doctor(pbm_env)
    assert code == 1 and f"the MTA's group {user.pw_name} cannot enter {folder} (drwx------" in out
    server.stop()
    pbm_env.configure(lmtp={"socket_group": "no-such-group"})
    code, out = doctor(pbm_env)
    assert code == 1 and "[lmtp] socket_group: there is no group 'no-such-group' on this machine" in out


def test_pbm_serve_that_cannot_give_the_socket_its_group_says_so(open_pbm_env):
    """Not setgid, and the pbm user no member of the group: pbm serve stops before it listens."""
    pbm_env, user = open_pbm_env
    folder = pbm_env.root / "spool"
    folder.mkdir(mode=0o750)
    os.chown(folder, user.pw_uid, 0)                # the group root, which pbmtest is not in
    pbm_env.configure(lmtp={"socket": str(folder / "lmtp.sock")})
    pbm_env.config_path.chmod(0o644)
    os.chown(pbm_env.root, user.pw_uid, user.pw_gid)
    result = subprocess.run([user_python(user), "-m", "pbm", "--config", str(pbm_env.config_path),
                             "serve"], capture_output=True, text=True, timeout=60, cwd=pbm_env.root,
                            user=user.pw_uid, group=user.pw_gid, extra_groups=[])
    assert result.returncode == 78
    assert result.stderr.endswith(
        f"pbm: [lmtp] socket: user {user.pw_name} cannot give {folder / 'lmtp.sock'} the group root: "
        f"make its folder setgid with that group (chown :root {folder}; chmod g+s {folder})\n")


def test_a_configuration_the_user_cannot_read_is_a_problem_it_names(open_pbm_env):
    pbm_env, user = open_pbm_env
    pbm_env.config_path.chmod(0o600)                # root's
    result = subprocess.run([user_python(user), "-m", "pbm", "--config", str(pbm_env.config_path),
                             "doctor"], capture_output=True, text=True, timeout=60, cwd=pbm_env.root,
                            user=user.pw_uid, group=user.pw_gid, extra_groups=[])
    assert (result.returncode, result.stdout.splitlines()) == (1, [
        f"configuration: cannot read config file {pbm_env.config_path}: Permission denied "
        f"(as user {user.pw_name})", "fix the problems above, then run pbm doctor again"])
