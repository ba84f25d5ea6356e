"""Pictures: the battlefield map (``battlefield``) and the dice chart (``chart``), drawn with Pillow.

Pure: no discord, no asyncio, no store. Each function takes plain models (a ``Game``, ``DiceStats``)
and returns PNG bytes; the cogs run them in a worker thread (``asyncio.to_thread``) and attach the
bytes. The layouts are exposed (``hex_layout``, ``bar_boxes``) so tests can compute where each
thing is drawn and check the decoded pixels there.

The font is Pillow's own scalable default (``ImageFont.load_default(size=...)``: the Aileron
typeface, SIL Open Font License, embedded in Pillow and drawn by the FreeType its wheels bundle), so
no font file ships with the bot. A Pillow built without FreeType falls back to its small bitmap font:
the pictures stay correct, only plainer.
"""

from .chart import chart_png
from .battlefield import MapCache, MapPicture, Shot, hex_layout, latest_fire, map_png, sight_png

__all__ = ["MapCache", "MapPicture", "Shot", "chart_png", "hex_layout", "latest_fire", "map_png", "sight_png"]
