"""pbm installed as an operator installs it: the templates travel with the code, and reinstalling pbm
under a running server (README's test command does, in the same environment) does not break it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest
from support.postoffice import plain
from support.processes import REPO

SOURCE_FILES = ["setup.cfg", "pyproject.toml", "README.md", "rules", "pbm", "mail_templates"]

pytestmark = pytest.mark.slow   # real processes, a browser, or searches over many positions


def _source_copy(where: Path) -> Path:
    """The checkout's files a build reads, without its .venv or build leftovers."""
    where.mkdir()
    for name in SOURCE_FILES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, where / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, where / name)
    return where


def _environment(where: Path) -> Path:
    """A fresh virtual environment that borrows pbm's dependencies (not pbm) from the test's own."""
    venv.create(where, with_pip=True)
    site = next(where.glob("lib/python*/site-packages"))
    (site / "borrowed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return where / "bin" / "python"


# the new environment's own view: nothing of this checkout on the path
CLEAN = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PBM_CONFIG")}


def _pip(python: Path, *args: str) -> None:
    result = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", *args],
                            capture_output=True, text=True, timeout=600, env=CLEAN)
    if result.returncode and "Could not find a version" in result.stderr + result.stdout:
        pytest.skip(f"no package index to fetch the build backend from: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_reinstall_under_a_running_server_does_not_break_it(pbm_env, tmp_path):
    source = _source_copy(tmp_path / "src")
    python = _environment(tmp_path / "env")
    _pip(python, str(source))                                  # a regular, non-editable install
    installed = subprocess.run([str(python), "-c", "import mail_templates; print(mail_templates.__file__)"],
                               capture_output=True, text=True, cwd=tmp_path, env=CLEAN).stdout
    assert str(tmp_path / "env") in installed                  # not this checkout's
    translated = subprocess.run([str(python), "-c", "from pbm import i18n\nwith i18n.speaking('ko'): "
                                 "print(i18n._('Usage:'), i18n.catalog('ko').__class__.__name__)"],
                                capture_output=True, text=True, cwd=tmp_path, env=CLEAN)
    assert translated.stdout.split() == ["사용법:", "Translations"], translated.stderr  # catalogs shipped
    server = pbm_env.start_server([str(python), "-m", "pbm"], PYTHONPATH="")
    server.command("alice@example.org", "signup alice apple7pie", 1)

    _pip(python, "--force-reinstall", "-e", str(source))      # what README's test command does
    assert not list((tmp_path / "env").glob("lib/python*/site-packages/mail_templates/*.j2"))

    replies = server.command("bob@example.org", "signup bob banana7split", 1)
    body = plain(replies["bob@example.org"])
    assert "internal error" not in body.lower() and "bob" in body
    replies = server.command("alice@example.org", "xiangqi challenge alice bob", 2)
    assert "Xiangqi" in replies["bob@example.org"]["Subject"]
    assert server.process.poll() is None, server.log()


def test_the_package_builds_without_warnings_and_ships_its_data(tmp_path):
    """`pip install .` builds a wheel: setuptools has no warning (a folder of data inside pbm that is
    not declared a package warned six times), and the catalogs, the font and the templates ship."""
    import sys
    import zipfile
    source = _source_copy(tmp_path / "src")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w",
                             str(tmp_path / "wheel"), str(source)],
                            capture_output=True, text=True, timeout=600, env=CLEAN)
    if result.returncode and "Could not find a version" in result.stderr + result.stdout:
        pytest.skip(f"no package index to fetch the build backend from: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stdout + result.stderr
    said = result.stdout + result.stderr
    assert "Warning" not in said and "absent from the" not in said, said
    [wheel] = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"pbm/locale/ko/LC_MESSAGES/pbm.mo", "pbm/locale/zh_Hant/LC_MESSAGES/pbm.mo",
            "pbm/pictures/fonts/pbm-board-glyphs.otf", "mail_templates/welcome.j2"} <= names
    assert not any("__pycache__" in name or name.startswith("tests/") for name in names)
