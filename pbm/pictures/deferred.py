"""A picture drawn when its mail is sent, not when it is queued.

A board mail is queued inside the write transaction of the command that made it, by the one thread
that writes the database; drawing its two PNG views there cost more than the rest of a move.  So
the mail is queued with a placeholder line where the picture's base64 goes, naming what to draw (the
game, its FEN, the last move, check or mate, the side, the faces), and the sender (`fill`) draws it
-- once per view, from the pictures' cache -- just before the bytes are handed over.  The same
placeholder always gives the same bytes, so a mail sent twice after a crash is the same mail.

A process started for one message (`pbm deliver` without a server, `pbm outbox`) keeps what it
drew on disk too (`kept_on_disk`, the data folder's cache): the next one that sends the same view
(a `show` of a position a board mail showed) neither draws it nor loads Pillow.  This module
imports no Pillow: the drawing (pbm.pictures.drawing) is loaded by the first picture drawn.

If a picture cannot be drawn, the mail still goes: the placeholder becomes a one-pixel PNG, so the
reader has the text part's board and the FEN (the picture's alt text), and the failure is logged.
"""
from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

import rules
from pbm import Later
from pbm.faults import crash_point
from pbm.pictures import Picture
from pbm.pictures.faces import FONT
from pbm.pictures.view import hands_in_words, size, view_from

log = logging.getLogger(__name__)

MARK = b"pbm-picture:"                  # never the start of a base64 line (":" is not in its alphabet)
_PLACEHOLDER = re.compile(re.escape(MARK) + rb"([A-Za-z0-9_=-]+)")
# A transparent 1x1 PNG: what stands in for a picture that could not be drawn.
BLANK = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


class Deferred:
    """What a board mail shows, to be drawn when it is sent: its size and key are known now."""

    def __init__(self, game: rules.Game, *, turned: bool, faces: str = "hanja", labels: str = "coordinates"):
        # a setup choice (Janggi's cho=, han=) only arranges the start, which the FEN already holds
        params = {k: v for k, v in game.params.items() if k not in {s.lower() for s in game.side_names}}
        self.spec = json.dumps({"v": game.variant.name, "p": params, "f": game.fen(),
                                "m": game.moves[-1] if game.moves else "",
                                "x": game.reason == "checkmate", "t": turned, "c": faces, "l": labels,
                                **({"h": hands_in_words(game.variant)} if game.variant.drops else {})},
                               sort_keys=True, separators=(",", ":"))
        self.width, self.height = size(game.variant)
        self.alt = game.fen()
        self.key = "board-" + hashlib.sha256(self.spec.encode()).hexdigest()[:24]

    def img(self, src: str, alt: str | None = None) -> str:
        return Picture(b"", self.width, self.height, self.alt, self.key).img(src, alt=alt)

    def png(self) -> bytes:
        """The picture itself, from the pictures' cache (a game's web page shows the mail's picture)."""
        return _drawn(base64.urlsafe_b64encode(self.spec.encode()))

    def placeholder(self) -> str:
        """The line queued where the picture's base64 goes."""
        return (MARK + base64.urlsafe_b64encode(self.spec.encode())).decode("ascii")


def fill(raw: bytes) -> bytes:
    """`raw` with every picture placeholder replaced by its PNG in base64 (76-column lines)."""
    if MARK not in raw:
        return raw
    return _PLACEHOLDER.sub(lambda m: _encoded(m.group(1)), raw)


KEPT = 256                              # views whose base64 is kept: a batch's (claims.BATCH), drawn ahead
_done: OrderedDict[bytes, bytes] = OrderedDict()
# Where drawn views are kept for the next process (set by pbm.cli for `pbm deliver` and `pbm outbox`;
# None: in memory only), and how many (about 27 KB each) before the older half is dropped.
kept_on_disk: Path | None = None
ON_DISK = 512
DRAW = Later("pbm.pictures.drawing:cached_draw")


