"""`pbm doctor`: says ok where things are right, and names what is wrong, with its fix and
exit status 1 -- file modes, a damaged database, a relay that does not answer or refuses the login,
a socket path that is not a socket.  The relay is a real aiosmtpd server with STARTTLS and AUTH."""
from __future__ import annotations

import ssl

from support.relay import RELAY_PASSWORD, RELAY_USER

from pbm.config import load_config
from pbm.upkeep import doctor as checks


def doctor(env) -> tuple[int, str]:
    result = env.run("doctor")
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
    pbm@localhost is a note while replies stay in the Maildir (README's trial: exit 0) and a problem
    once they go out by SMTP, whether it comes from the built-in defaults or from a file."""
    monkeypatch.chdir(tmp_path)
    config_file = tmp_path / "pbm.toml"
    config_file.write_text("[storage]\nbusy_timeout = 5\n")
    sending = tmp_path / "sending.toml"
    sending.write_text("[outbound]\nmode = \"smtp\"\nhost = \"127.0.0.1\"\nport = 9\n")
    for config in (load_config(None), load_config(config_file)):
        lines: list[str] = []
        assert checks.run(config, lines.append) is True
        said = "\n".join(lines)
        assert "note: [server] address is pbm@localhost, which no player elsewhere can write to" in said
        assert "to send them, set [outbound] mode = \"smtp\" and the relay's host" in said
        assert "everything looks right" in said
        assert f"the data (database, secret, outbox) lives in {tmp_path / 'var'}" in said
        assert "lmtp:          note: not used (no [lmtp] socket" in said
    lines = []
    assert checks.run(load_config(sending), lines.append) is False
    assert "configuration: " in lines[0] and any(
        line.strip().startswith("[server] address is pbm@localhost, which no player") for line in lines)
