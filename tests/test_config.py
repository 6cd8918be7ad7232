"""pbm.config: defaults for every key, paths relative to the file, typos refused."""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from support.processes import REPO, pbm_environment

from pbm.config import ConfigError, load_config
from pbm.runners import handover

EXAMPLE = REPO / "config" / "pbm.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "etc" / "pbm.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None)
    assert config.server.address == "pbm@localhost"
    assert (config.smtp.host, config.smtp.port) == ("127.0.0.1", 2525)
    assert config.storage.data_dir == tmp_path / "var"
    assert config.outbox_maildir == tmp_path / "var" / "outbox"
    assert config.outbound.mode == "maildir" and config.admins.users == []
    assert config.imap.mailbox == "INBOX" and config.imap.done_mailbox == ""


def test_the_example_file_documents_every_key_with_its_default(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    assert load_config(EXAMPLE).server == load_config(None).server   # all commented out
    uncommented = re.sub(r"(?m)^# (\w+ = )", r"\1", text)
    config, defaults = load_config(write(tmp_path, uncommented)), load_config(write(tmp_path, ""))
    for section in ("server", "storage", "smtp", "outbound", "admins", "imap"):
        documented = set(re.findall(r"(?m)^(\w+) = ", uncommented.split(f"[{section}]")[1].split("\n[")[0]))
        assert documented == set(vars(getattr(defaults, section))), section
        if section != "outbound":
            assert getattr(config, section) == getattr(defaults, section), section
    # the key files' examples are where `pbm dkim new` puts them: data_dir/dkim/SELECTOR.pem
    assert replace(config.outbound, maildir=None, dkim_key=None, dkim_ed25519_key=None) == defaults.outbound
    assert config.outbound.dkim_key == config.data_dir / "dkim" / "pbm2026.pem"
    assert config.outbox_maildir == defaults.outbox_maildir


def test_relative_paths_resolve_against_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[storage]\ndata_dir = "data"\n[outbound]\nmaildir = "../mail"\n'))
    assert config.storage.data_dir == tmp_path / "etc" / "data"
    assert config.outbox_maildir.resolve() == tmp_path / "mail"
    assert load_config(write(tmp_path, "")).storage.data_dir == tmp_path / "etc" / "var"


def test_values(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[smtp]\nlisten = "[::1]:25"\n[outbound]\nretry_base = 5\n'
                                          '[admins]\nusers = ["root", "ops"]\n'))
    assert (config.smtp.host, config.smtp.port) == ("::1", 25)
    assert config.outbound.retry_base == 5.0 and isinstance(config.outbound.retry_base, float)
    assert config.admins.users == ["root", "ops"]


@pytest.mark.parametrize("text, message", [
    ("[sever]\n", "unknown section [sever]"),
    ("[smtp]\nlisen = \"x:1\"\n", "unknown key 'lisen' in [smtp]"),
    ("[smtp]\nmax_message_size = \"1M\"\n", "[smtp] max_message_size must be a int"),
    ("[outbound]\nstarttls = \"yes\"\n", "[outbound] starttls must be a bool"),
    ("[admins]\nusers = \"root\"\n", "[admins] users must be a list of strings"),
    ("[outbound]\nmode = \"sendmail\"\n", "[outbound] mode must be"),
    ("[outbound]\nssl = true\nstarttls = true\n", "exclude each other"),
    ("[server]\naddress = \"pbm\"\n", "[server] address must be a mail address"),
    ("[smtp]\nlisten = \"2525\"\n", "[smtp] listen must be HOST:PORT"),
    ("[server\n", "pbm.toml"),
])
def test_mistakes_are_refused_with_a_reason(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert message in str(error.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "nope.toml")


def test_pbm_reports_a_bad_config_and_exits_78(tmp_path: Path) -> None:
    path = write(tmp_path, "[sever]\n")
    result = subprocess.run([sys.executable, "-m", "pbm", "outbox"], capture_output=True, text=True,
                            env=pbm_environment(PBM_CONFIG=str(path)))
    assert result.returncode == 78
    assert "unknown section [sever]" in result.stderr


def test_runs_without_any_config_file(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "pbm", "outbox"], capture_output=True, text=True,
                            cwd=tmp_path, env=pbm_environment())
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "var" / "pbm.sqlite3").exists()


def test_secret_is_made_once_and_kept_private(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    config = load_config(path)
    secret_file = tmp_path / "etc" / "var" / "secret"
    assert not secret_file.exists()             # loading alone creates nothing
    secret = config.secret
    assert len(secret) == 64 and stat.S_IMODE(os.stat(secret_file).st_mode) == 0o600
    assert load_config(path).secret == secret   # the next process reads the same
    assert config.secret is secret
    assert secret.decode() not in repr(config)


def test_configured_secret_and_passwords_stay_out_of_repr(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[server]\nsecret = "s3cret-key"\n'
                                         '[outbound]\npassword = "relay-pw"\n[imap]\npassword = "imap-pw"\n'))
    assert config.secret == b"s3cret-key"
    assert not (tmp_path / "etc" / "var" / "secret").exists()
    for hidden in ("s3cret-key", "relay-pw", "imap-pw"):
        assert hidden not in repr(config)


@pytest.mark.parametrize("section", [
    '[lmtp]\nsocket = "var/lmtp.sock"\n',
    '[lmtp]\nsocket = "/run/pbm/lmtp.sock"\n',
    '[lmtp]\nsocket = "~/lmtp.sock"\n',
    '[lmtp]\nsocket_mode = 0o600\n',
    '[server]\naddress = "pbm@example.org"\n',
    # forms the handover's own few lines read, and forms it leaves to tomllib
    "# pbm\n[lmtp] # the MTA's way in\n  socket = './var/lmtp.sock'   # relative\nsocket_mode = 0o660\n",
    '[lmtp]\nsocket_group = "postfix"\nsocket = "var/lmtp.sock"\n[server]\nname = "x"\n',
    'lmtp.socket = "dotted.sock"\n',
    'lmtp = { socket = "inline.sock" }\n',
    '[lmtp]\nsocket = "with\\u0041escape.sock"\n',
    '[server]\nname = "lmtp"\n[lmtp]\nsocket = "named.sock"\n',
    '[lmtp]\nsocket = """triple.sock"""\n',
])
def test_the_handover_finds_the_socket_pbm_config_finds(tmp_path, section: str) -> None:
    """`pbm deliver` reads `[lmtp] socket` without pbm.config (pbm.runners.handover.socket_path): the same
    path, resolved the same way."""
    (tmp_path / "conf").mkdir()
    path = tmp_path / "conf" / "pbm.toml"
    path.write_text(section)
    found = handover.socket_path(str(path))
    expected = load_config(path).lmtp.socket
    assert (found and Path(found)) == expected


def test_the_handover_leaves_a_missing_or_broken_file_to_pbm_config(tmp_path) -> None:
    (tmp_path / "broken.toml").write_text("[lmtp\n")
    (tmp_path / "odd.toml").write_text('lmtp = "socket"\n')
    for name in (None, str(tmp_path / "missing.toml"), str(tmp_path / "broken.toml"),
                 str(tmp_path / "odd.toml")):
        assert handover.socket_path(name) is None
