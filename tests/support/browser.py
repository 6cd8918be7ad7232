"""What a reader sees: Debian's headless Chromium renders a page to a PNG that a test reads.

Like Dovecot (support.dovecot), Chromium is a part the tests need from Debian: where it is missing
the tests that need it fail, saying how to install it (`.ci/setup` does), rather than skip.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from PIL import Image

# The flags this machine needs: no sandbox (root), no GPU, no network chatter at start.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--force-device-scale-factor=1"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("Debian's chromium is not installed: run .ci/setup (apt-get install chromium "
                    "fonts-noto-cjk)")
    return found


def screenshot(html: str, folder: Path, name: str, *extra: str, width: int = 480,
               height: int = 1800) -> Image.Image:
    """The page `html` as Chromium draws it, `width` x `height` pixels; `extra` flags (such as
    `--blink-settings=...`) go to the browser."""
    page = folder / f"{name}.html"
    page.write_text(html, encoding="utf-8")
    png = folder / f"{name}.png"
    subprocess.run([chromium(), *FLAGS, *extra, f"--screenshot={png}", f"--window-size={width},{height}",
                    f"--user-data-dir={folder / (name + '-profile')}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    return Image.open(png).convert("RGB")


def screenshot_url(url: str, png: Path, *extra: str, width: int, height: int) -> Image.Image:
    """The page at `url` as Chromium draws it, `width` x `height` pixels, saved as `png`."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([chromium(), *FLAGS, *extra, f"--screenshot={png}",
                               f"--window-size={width},{height}", f"--user-data-dir={profile}", url],
                              check=True, capture_output=True, timeout=120)
    assert png.exists(), "\n".join(line for line in done.stderr.decode(errors="replace").splitlines() if "dbus" not in line)
    return Image.open(png).convert("RGB")


def console(url: str, *extra: str, width: int = 800, height: int = 1200) -> list[str]:
    """What the page at `url` wrote to Chromium's console while it was drawn: its errors, and every
    Content-Security-Policy violation (an inline style blocked, a script refused)."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([chromium(), *FLAGS, *extra, "--enable-logging=stderr", "--v=0",
                               f"--screenshot={Path(folder) / 'page.png'}", f"--window-size={width},{height}",
                               f"--user-data-dir={Path(folder) / 'profile'}", url],
                              check=True, capture_output=True, timeout=120)
    return [line for line in done.stderr.decode(errors="replace").splitlines() if ":CONSOLE" in line]
