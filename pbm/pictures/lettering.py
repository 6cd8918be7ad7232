"""The font every picture is written in, shipped with the package (pbm.pictures.faces says what
it holds), loaded by the modules that draw."""
from __future__ import annotations

import functools
import io
from pathlib import Path

from PIL import ImageFont

from pbm.pictures.faces import FONT

# Read once, when drawing is loaded (pbm serve: at its start, pbm.runners.drawers): reinstalling pbm
# under a running server removes and rewrites the package's files, and the server must go on drawing
# (as it keeps the mail templates in memory).
_FONT_DATA = (Path(__file__).parent / "fonts" / FONT).read_bytes()     # as pbm.i18n reads its catalogs


@functools.lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The shipped font at `size` pixels."""
    return ImageFont.truetype(io.BytesIO(_FONT_DATA), size)
