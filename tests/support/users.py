"""The system user the tests run pbm as, where pbm must not run as root (Postfix's pipe refuses
root for `user=`): `pbmtest`, made by .ci/setup, or here if it is missing and we are root."""
from __future__ import annotations

import atexit
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

USER = "pbmtest"


def system_user() -> pwd.struct_passwd:
    """The user, made if need be; skips the test (saying why) unless the tests run as root."""
    if os.geteuid() != 0:
        pytest.skip("needs root: it runs pbm as another user and checks what that user may do "
                    "(in CI the tests run as root)")
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                        "/nonexistent", "--shell", "/usr/sbin/nologin", USER], check=True)
        return pwd.getpwnam(USER)


SYSTEM_PYTHON = "/usr/bin/python3"
_venvs: dict[str, Path] = {}


def user_python(user: pwd.struct_passwd) -> Path:
    """A Python the user can run pbm with, made as docs/operating.md says: a venv made by that user
    with the system Python, with bin/pbm beside it.  pbm and its dependencies are not downloaded
    again: a .pth file names this checkout and the test venv's packages (the same Python minor
    version: the same wheels).  Made once per session, removed at its end (atexit)."""
    if user.pw_name in _venvs:
        return _venvs[user.pw_name]
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.strip() != str(sys.version_info[:2]):
        pytest.skip(f"{SYSTEM_PYTHON} is not Python {sys.version_info[0]}.{sys.version_info[1]}, "
                    f"the tests' version, whose packages the user's venv borrows")
    folder = Path(tempfile.mkdtemp(prefix="pbm-venv-"))
    atexit.register(shutil.rmtree, folder, True)
    folder.chmod(0o755)
    os.chown(folder, user.pw_uid, user.pw_gid)
    venv = folder / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True,
                   user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd=folder)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True, user=user.pw_uid,
                          group=user.pw_gid, extra_groups=[]).stdout.strip()
    (Path(site) / "pbm-checkout.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n")
    check = subprocess.run([python, "-c", "import pbm.cli, aiosmtpd, jinja2"], capture_output=True,
                           text=True, user=user.pw_uid, group=user.pw_gid, extra_groups=[])
    if check.returncode != 0:
        pytest.skip(f"user {user.pw_name} cannot import pbm from {REPO} (its folders must be "
                    f"readable by that user): {check.stderr.strip()[-300:]}")
    launcher = python.parent / "pbm"         # what pip's console script would be
    launcher.write_text(f"#!{python}\nimport sys\nfrom pbm.cli import main\nsys.exit(main())\n")
    launcher.chmod(0o755)
    os.chown(launcher, user.pw_uid, user.pw_gid)
    _venvs[user.pw_name] = python
    return python
