"""What the pictures share: fonts, colours, text measuring, PNG encoding."""

from __future__ import annotations

import io
import threading
from functools import lru_cache

from PIL import Image, ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# One picture drawn at a time: the pictures are drawn in worker threads (asyncio.to_thread), and a
# FreeType font face, shared through ``font``'s cache, must not render in two threads at once.
DRAWING = threading.Lock()

WHITE = (255, 255, 255)
INK = (40, 40, 46)
GRID = (221, 223, 228)
# the embeds' side colours (bot/render.py SIDE_COLOURS: 0x4A7AB5, 0xB5533C); a test checks they agree
SIDE_RGB = ((0x4A, 0x7A, 0xB5), (0xB5, 0x53, 0x3C))
NEUTRAL_RGB = (0x8A, 0x8F, 0x98)


@lru_cache(maxsize=16)
def font(size: int) -> Font:
    """Pillow's scalable default font at ``size`` pixels (one instance per size: loading costs)."""
    try:
        return ImageFont.load_default(size=size)
    except (AttributeError, OSError, TypeError):  # a Pillow without FreeType: the bitmap font
        return ImageFont.load_default()


def text_size(text: str, size: int) -> tuple[int, int]:
    left, top, right, bottom = font(size).getbbox(text)
    return int(right - left), int(bottom - top)


def fit(text: str, size: int, width: float) -> str:
    """``text`` cut with "…" to fit in ``width`` pixels at ``size`` (whole when it fits)."""
    face = font(size)
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def side_rgb(side: int | None) -> tuple[int, int, int]:
    return SIDE_RGB[side] if side is not None and 0 <= side < len(SIDE_RGB) else NEUTRAL_RGB


def blend(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def palette(colours: list[tuple[int, int, int]], ramps: list[tuple[tuple[int, int, int], tuple[int, int, int], int]]
            ) -> Image.Image:
    """A palette image for ``png``: the exact ``colours`` (kept exactly: a pixel of one of them maps
    to itself) and, per ramp (from, to, steps), the shades between two colours that anti-aliased
    edges and glyphs take. At most 256 entries."""
    entries = list(dict.fromkeys(colours))
    for start, end, steps in ramps:
        entries += [blend(start, end, (i + 1) / (steps + 1)) for i in range(steps)]
    entries = list(dict.fromkeys(entries))
    if len(entries) > 256:
        raise ValueError(f"a palette holds 256 colours, not {len(entries)}")
    image = Image.new("P", (1, 1))
    image.putpalette([c for entry in entries for c in entry] + [0] * (768 - 3 * len(entries)))
    return image


def png(image: Image.Image, colours: Image.Image | None = None) -> bytes:
    """The image as PNG bytes. With a palette (``palette``), each pixel is mapped to its nearest
    entry first (no dithering: the flat colours stay exact): a third of the bytes to compress, so
    a big map encodes several times faster and smaller. Compressed quickly either way."""
    out = io.BytesIO()
    if colours is not None:
        image = image.quantize(palette=colours, dither=Image.Dither.NONE)
    image.save(out, format="PNG", compress_level=3 if colours is None else 6)
    return out.getvalue()
