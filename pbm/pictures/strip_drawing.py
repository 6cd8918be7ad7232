"""The drawing of a ruling's cycle (pbm.pictures.strip): each board drawn, scaled down and numbered."""
from __future__ import annotations

import functools
import hashlib
import io

from PIL import Image, ImageDraw

import rules
from pbm.pictures import Picture
from pbm.pictures.drawing import render
from pbm.pictures.lettering import font
from pbm.pictures.view import view_from

BOARD_WIDTH = 150                       # each small board, in pixels
GAP = 8
LABEL = 20                              # the band under each board with its move number


@functools.lru_cache(maxsize=32)
def strip(variant: str, params: tuple, start_fen: str, moves: tuple[str, ...], start: int,
          turned: bool, faces: str) -> Picture:
    game = rules.Game.from_record(variant, dict(params) or None, start_fen, moves[:start])
    boards = []
    for number, move in enumerate(moves[start:], start + 1):
        game.play(move)
        data, _, _ = render(view_from(game, last=move, mated=False, turned=turned, faces=faces))
        boards.append((number, Image.open(io.BytesIO(data)).convert("RGB")))
    first = boards[0][1]
    height = round(first.height * BOARD_WIDTH / first.width)
    strip = Image.new("RGB", (len(boards) * (BOARD_WIDTH + GAP) - GAP, height + LABEL), "#ffffff")
    draw = ImageDraw.Draw(strip)
    digits = font(14)
    for i, (number, image) in enumerate(boards):
        x = i * (BOARD_WIDTH + GAP)
        strip.paste(image.resize((BOARD_WIDTH, height), Image.LANCZOS), (x, 0))
        draw.text((x + BOARD_WIDTH / 2, height + LABEL / 2), f"{number}.", fill="#222222", font=digits,
                  anchor="mm")
    out = io.BytesIO()
    strip.quantize(colors=128).save(out, "PNG", optimize=False)
    data = out.getvalue()
    return Picture(data, strip.width, strip.height, " ".join(moves[start:]),
                   "cycle-" + hashlib.sha256(data).hexdigest()[:24])
