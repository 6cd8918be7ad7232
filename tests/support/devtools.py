"""Headless Chromium driven over the DevTools protocol (a websocket on loopback, aiohttp's client):
what a screen reader is given of a page -- its accessibility tree -- rather than its pixels.

    names = accessible_names("http://127.0.0.1:8080/g/TOKEN")   # every node's accessible name
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import tempfile
import time
import urllib.request

import aiohttp
from support.browser import FLAGS, chromium
from support.processes import free_port

START = 30.0            # seconds Chromium may take to open its DevTools port: a bound, not a measure


def accessible_names(url: str) -> list[str]:
    """The name of every node of the page's full accessibility tree, in document order."""
    return asyncio.run(_tree(url))


def _target(port: int) -> str:
    """The websocket of the first page target, once Chromium listens."""
    deadline = time.monotonic() + START
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as answer:
                pages = [t for t in json.load(answer) if t.get("type") == "page"]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"Chromium opened no DevTools port {port} in {START} s")
        time.sleep(0.2)


async def _tree(url: str) -> list[str]:
    port = free_port()
    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen([chromium(), *FLAGS, f"--remote-debugging-port={port}",
                                    f"--user-data-dir={profile}", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            socket_url = await asyncio.to_thread(_target, port)
            async with aiohttp.ClientSession() as session, session.ws_connect(socket_url, max_msg_size=0) as ws:
                calls = iter(range(1, 1000))

                async def call(method: str, **params: object) -> dict:
                    number = next(calls)
                    await ws.send_json({"id": number, "method": method, "params": params})
                    while True:
                        message = await asyncio.wait_for(ws.receive_json(), START)
                        if message.get("id") == number:
                            return message.get("result", {})

                await call("Page.enable")
                await call("Accessibility.enable")
                await call("Page.navigate", url=url)
                deadline = time.monotonic() + START
                while True:         # loaded: the document's readyState is complete
                    state = await call("Runtime.evaluate", expression="document.readyState")
                    if state.get("result", {}).get("value") == "complete" or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.1)
                nodes = (await call("Accessibility.getFullAXTree"))["nodes"]
                return [str(node.get("name", {}).get("value", "")) for node in nodes
                        if not node.get("ignored")]
        finally:
            browser.terminate()
            browser.wait(timeout=30)