def undrawn(raws: Iterable[bytes]) -> list[bytes]:
    """The views named in `raws` whose pictures are not made yet, each once: for the outbox's
    drawing processes (pbm.runners.drawers) to draw on every core before the mails are filled."""
    return list(dict.fromkeys(token for raw in raws if MARK in raw
                              for token in _PLACEHOLDER.findall(raw) if token not in _done))


def draw_token(token: bytes) -> bytes | None:
    """The base64 lines of a view's picture, in a drawing process (`PBM_FAULT=while-drawing`
    kills it here, for the crash tests); None if it could not be drawn."""
    crash_point("while-drawing")
    return _lines(token)


def _encoded(token: bytes) -> bytes:
    """The picture's base64 lines: made once per view, for every reader who sees it (a blank one
    that stood in for a failure is not kept: the next mail tries again)."""
    if token in _done:
        _done.move_to_end(token)
        return _done[token]
    lines = _from_disk(token)
    if lines is None:
        lines = _lines(token)
        if lines is None:
            return _base64_lines(BLANK)
        _to_disk(token, lines)
    keep(token, lines)
    return lines


def _file(token: bytes) -> Path | None:
    """Where a view's picture is kept: named by the view and by what draws it, so that a picture
    drawn before an upgrade of pbm or Pillow is never sent after it."""
    if kept_on_disk is None:
        return None
    return kept_on_disk / hashlib.sha256(_drawer() + token).hexdigest()


DRAWN_BY = ("drawing.py", "sprites.py", "lettering.py", "faces.py", "view.py", f"fonts/{FONT}")


@functools.cache
def _drawer() -> bytes:
    """The size and time of each file the drawing is made from (not imported: only looked at)."""
    here = Path(__file__).parent
    pillow = importlib.util.find_spec("PIL")
    files = [here / name for name in DRAWN_BY] + ([Path(pillow.origin).parent / "_version.py"]
                                                  if pillow and pillow.origin else [])
    return repr([(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.exists()]).encode()


def _from_disk(token: bytes) -> bytes | None:
    path = _file(token)
    try:
        return path.read_bytes() if path is not None else None
    except OSError:
        return None


def _to_disk(token: bytes, lines: bytes) -> None:
    """Keep a view's lines for the next process (written whole, then renamed: never half a file);
    a cache that cannot be written is only slower."""
    path = _file(token)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}.part")
        part.write_bytes(lines)
        os.replace(part, path)
        kept = list(path.parent.iterdir())
        if len(kept) > ON_DISK:
            kept.sort(key=lambda p: p.stat().st_mtime)
            for old in kept[:len(kept) // 2]:
                old.unlink(missing_ok=True)
    except OSError as e:
        log.warning("a drawn picture could not be kept in %s: %s", path.parent, e)


def _lines(token: bytes) -> bytes | None:
    """The view's picture as base64 lines; None if it could not be drawn."""
    data = _drawn(token)
    return None if data is BLANK else _base64_lines(data)


def _base64_lines(data: bytes) -> bytes:
    text = binascii.b2a_base64(data, newline=False)
    return b"\r\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def keep(token: bytes, lines: bytes) -> None:
    """Keep a view's base64 lines for the mails that show it."""
    _done[token] = lines
    if len(_done) > KEPT:
        _done.popitem(last=False)


def _drawn(token: bytes) -> bytes:
    try:
        spec = json.loads(base64.urlsafe_b64decode(token))
        game = rules.Game.new(spec["v"], spec["p"] or None, spec["f"])
        return DRAW(view_from(game, last=spec["m"], mated=spec["x"], turned=spec["t"],
                                     faces=spec["c"], labels=spec.get("l", "coordinates"),
                                     hand_labels=tuple(spec.get("h", ())))).data
    except Exception:                   # the mail goes without its picture rather than not at all
        log.exception("a board picture could not be drawn; the mail goes with a blank one")
        return BLANK
