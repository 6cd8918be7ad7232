"""The fixtures every test file may use; what they are made of lives in tests/support/.

Two parts that tests need from Debian are treated alike: Dovecot (IMAP) and Chromium (what a reader
sees).  Where one is missing, its tests fail and say how to install it (`.ci/setup` does): a
missing part must never pass for a green run.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.postoffice import PostOffice, opened
from support.processes import PbmEnv, PbmServer, free_port
from support.relay import Relay
from support.users import system_user

pytest_plugins = ["support.dovecot"]     # its fixtures: dovecot, plain_dovecot, dovecot_server

# A test that starts real processes or servers is slow whatever its module says: `pytest -m "not
# slow"` runs the rest, the unit tests, in well under a minute.
SLOW_FIXTURES = {"pbm_env", "open_pbm_env", "pbm_server", "relay_env", "dovecot", "plain_dovecot", "dovecot_server"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def pbm_env(tmp_path: Path):
    env = PbmEnv(tmp_path)
    yield env
    env.close()


@pytest.fixture
def open_pbm_env():
    """A PbmEnv in a folder every user can pass (pytest's tmp_path is root's alone), for running
    or checking pbm as the system user `pbmtest` (support.users); skipped unless root."""
    user = system_user()
    root = Path(tempfile.mkdtemp(prefix="pbm-open-"))
    root.chmod(0o755)
    env = PbmEnv(root)
    yield env, user
    env.close()
    shutil.rmtree(root)


@pytest.fixture
def pbm_server(pbm_env: PbmEnv) -> PbmServer:
    return pbm_env.start_server()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost, made by the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.fixture
def relay_env(pbm_env: PbmEnv):
    """pbm_env sending through a relay on a free port (started by the test with `start`)."""
    port = free_port()
    pbm_env.configure(outbound={"mode": "smtp", "host": "127.0.0.1", "port": port, "timeout": 10.0,
                                "retry_base": 0.0})
    relays: list[Relay] = []

    def start(**kwargs) -> Relay:
        relays.append(Relay(port, **kwargs))
        return relays[-1]

    yield pbm_env, start
    for relay in relays:
        relay.stop()


@pytest.fixture
def post(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PostOffice]:
    """The in-process post office: with `@pytest.mark.post_office("alice", "bob", challenge=True)`
    on the module or the test, those users are signed up (and alice has challenged bob).  At the
    end it checks that no mail it sent held a password."""
    marker = request.node.get_closest_marker("post_office")
    yield from opened(tmp_path, *(marker.args if marker else ()), **(marker.kwargs if marker else {}))
