"""The battlefield as a picture: /game map and the Map button of /game status.

ASL and No Honor in Surrender: a hex grid laid out from the hex ids (``hex_layout``), around the
Locations in play with one hex of margin, each Location filled with its terrain's colour, its
Location markers (Residual FP, SMOKE) on top, each stack's counters listed in a label at the hex's
centre (a chip in the side's colour, the counter's name and values, its id, its markers), and the
latest fire drawn as an arrow from each firing Location to the target's centre. CD: a table-top
sketch, one box per position (the stands' Locations) or, when no stand has one, per company, each
stand a base in its side's colour with its states, and the latest fire (direct or a battery's) an
arrow from the firing stand to each target stand, bent round any stand between. The sides' colours are the embeds'
(``bot.render.SIDE_COLOURS``).

Hex ids. Where a Location is on the grid is the ruleset's grid's answer (``bot/core/grid.py``, the one
place an id becomes a position, read by the range and the line of sight as well): ``B5`` on an ASL
board (``32B5`` with several boards laid out), ``0304`` on an NHiS map. Hexes are flat-topped, in
vertical columns; columns B, D, F, ... sit half a hex lower than A, C, E, ... for the same row number,
as on an ASL board (A1 lies between B0 and B1). A Location the grid cannot place (a building's name,
``Farm``) is drawn as a hex of its own in a row under the grid (the whole map, when no id is a hex
id), in the order of the ids.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from bot.core.game import Game, Location
from bot.core.grid import Cell, any_cell, laid_out, placer
from bot.core.ruleset import Ruleset, Shots
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.base import UnitBase
from bot.core.sight import SightLine

from .draw import DRAWING, INK, NEUTRAL_RGB, SIDE_RGB, WHITE, font, palette, png, side_rgb

Point = tuple[float, float]
Box = tuple[int, int, int, int]

# A map is read on a phone (issue 30): Discord shows an embed's picture about PREVIEW_WIDTH pixels wide
# there (assumed: a 6.1" phone, 390 points at 3x, the picture across the message's width less its
# margins: ~550 of the picture's own pixels when it is wider; a narrower one is not enlarged), so a text
# of ``size`` pixels reads ``size * min(1, PREVIEW_WIDTH / width)`` pixels high: at least MIN_TEXT_PX.
# The hexes are sized for the labels in that text, and a map wider than the preview is zoomed to the
# area in play (``view_window``); the whole map is an option (/game map whole:yes).
PREVIEW_WIDTH = 550
MIN_TEXT_PX = 14

RADIUS = 64  # centre to corner of a hex, pixels
HEX_W, HEX_H = 2 * RADIUS, math.sqrt(3) * RADIUS
STEP_X, STEP_Y = 1.5 * RADIUS, math.sqrt(3) * RADIUS  # from one column (row) to the next
MARGIN = 12
HEADER = 40  # the title line's band
LINE = 17  # a label line's height
LABEL_SIZE, TITLE_SIZE, SMALL_SIZE = 15, 18, 14
LABEL_W = math.floor(STEP_X) - 4  # a label's widest: the space between two columns of hexes
UNDER_ID = math.floor((HEX_H - 30) / LINE)  # a label's lines under the hex id, in the hex
# a taller label covers the hex id and shows it as its first line: it is at most a hex high, so the labels
# of one column never overlap; "+N more" last
MAX_ROWS = math.floor((STEP_Y - 4) / LINE)
CHIP = 16  # the side's chip before a counter's line
MARKS_INDENT = 4  # a counter's markers on lines of their own: indented under its line
INDENT = {"marks": MARKS_INDENT, "cont": CHIP}  # "cont": the rest of an id too long for one line
# the hexes a zoomed map shows: as many columns as fit the preview's width, rows for a picture about
# as high as it is wide
VIEW_COLUMNS = math.floor((PREVIEW_WIDTH - 2 * MARGIN - HEX_W) / STEP_X) + 1
VIEW_ROWS = 6
GRID_COLUMNS, GRID_ROWS = 70, 24  # the grid's size at most: two ASL boards (33 x 10) side by side, or stacked
OTHERS_PER_ROW, MAX_OTHERS = 10, 60  # Locations that are not on the grid: per row, and at most

MARKER_RGB = (200, 30, 30)  # markers on counters: broken, pinned, fire...
LABEL_BG = (255, 255, 255)
HEX_EDGE = (150, 150, 140)
EMPTY_HEX = (238, 238, 230)  # a hex of the grid no Location is in play in
TERRAIN_RGB = {  # by the first word of the terrain key that has a colour
    "open": (214, 226, 182), "road": (222, 206, 160), "path": (222, 206, 160),
    "woods": (92, 150, 82), "trees": (92, 150, 82), "jungle": (62, 122, 62), "orchard": (160, 200, 120),
    "brush": (170, 180, 110), "grain": (236, 214, 120), "paddy": (190, 214, 170), "beach": (238, 224, 176),
    "building": (176, 138, 110), "huts": (176, 138, 110), "rubble": (160, 150, 140),
    "shellhole": (168, 150, 120), "rough": (168, 150, 120), "lava": (110, 100, 100), "hill": (200, 178, 130),
    "pillbox": (110, 110, 110), "bunker": (110, 110, 110), "cave": (96, 90, 86),
    "foxhole": (186, 164, 120), "trench": (186, 164, 120), "wreck": (140, 140, 140),
}
UNKNOWN_TERRAIN = (205, 205, 205)
ELEVATION = ("hill", "level", "crest", "ridge")  # a feature that raises a hex: a ring of the hill's colour inside it


def terrain_words(location: Location | None) -> str:
    """What a hex says of its ground: its terrain (but open) and its features, "huts, hill"."""
    if location is None:
        return ""
    return ", ".join([*([location.terrain] if location.terrain != "open" else []), *location.features])


def raised(location: Location | None) -> bool:
    return location is not None and any(word in ELEVATION for feature in location.features
                                        for word in re.split(r"[\s_-]+", feature.casefold()))

SIGHT_RGB = (150, 20, 170)  # the line of sight (/los): a colour no terrain, side or marker has
HINDRANCE_RGB = (235, 140, 0)  # a ring round a hex that hinders the line

def _map_palette() -> Image.Image:
    """Every flat colour of a map exactly, and the shades of its glyphs' and edges' anti-aliasing."""
    grounds = list(dict.fromkeys([WHITE, EMPTY_HEX, UNKNOWN_TERRAIN, *TERRAIN_RGB.values()]))
    inks = [INK, MARKER_RGB, HEX_EDGE, *SIDE_RGB, NEUTRAL_RGB, SIGHT_RGB, HINDRANCE_RGB]
    ramps = [(ground, INK, 5) for ground in grounds] + [(WHITE, MARKER_RGB, 5), (WHITE, HEX_EDGE, 2)]
    ramps += [(ground, side, 2) for ground in grounds for side in SIDE_RGB]
    ramps += [(WHITE, side, 3) for side in SIDE_RGB]
    return palette(grounds + inks, ramps)


MAP_PALETTE = _map_palette()
def terrain_rgb(terrain: str) -> tuple[int, int, int]:
    """The colour a terrain is filled with: its key's words, the first one that has a colour."""
    for word in re.split(r"[\s_-]+", terrain.casefold()):
        if word in TERRAIN_RGB:
            return TERRAIN_RGB[word]
    return UNKNOWN_TERRAIN


def hex_position(location_id: str) -> tuple[int, int] | None:
    """(column, row) of a short hex id of either kind, column A (or 01) as 0; None when the id is not
    a hex id: the placing of a picture drawn without a ruleset's grid (bot/core/grid.py reads the ids)."""
    return any_cell(location_id)


@dataclass(frozen=True)
class Window:
    """The columns and rows of the grid a zoomed map shows (first and last, both drawn)."""

    c0: int
    r0: int
    c1: int
    r1: int

    def holds(self, cell: Cell) -> bool:
        return self.c0 <= cell[0] <= self.c1 and self.r0 <= cell[1] <= self.r1


def _span(low: int, high: int, most: int, floor_: int, ceiling: int) -> tuple[int, int]:
    """``low``..``high`` (what must be seen) with a hex of margin, grown towards ``most`` hexes within
    ``floor_``..``ceiling`` (the map's hexes in play, with their margin) and, when the must-see
    span is wider than ``most``, not narrowed below it."""
    low, high = max(floor_, low - 1), min(ceiling, high + 1)
    while high - low + 1 < most and (low > floor_ or high < ceiling):
        if high < ceiling:
            high += 1
        if high - low + 1 < most and low > floor_:
            low -= 1
    return low, high


def view_window(cells: dict[str, Cell], focus: Iterable[str], stacks: Iterable[str] = ()) -> Window | None:
    """The part of the grid a map for a phone shows, or None when the whole map fits the preview's
    width (VIEW_COLUMNS, a hex of margin round those in play): VIEW_COLUMNS x VIEW_ROWS hexes, the ``focus`` hexes (the
    latest order's: its firers' and its target's) with a hex round them, else the VIEW_COLUMNS x
    VIEW_ROWS hexes holding the most ``stacks``; grown to the view's size within the hexes in play."""
    if not cells:
        return None
    columns = [c for c, _ in cells.values()]
    rows = [r for _, r in cells.values()]
    floor_c, ceiling_c = max(0, min(columns) - 1), max(columns) + 1
    floor_r, ceiling_r = max(0, min(rows) - 1), max(rows) + 1
    if ceiling_c - floor_c + 1 <= VIEW_COLUMNS:  # as wide as a phone shows it: a taller picture scrolls
        return None
    focus = [i for i in focus if i in cells]
    seen = [cells[i] for i in focus]
    if seen and max(c for c, _ in seen) - min(c for c, _ in seen) + 1 > VIEW_COLUMNS:
        seen = [cells[focus[-1]]]  # a fire longer than the view: its target and the hexes round it
    if not seen:  # no order to follow: the window holding the most stacks (the top-left one of the best)
        held = [cells[i] for i in dict.fromkeys(stacks) if i in cells] or list(cells.values())
        best = max(((sum(1 for c, r in held if c0 <= c < c0 + VIEW_COLUMNS and r0 <= r < r0 + VIEW_ROWS), -c0, -r0)
                    for c0 in range(floor_c, max(floor_c, ceiling_c - VIEW_COLUMNS + 1) + 1)
                    for r0 in range(floor_r, max(floor_r, ceiling_r - VIEW_ROWS + 1) + 1)))
        c0, r0 = -best[1], -best[2]
        inside = [(c, r) for c, r in held if c0 <= c < c0 + VIEW_COLUMNS and r0 <= r < r0 + VIEW_ROWS]
        seen = inside or held[:1]
        c0, c1 = _span(min(c for c, _ in seen) + 1, max(c for c, _ in seen) - 1, VIEW_COLUMNS, floor_c, ceiling_c)
        r0, r1 = _span(min(r for _, r in seen) + 1, max(r for _, r in seen) - 1, 0, floor_r, ceiling_r)  # no margin
        return Window(c0, r0, c1, r1)
    c0, c1 = _span(min(c for c, _ in seen), max(c for c, _ in seen), VIEW_COLUMNS, floor_c, ceiling_c)
    r0, r1 = _span(min(r for _, r in seen), max(r for _, r in seen), 0, floor_r, ceiling_r)  # rows: no growing
    if c1 - c0 + 1 > VIEW_COLUMNS:  # the order's hexes fill the view: no margin beside them
        c0, c1 = max(c0, min(c for c, _ in seen)), min(c1, max(c for c, _ in seen))
    if r1 - r0 + 1 > VIEW_ROWS:
        r0, r1 = max(r0, min(r for _, r in seen)), min(r1, max(r for _, r in seen))
    return Window(c0, r0, c1, r1)


@dataclass(frozen=True)
class Layout:
    """Where each hex is drawn: ``centres`` of the Locations in play (and ``grid``, every hex of
    the grid drawn around them, by (column, row)), in pixels of a picture ``size`` wide and high."""

    size: tuple[int, int]
    centres: dict[str, Point]
    grid: dict[tuple[int, int], Point]


def hex_layout(location_ids: Iterable[str], place: Callable[[str], Cell | None] = any_cell,
               header: int = HEADER, window: "Window | None" = None) -> Layout:
    """Lay the Locations out: hex ids on the grid (one hex of margin around those in play, at most
    GRID_COLUMNS x GRID_ROWS hexes from the top-left one in play: a hex id beyond is laid out with the
    others), the others in rows of OTHERS_PER_ROW under it, at most MAX_OTHERS (the rest are left
    out: ``Layout.centres`` does not hold them). ``place``: where an id is on the grid (the game's
    ruleset's grid, ``bot.core.grid.placer``). ``window``: only the hexes of these columns and rows
    are laid out (a zoomed map, ``view_window``), the hex ids outside left out. A test computes a
    hex's centre with this, as the picture does."""
    ids = list(dict.fromkeys(location_ids))
    placed = laid_out(ids, place)
    if window is not None:
        inside = {i: (c, r) for i, (c, r) in placed.items() if window.holds((c, r))}
        ids = [i for i in ids if i in inside or i not in placed]
        placed = inside
    centres: dict[str, Point] = {}
    grid: dict[tuple[int, int], Point] = {}
    bottom = header + MARGIN
    width = 2 * MARGIN + HEX_W
    if placed or window is not None:
        if window is not None:
            c0, r0, c1, r1 = window.c0, window.r0, window.c1, window.r1
        else:
            c0 = max(0, min(c for c, _ in placed.values()) - 1)
            r0 = max(0, min(r for _, r in placed.values()) - 1)
            placed = {i: (c, r) for i, (c, r) in placed.items()
                      if c < c0 + GRID_COLUMNS - 1 and r < r0 + GRID_ROWS - 1}
            c1 = max(c for c, _ in placed.values()) + 1
            r1 = max(r for _, r in placed.values()) + 1

        def centre(column: int, row: int) -> Point:
            shift = 0.5 if column % 2 == 1 else 0.0  # B, D, ... half a hex lower
            return (MARGIN + RADIUS + (column - c0) * STEP_X,
                    header + MARGIN + HEX_H / 2 + (row - r0 + shift) * STEP_Y)

        for column in range(c0, c1 + 1):
            for row in range(r0, r1 + 1):
                grid[(column, row)] = centre(column, row)
        for location_id, (column, row) in placed.items():
            centres[location_id] = centre(column, row)
        bottom = max(y for _, y in grid.values()) + HEX_H / 2 + MARGIN
        width = max(x for x, _ in grid.values()) + RADIUS + MARGIN
    others = [i for i in ids if i not in placed][:MAX_OTHERS]
    if others:
        top = bottom + (LINE if placed else 0)
        per_row = max(1, min(OTHERS_PER_ROW, int((max(width, PREVIEW_WIDTH) - 2 * MARGIN) // (HEX_W + 8))))
        for i, location_id in enumerate(others):
            row, column = divmod(i, per_row)
            centres[location_id] = (MARGIN + RADIUS + column * (HEX_W + 8), top + HEX_H / 2 + row * (HEX_H + 8))
        width = max(width, MARGIN + min(len(others), per_row) * (HEX_W + 8) + MARGIN)
        bottom = top + math.ceil(len(others) / per_row) * (HEX_H + 8) + MARGIN
    return Layout((max(420, math.ceil(width)), math.ceil(bottom)), centres, grid)


def hex_corners(centre: Point, radius: float = RADIUS) -> list[Point]:
    x, y = centre
    return [(x + radius * math.cos(math.radians(a)), y + radius * math.sin(math.radians(a)))
            for a in range(0, 360, 60)]


# --- what a counter shows --------------------------------------------------------------------------

_VALUES = re.compile(r"^[0-9]+(?:[-+][0-9]+)+$")  # 4-6-7, 8-1, 5+1: a counter's printed numbers


def counter_text(unit: UnitBase) -> str:
    """"G1 4-6-7", "M1 3-5-5 US Marine rifle squad": the id, the numbers printed on the counter (from its
    name, else as its ruleset's unit model shows them, ``UnitBase.counter_values``: the reduced side's
    when reduced), then the rest of its name; the numbers come first so that a label cut short keeps them."""
    words = unit.name.split()
    values = next((w for w in reversed(words) if _VALUES.match(w)), None)
    if values is not None:
        words.remove(values)
    else:
        values = unit.counter_values
    rest = " ".join(part for part in (values, " ".join(words)) if part)
    return f"{unit.id}  {rest}" if rest else unit.id  # two spaces: the font's one is narrow


def markers(ruleset: Ruleset, unit: UnitBase) -> list[str]:
    """The markers on a counter (the states of a stand) in the words of the status board: the
    ruleset's flags and marker words (broken, pinned, Prep Fire, Move marker...), and what else the
    ruleset shows on the map (``Ruleset.map_markers``: a stand's orders)."""
    return ruleset.map_markers(unit)


def location_markers(ruleset: Ruleset, location: Location) -> list[str]:
    """The markers in a Location (Residual FP, SMOKE), as its ruleset declares them."""
    return ruleset.location_markers(location)


# --- the latest fire ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shot:
    """The latest fire: the side that fired, the Locations it fired from, the target Location; on
    the table top (CD, whose fire names stands, not Locations) the firing stands and the targets."""

    side: int | None
    sources: tuple[str, ...]
    target: str
    firers: tuple[str, ...] = ()  # the table top: the stands that fired
    targets: tuple[str, ...] = ()  # the table top: the stands fired at
    # hex boards: the counters that fired (a label always shows them); not part of what the shot is
    units: tuple[str, ...] = field(default=(), compare=False)


def _named(order: dict[str, Any], field: str) -> list[str]:
    """The ids an order field holds (a list of them, or one)."""
    value = order.get(field)
    return [str(v) for v in (value if isinstance(value, list) else [value]) if v is not None]


def _stand_fire(game: Game, entry: dict[str, Any], shots: Shots) -> Shot | None:
    """A fire on the table top (the firing stands, their target stands) as a shot between stands; None
    when its firers, or every one of its targets, are no longer in the game."""
    order = entry.get("order") or {}
    firers = tuple(unit.id for f in _named(order, shots.firers) if (unit := game.find_unit(f)) is not None)
    targets = tuple(unit.id for t in _named(order, shots.targets) if (unit := game.find_unit(t)) is not None)
    side = (entry.get("outcome") or {}).get("actor_side")
    if not firers or not targets:
        return None
    return Shot(side if isinstance(side, int) else None, (), "", firers=firers, targets=targets)


def latest_fire(game: Game, entries: Iterable[dict[str, Any]], undone: Iterable[int] = ()) -> Shot | None:
    """The newest fire among exported log entries (``LogEntry.export()`` dicts; oldest first) not
    undone, as the ruleset declares its fire orders (``Ruleset.shots``): its firers' Locations (a
    weapon's, or its holder's), and its target. Firers since gone from the map are left out; None when
    no fire, or no Location to draw. On the table top the newest fire between stands (``Shot.firers``,
    ``targets``)."""
    gone = set(undone)
    ruleset = get_ruleset(game.ruleset)
    shots = ruleset.shots
    if shots is None:
        return None
    table = ruleset.board == "table"
    for entry in reversed(list(entries)):
        order = entry.get("order") or {}
        if order.get("action") not in shots.actions or entry.get("seq") in gone:
            continue
        if table:
            return _stand_fire(game, entry, shots)
        aimed = order.get(shots.target)
        if not isinstance(aimed, str):
            continue
        in_play = [*game.locations, *(u.location for u in game.units.values() if u.location)]
        target = next((key for key in in_play if key.casefold() == aimed.casefold()), None)
        if target is None:
            return None
        sources: list[str] = []
        fired: list[str] = []
        for firer in _named(order, shots.firers):
            unit = game.find_unit(firer)
            if unit is None:
                continue
            fired.append(unit.id)
            holder = game.find_unit(unit.holder_id or "")
            if holder is not None:
                fired.append(holder.id)  # its holder fires with it
            where = unit.location
            if where is None and holder is not None:
                where = holder.location
            if where is not None and where not in sources:
                sources.append(where)
        side = (entry.get("outcome") or {}).get("actor_side")
        return Shot(side if isinstance(side, int) else None, tuple(sources), target, units=tuple(dict.fromkeys(fired)))
    return None


# --- drawing -----------------------------------------------------------------------------------------


@dataclass
class MapPicture:
    """The PNG and where things were drawn on it (the tests read the pixels there)."""

    png: bytes
    size: tuple[int, int]
    centres: dict[str, Point] = field(default_factory=dict)  # Location (or CD group) -> centre
    labels: dict[str, Box] = field(default_factory=dict)  # Location (or CD group) -> its label box
    arrows: list[tuple[Point, Point]] = field(default_factory=list)  # (from, to), the fire
    sight: tuple[Point, Point] | None = None  # /los: the line drawn, from centre to centre
    marked: dict[str, str] = field(default_factory=dict)  # /los: hex id -> "blocks", "hindrance", "unknown"
    paths: list[list[Point]] = field(default_factory=list)  # each arrow's line as drawn (CD: bent round stands)
    stands: dict[str, Point] = field(default_factory=dict)  # CD: each stand's centre on the table top
    texts: list[tuple[str, Box]] = field(default_factory=list)  # every text drawn (a label as one), with its box
    sizes: list[int] = field(default_factory=list)  # the font size of each text (a label's smallest), in pixels
    window: "Window | None" = None  # the hexes a zoomed map shows (None: the whole map)

    def wrote(self, text: str, box: Box, size: int) -> None:
        self.texts.append((text, box))
        self.sizes.append(size)

    def preview_text_px(self) -> float:
        """The smallest text's height on a phone: its size, scaled as a phone shows the picture
        (PREVIEW_WIDTH wide, when it is wider); at least MIN_TEXT_PX on every map."""
        return min(self.sizes, default=MIN_TEXT_PX) * min(1.0, PREVIEW_WIDTH / self.size[0])


def title_of(game: Game) -> str:
    scenario = f"{game.scenario} · " if game.scenario else ""
    phase = get_ruleset(game.ruleset).phase_names.get(game.phase, game.phase)
    return f"{scenario}Turn {game.turn} · {game.side_name(game.active_side)} · {phase}"


def _words(text: str, size: int, width: float) -> list[str]:
    """``text`` in lines of whole words no wider than ``width`` (a word wider alone is cut into pieces
    that fit, so nothing is ever cut off)."""
    face, lines, line = font(size), [], ""
    for word in text.split(" "):
        while face.getlength(word) > width:  # a word wider than the line: its pieces, each on a line
            cut = max(1, next(i for i in range(len(word), 0, -1) if face.getlength(word[:i]) <= width or i == 1))
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:cut])
            word = word[cut:]
        if line and face.getlength(f"{line} {word}") > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


HEADER_GAP = 24  # between the title and the sides' legend on one line


def header_layout(game: Game, width: int) -> tuple[int, list[tuple[str, Box, int]]]:
    """The header's height and its texts ((text, box, size); a legend entry's box holds its chip):
    the title in as many lines as the picture's width needs, then the sides' legend on the title's
    last line when it fits beside it, else on a line of its own (wrapped too): they never overlap."""
    room = width - 2 * MARGIN
    texts: list[tuple[str, Box, int]] = []
    y = 8
    lines = _words(title_of(game), TITLE_SIZE, room)
    for line in lines:
        w = math.ceil(font(TITLE_SIZE).getlength(line))
        texts.append((line, (MARGIN, y, MARGIN + w, y + TITLE_SIZE + 3), TITLE_SIZE))
        y += TITLE_SIZE + 5
    entries = [(game.side_name(i), 16 + math.ceil(font(LABEL_SIZE).getlength(game.side_name(i))))
               for i in range(len(game.sides))]
    legend_w = sum(w for _, w in entries) + 14 * (len(entries) - 1)
    last = texts[-1][1]
    if last[2] + HEADER_GAP + legend_w <= width - MARGIN:  # beside the title's last line, right-aligned
        x, y_legend = width - MARGIN - legend_w, last[1] + 3
    else:
        x, y_legend = MARGIN, y
        y += LABEL_SIZE + 6
    for name, w in entries:
        if x + w > width - MARGIN and x > MARGIN:  # the legend wraps too
            x, y_legend = MARGIN, y_legend + LABEL_SIZE + 6
            y = max(y, y_legend + LABEL_SIZE + 6)
        texts.append((name, (x, y_legend, x + w, y_legend + LABEL_SIZE + 2), LABEL_SIZE))
        x += w + 14
    return max(HEADER, y + 4), texts


def _header(draw: ImageDraw.ImageDraw, game: Game, width: int, picture: "MapPicture | None" = None) -> int:
    """Draw the header (``header_layout``); its height."""
    height, texts = header_layout(game, width)
    names = {game.side_name(i): i for i in range(len(game.sides))}
    title_lines = len(texts) - len(game.sides)
    for n, (text, box, size) in enumerate(texts):
        if n < title_lines:
            draw.text((box[0], box[1]), text, fill=INK, font=font(size))
        else:
            draw.rectangle((box[0], box[1] + 1, box[0] + 11, box[1] + 12), fill=side_rgb(names.get(text)))
            draw.text((box[0] + 16, box[1]), text, fill=INK, font=font(size))
        if picture is not None:
            picture.wrote(text, box, size)
    return height


@dataclass(frozen=True)
class Row:
    """One line of a stack's label: a Location marker ("place"), a counter (with its side's chip, and
    its markers when they fit on the line), a counter's markers on a line of their own ("marks"), or
    the count of counters left out ("more")."""

    kind: str
    text: str
    side: int | None = None
    marks: str = ""


def counter_forms(unit: UnitBase) -> list[str]:
    """What a counter's line may say, longest first: the id, its values and its name; the id and its
    values; the id alone (a label keeps the first that fits; the map's notes name what it left out)."""
    full = counter_text(unit)
    words = full.split("  ", 1)
    forms = [full]
    if len(words) == 2:
        rest = words[1].split(" ")
        if _VALUES.match(rest[0]) or (len(rest[0]) <= 5 and rest[0][:1].isdigit()):
            forms.append(f"{unit.id}  {rest[0]}")
        forms.append(unit.id)
    return list(dict.fromkeys(forms))


def label_rows(ruleset: Ruleset, units: list[UnitBase], extra: list[str], location_id: str = "",
               keep: Iterable[str] = (), place: str = "") -> list[Row]:
    """The lines of a stack's label, in the stack's order: under the hex id when they fit there
    (UNDER_ID), else headed by the hex id (and ``place``, the terrain, when it fits beside it), at
    most MAX_ROWS in all. Nothing is cut: a counter's line is the longest of ``counter_forms`` that
    fits, its markers wrapped by words; a stack too tall shows "+N more" last, and never leaves
    out a counter of ``keep`` (the latest fire's)."""
    label_font, small = font(LABEL_SIZE), font(SMALL_SIZE)
    room = LABEL_W - 8
    groups: list[tuple[list[Row], bool]] = [([Row("place", text)], True) for text in extra]  # (rows, must show)
    kept = {k.casefold() for k in keep}
    for unit in units:
        text = next((f for f in counter_forms(unit) if CHIP + label_font.getlength(f) <= room), None)
        marks = ", ".join(markers(ruleset, unit))
        if text is None:  # even the id is wider than a label: it goes on as many lines as it needs
            pieces = _words(unit.id, LABEL_SIZE, room - CHIP)
            group = [Row("counter", pieces[0], unit.side)] + [Row("cont", p, unit.side) for p in pieces[1:]]
        elif marks and CHIP + label_font.getlength(text) + 4 + small.getlength(marks) <= room:
            group, marks = [Row("counter", text, unit.side, marks)], ""
        else:
            group = [Row("counter", text, unit.side)]
        group += [Row("marks", line, unit.side) for line in (_words(marks, SMALL_SIZE, room - MARKS_INDENT) if marks
                                                              else [])]
        groups.append((group, unit.id.casefold() in kept))
    count = sum(len(g) for g, _ in groups)
    head = []
    if count > UNDER_ID:  # the label covers the hex id (and its terrain): it says them itself
        both = f"{location_id} · {place}"
        head = [Row("id", both if place and small.getlength(both) <= room else location_id)]
    if len(head) + count <= MAX_ROWS:
        return head + [r for g, _ in groups for r in g]
    budget = MAX_ROWS - len(head) - 1  # the last line says how many counters are left out
    used = sum(len(g) for g, must in groups if must)
    chosen = []
    for g, must in groups:  # in the stack's order: the fire's counters and the place's markers first
        if must or used + len(g) <= budget:
            chosen.append(g)
            used += 0 if must else len(g)
    rows = [r for g in chosen for r in g][:budget]
    shown = sum(1 for r in rows if r.kind == "counter")
    return head + rows + [Row("more", f"+{len(units) - shown} more")]


def _draw_label(draw: ImageDraw.ImageDraw, centre: Point, rows: list[Row]) -> Box:
    """A stack's label: a white box centred on ``centre``, no wider than the space between two
    columns of hexes (so neighbours' labels never overlap); every line fits whole (``label_rows``)."""
    label_font, small = font(LABEL_SIZE), font(SMALL_SIZE)
    box = _label_box(centre, rows)
    x0, y0, width = box[0], box[1], box[2] - box[0]
    draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=LABEL_BG, outline=HEX_EDGE)
    y = y0 + 2
    for row in rows:
        if row.kind == "counter":
            draw.rectangle((x0 + 4, y + 3, x0 + 14, y + 13), fill=side_rgb(row.side))
            draw.text((x0 + CHIP + 4, y), row.text, fill=INK, font=label_font)
            if row.marks:
                draw.text((x0 + CHIP + 8 + label_font.getlength(row.text), y + 1), row.marks, fill=MARKER_RGB,
                          font=small)
        elif row.kind == "id":
            draw.text((x0 + width / 2, y + 1), row.text, fill=INK, font=small, anchor="mt")
        else:
            indent = INDENT.get(row.kind, 0)
            colour = INK if row.kind in ("more", "cont") else MARKER_RGB
            draw.text((x0 + 4 + indent, y + 1), row.text, fill=colour, font=small)
        y += LINE
    return box


def _arrow(draw: ImageDraw.ImageDraw, start: Point, end: Point, colour: tuple[int, int, int],
           path: list[Point] | None = None) -> None:
    """An arrow from ``start`` to ``end``: straight, or along ``path`` (its points, start to end)."""
    points = path or [start, end]
    length = math.dist(start, end)
    if length < 1:
        draw.ellipse((end[0] - 14, end[1] - 14, end[0] + 14, end[1] + 14), outline=colour, width=4)
        return
    last = points[-2]
    step = math.dist(last, end)
    ux, uy = (end[0] - last[0]) / step, (end[1] - last[1]) / step  # the head points along the line's last piece
    head = 16
    neck = (end[0] - ux * head, end[1] - uy * head)
    draw.line([*points[:-1], neck], fill=colour, width=5, joint="curve")
    left = (neck[0] - uy * head * 0.55, neck[1] + ux * head * 0.55)
    right = (neck[0] + uy * head * 0.55, neck[1] - ux * head * 0.55)
    draw.polygon((end, left, right), fill=colour)
    draw.ellipse((start[0] - 5, start[1] - 5, start[0] + 5, start[1] + 5), fill=colour)


ARROW_CLEARANCE = 4  # pixels kept between a bent arrow's line and a stand it passes
ARROW_BENDS = (0.05, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5)  # how far a bent arrow bows out, as a share of its length


def _crosses(points: list[Point], box: Box) -> bool:
    """Whether the line through ``points`` passes over ``box`` (widened by the line's half-width)."""
    x0, y0, x1, y1 = (box[0] - ARROW_CLEARANCE, box[1] - ARROW_CLEARANCE,
                      box[2] + ARROW_CLEARANCE, box[3] + ARROW_CLEARANCE)
    for a, b in zip(points, points[1:]):
        samples = max(1, math.ceil(math.dist(a, b) / 3))
        for i in range(samples + 1):
            x, y = a[0] + (b[0] - a[0]) * i / samples, a[1] + (b[1] - a[1]) * i / samples
            if x0 <= x <= x1 and y0 <= y <= y1:
                return True
    return False


def clear_path(start: Point, end: Point, stands: Iterable[Box], writing: Iterable[Box], inside: Box) -> list[Point]:
    """The line of an arrow from ``start`` to ``end`` that crosses none of ``stands`` (the stands
    between: a straight arrow over a stand hides its name and state): straight when it can be,
    else a curve bowing out above (then below) the straight line, the least bent that stays
    ``inside`` the picture and crosses no stand, and crosses no ``writing`` (the title, a group's
    name) if one can; straight when none is."""
    stands, writing = list(stands), list(writing)
    straight = [start, end]
    if not any(_crosses(straight, box) for box in stands + writing):
        return straight
    length = math.dist(start, end)
    ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    curves = []
    for bend in ARROW_BENDS:
        for side in (1, -1):  # (uy, -ux) is "up" for an arrow drawn left to right
            # a quadratic Bezier curve whose control point is twice as far out as the curve's peak
            cx, cy = middle[0] + side * uy * bend * length * 2, middle[1] - side * ux * bend * length * 2
            curve = [((1 - t) ** 2 * start[0] + 2 * (1 - t) * t * cx + t ** 2 * end[0],
                      (1 - t) ** 2 * start[1] + 2 * (1 - t) * t * cy + t ** 2 * end[1])
                     for t in (i / 24 for i in range(25))]
            within = all(inside[0] <= x <= inside[2] and inside[1] <= y <= inside[3] for x, y in curve)
            if within and not any(_crosses(curve, box) for box in stands):
                curves.append(curve)
    clear = [curve for curve in curves if not any(_crosses(curve, box) for box in writing)]
    if not any(_crosses(straight, box) for box in stands):
        return clear[0] if clear else straight  # over writing only: bent only to keep it readable
    return (clear or curves or [straight])[0]


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _text_box(x: float, y: float, text: str, size: int, anchor: str) -> Box:
    x0, y0, x1, y1 = font(size).getbbox(text, anchor=anchor)
    return (math.floor(x + x0), math.floor(y + y0), math.ceil(x + x1), math.ceil(y + y1))


WHOLE_MAP = "/game map whole:yes"  # how a player asks for the whole map of a zoomed one


def _hex_map(game: Game, shot: Shot | None, line: SightLine | None = None, whole: bool = False) -> MapPicture:
    ruleset = get_ruleset(game.ruleset)
    units = [u for u in game.units.values() if not u.eliminated]
    in_play = list(game.locations) + [u.location for u in units if u.location and u.location not in game.locations]
    if line is not None:  # the hexes of a line of sight are drawn, whether in play or not
        in_play += [line.source, line.target] + [h.id for step in line.steps for h in step.hexes]
    place = placer(ruleset.grid, game)
    stacks: dict[str, list[UnitBase]] = {}
    for unit in units:
        if unit.location is not None:
            stacks.setdefault(unit.location, []).append(unit)
    window = None
    if not whole:  # a map wider than a phone shows it: the area in play, the latest order's hexes round it
        focus = ([line.source, line.target] if line is not None else
                 [*shot.sources, shot.target] if shot is not None else [])
        window = view_window(laid_out(in_play, place), focus, stacks)
    header, _ = header_layout(game, hex_layout(in_play, place, window=window).size[0])
    layout = hex_layout(in_play, place, header, window)
    keep = shot.units if shot is not None else ()
    labels: dict[str, list[Row]] = {}
    for location_id in layout.centres:
        location = game.locations.get(location_id)
        extra = location_markers(ruleset, location) if location else []
        stack = stacks.get(location_id, [])
        if stack or extra:
            labels[location_id] = label_rows(ruleset, stack, extra, location_id, keep=keep,
                                             place=terrain_words(location))
    label_boxes = {loc: _label_box(layout.centres[loc], rows) for loc, rows in labels.items()}
    hex_texts: list[tuple[str, Point, str, Box]] = []  # the hexes' ids and terrains, drawn over the fire's arrow
    crowded: list[str] = []  # a hex's terrain that a neighbour's label would cover: named under the map
    for location_id, centre in layout.centres.items():
        location = game.locations.get(location_id)
        if location is None and line is not None and location_id not in (u.location for u in units):
            continue  # terrain unknown: its id is drawn with its hex
        covering = label_boxes.get(location_id)
        for text, at, anchor in ((location_id, (centre[0], centre[1] - HEX_H / 2 + 3), "mt"),
                                 (terrain_words(location), (centre[0], centre[1] + HEX_H / 2 - 3), "mb")):
            box = _text_box(at[0], at[1], text, SMALL_SIZE, anchor) if text else None
            if box is None or (covering is not None and _overlaps(box, covering)):
                continue  # (a text under the label: the label says it itself)
            if any(_overlaps(box, other) for loc, other in label_boxes.items() if loc != location_id) \
                    or any(_overlaps(box, drawn[3]) for drawn in hex_texts):
                crowded.append(f"{location_id} {text}")  # under a neighbour's label: said under the map
                continue
            hex_texts.append((text, at, anchor, box))
    notes = _notes(game, units, in_play, layout, labels, stacks)
    if crowded:
        notes.append("Terrain: " + "; ".join(crowded))
    if window is not None:
        outside = [loc for loc in stacks if loc not in layout.centres]
        corners = (f"{ruleset.grid.name((window.c0, window.r0), game.boards)} to "
                   f"{ruleset.grid.name((window.c1, window.r1), game.boards)}" if ruleset.grid is not None else "")
        notes = [f"The area in play{f', {corners}' if corners else ''}"
                 + (f"; {len(outside)} more stacks outside it ({', '.join(outside)})" if outside else "")
                 + f"; the whole map: {WHOLE_MAP}",
                 *[note for note in notes if not note.endswith("(too far from the others, or too many)")]]
    note_lines = [line for note in notes for line in _words(note, SMALL_SIZE, layout.size[0] - 2 * MARGIN)]
    notes_top = layout.size[1] - MARGIN // 2
    size = (layout.size[0], notes_top + len(note_lines) * (LINE + 1) + MARGIN // 2 if note_lines else layout.size[1])
    image = Image.new("RGB", size, WHITE)
    draw = ImageDraw.Draw(image)
    picture = MapPicture(b"", size, dict(layout.centres), window=window)
    _header(draw, game, size[0], picture)
    located = set(layout.centres.values())
    for (column, row), centre in layout.grid.items():
        if centre not in located:
            draw.polygon(hex_corners(centre), fill=EMPTY_HEX, outline=HEX_EDGE)
    small = font(SMALL_SIZE)
    for location_id, centre in layout.centres.items():
        location = game.locations.get(location_id)
        if location is None and line is not None and location_id not in (u.location for u in units):
            draw.polygon(hex_corners(centre), fill=UNKNOWN_TERRAIN, outline=INK, width=1)  # terrain unknown
            draw.text((centre[0], centre[1] - HEX_H / 2 + 3), location_id, fill=INK, font=font(SMALL_SIZE), anchor="mt")
            continue
        terrain = location.terrain if location else "open"
        draw.polygon(hex_corners(centre), fill=terrain_rgb(terrain), outline=INK, width=1)
        if raised(location):  # a hill: a ring of its colour inside the hex's edge
            draw.polygon(hex_corners(centre, RADIUS - 5), outline=TERRAIN_RGB["hill"], width=6)
    if shot is not None and shot.target in layout.centres:  # under the labels, which stay readable
        end = layout.centres[shot.target]
        for source in shot.sources or (shot.target,):
            start = layout.centres.get(source)
            if start is not None:
                path = between_labels(start, end, label_boxes.get(source), label_boxes.get(shot.target))
                _arrow(draw, path[0], path[1], side_rgb(shot.side))
                picture.arrows.append((start, end))
                picture.paths.append(path)
    for text, at, anchor, box in hex_texts:
        draw.text(at, text, fill=INK, font=small, anchor=anchor)
        picture.wrote(text, box, SMALL_SIZE)
    for location_id, rows in labels.items():
        box = _draw_label(draw, layout.centres[location_id], rows)
        picture.labels[location_id] = box
        picture.wrote(" / ".join(r.text + (f" {r.marks}" if r.marks else "") for r in rows), box, SMALL_SIZE)
    for i, note in enumerate(note_lines):
        y = notes_top + i * (LINE + 1)
        draw.text((MARGIN, y), note, fill=INK, font=small)
        picture.wrote(note, _text_box(MARGIN, y, note, SMALL_SIZE, "la"), SMALL_SIZE)
    if line is not None:  # /los: the line and its marks over everything, the picture's subject
        _draw_sight(draw, layout, line, picture)
    picture.png = png(image, MAP_PALETTE)
    return picture


ARROW_GAP = 4  # pixels between a fire arrow's ends and the labels it joins


def _leaving(point: Point, towards: Point, box: Box) -> Point:
    """Where the line from ``point`` (inside ``box``) to ``towards`` leaves ``box``, ARROW_GAP beyond."""
    (x, y), (tx, ty) = point, towards
    length = math.dist(point, towards)
    ux, uy = (tx - x) / length, (ty - y) / length
    t = min([((box[2] + ARROW_GAP - x) / ux) if ux > 0 else ((box[0] - ARROW_GAP - x) / ux) if ux < 0 else math.inf,
             ((box[3] + ARROW_GAP - y) / uy) if uy > 0 else ((box[1] - ARROW_GAP - y) / uy) if uy < 0 else math.inf])
    return (x + ux * t, y + uy * t)


def between_labels(start: Point, end: Point, source: Box | None, target: Box | None) -> list[Point]:
    """A fire arrow's line from the firing hex to the target's, from the edge of the firers' label to
    the edge of the target's (drawn under the labels, its head stays in sight); centre to centre
    when the labels leave no room between them (the same hex, neighbours whose labels touch)."""
    if math.dist(start, end) < 1:
        return [start, end]
    a = _leaving(start, end, source) if source and _inside(start, source) else start
    b = _leaving(end, start, target) if target and _inside(end, target) else end
    if math.dist(a, b) < 24 or math.dist(start, b) <= math.dist(start, a):
        return [start, end]
    return [a, b]


def off_bases(path: list[Point], first: Box, last: Box) -> list[Point]:
    """``path`` (a CD fire's line, from the firing stand's centre to the target's) from the edge of
    the firer's base to the edge of the target's, ARROW_GAP beyond them; the whole line when that
    leaves too little of it (the two stands side by side)."""
    def grown(box: Box) -> Box:
        return (box[0] - ARROW_GAP, box[1] - ARROW_GAP, box[2] + ARROW_GAP, box[3] + ARROW_GAP)

    i, j = 0, len(path) - 1
    while i < j and _inside(path[i + 1], grown(first)):
        i += 1
    while j > i + 1 and _inside(path[j - 1], grown(last)):
        j -= 1
    if i >= j:
        return path
    a = _leaving(path[i], path[i + 1], first) if _inside(path[i], grown(first)) else path[i]
    b = _leaving(path[j], path[j - 1], last) if _inside(path[j], grown(last)) else path[j]
    clipped = [a, *path[i + 1:j], b]
    return clipped if sum(math.dist(p, q) for p, q in zip(clipped, clipped[1:])) >= 24 else path


def _inside(point: Point, box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _label_box(centre: Point, rows: list[Row]) -> Box:
    """The box ``_draw_label`` draws (computed first, to know which hex ids it covers)."""
    label_font, small = font(LABEL_SIZE), font(SMALL_SIZE)
    needed = [CHIP + label_font.getlength(r.text) + (4 + small.getlength(r.marks) if r.marks else 0)
              if r.kind == "counter" else INDENT.get(r.kind, 0) + small.getlength(r.text) for r in rows]
    width = min(LABEL_W, math.ceil(max(needed or [0])) + 8)
    height = LINE * len(rows) + 4
    x0, y0 = round(centre[0] - width / 2), round(centre[1] - height / 2)
    return (x0, y0, x0 + width, y0 + height)


def _notes(game: Game, units: list[UnitBase], in_play: list[str], layout: Layout, labels: dict[str, list[Row]],
           stacks: dict[str, list[UnitBase]]) -> list[str]:
    """The lines under the map: the counters off board, what the labels left out (the names of the
    counters shown by id and values, the counters of a stack too tall), the Locations not drawn."""
    notes = []
    off = [u.id for u in units if u.location is None]
    if off:
        notes.append("Off board: " + ", ".join(off))
    named: dict[str, list[str]] = {}
    for location_id, rows in labels.items():
        shown = {r.text for r in rows if r.kind == "counter"}
        for unit in stacks.get(location_id, []):
            full = counter_text(unit)
            if full not in shown and any(f in shown for f in counter_forms(unit)[1:]):
                named.setdefault(full.split("  ", 1)[1], []).append(unit.id)
        hidden = [u.id for u in stacks.get(location_id, [])
                  if not any(r.text in counter_forms(u) for r in rows if r.kind == "counter")]
        if hidden:
            notes.append(f"Also in {location_id}: {', '.join(hidden)}")
    if named:
        notes.append("Counters: " + "; ".join(f"{', '.join(ids)}: {name}" for name, ids in named.items()))
    left_out = len(set(in_play) - set(layout.centres))
    if left_out:
        notes.append(f"{left_out} more Locations not drawn (too far from the others, or too many)")
    return notes


def _draw_sight(draw: ImageDraw.ImageDraw, layout: Layout, line: SightLine, picture: MapPicture) -> None:
    """The line of sight over the map: each hex that blocks it crossed out in red, each that hinders it
    ringed in orange, each of unknown terrain marked "?", and the line itself from centre to centre."""
    for step in line.steps:
        if step.vertex:
            continue
        for hex_ in step.hexes:
            centre = layout.centres.get(hex_.id)
            if centre is None:
                continue
            if step.blocks and hex_.terrain is not None and hex_.terrain.blocks:
                picture.marked[hex_.id] = "blocks"
                draw.polygon(hex_corners(centre, RADIUS - 4), outline=MARKER_RGB, width=4)
                corners = hex_corners(centre, RADIUS * 0.55)
                draw.line([corners[1], corners[4]], fill=MARKER_RGB, width=5)
                draw.line([corners[2], corners[5]], fill=MARKER_RGB, width=5)
            elif hex_.terrain is not None and hex_.terrain.hindrance and step.hindrance:
                picture.marked[hex_.id] = "hindrance"
                draw.polygon(hex_corners(centre, RADIUS - 4), outline=HINDRANCE_RGB, width=4)
                draw.text((centre[0], centre[1] + HEX_H / 2 - 16), f"+{hex_.terrain.hindrance}", fill=INK,
                          font=font(LABEL_SIZE), anchor="mb")
            elif hex_.terrain is None:
                picture.marked[hex_.id] = "unknown"
                draw.text((centre[0] + RADIUS / 2, centre[1]), "?", fill=INK, font=font(TITLE_SIZE), anchor="mm")
    start, end = layout.centres.get(line.source), layout.centres.get(line.target)
    if start is not None and end is not None:
        draw.line([start, end], fill=SIGHT_RGB, width=4)
        for point in (start, end):
            draw.ellipse((point[0] - 6, point[1] - 6, point[0] + 6, point[1] + 6), fill=SIGHT_RGB)
        picture.sight = (start, end)


def sight_png(game: Game, line: SightLine, whole: bool = False) -> MapPicture:
    """/los: the map with the line of sight drawn over it (``_draw_sight``), zoomed to the line unless
    ``whole``."""
    with DRAWING:
        return _hex_map(game, None, line, whole)


# --- the table top (Command Decision) ----------------------------------------------------------------

STAND_W, STAND_H = 132, 54  # a stand's base; STAND_H at least: every base of a picture is as high as its longest needs
GROUP_PAD = 10
GROUP_COLUMNS = 1  # groups side by side (one: a picture no wider than a phone shows it)


def _table_groups(game: Game) -> tuple[str, dict[str, list[UnitBase]]]:
    stands = [u for u in game.units.values() if not u.eliminated]
    if any(u.location for u in stands):
        groups: dict[str, list[UnitBase]] = {}
        for u in sorted(stands, key=lambda u: (u.location is None, u.location or "")):
            groups.setdefault(u.location or "off the table", []).append(u)
        return "position", groups
    groups = {}
    for u in sorted(stands, key=lambda u: (u.side, u.company_name)):
        company = u.company_name or "no company"
        groups.setdefault(f"{game.side_name(u.side)}: {company}", []).append(u)
    return "company", groups


def stand_lines(ruleset: Ruleset, stand: UnitBase) -> tuple[list[str], list[str], bool]:
    """A stand's base, whole: its id and name in lines that fit, then its states (or its quality) in
    lines that fit; whether the states are markers (drawn in red)."""
    marks = markers(ruleset, stand)
    states = ", ".join(marks) or ruleset.stand_note(stand)
    return (_words(f"{stand.id}  {stand.name}", LABEL_SIZE, STAND_W - 18),
            _words(states, SMALL_SIZE, STAND_W - 18) if states else [], bool(marks))


def _table_top(game: Game, shot: Shot | None = None) -> MapPicture:
    kind, groups = _table_groups(game)
    ruleset = get_ruleset(game.ruleset)
    written = {stand.id: stand_lines(ruleset, stand) for stands in groups.values() for stand in stands}
    stand_h = max([STAND_H] + [8 + LINE * len(names) + (LINE - 1) * len(states)
                               for names, states, _ in written.values()])
    per_row = 3
    boxes: dict[str, Box] = {}
    x = y = 0
    row_height = 0
    group_w = per_row * STAND_W + (per_row + 1) * GROUP_PAD
    for i, (name, stands) in enumerate(groups.items()):
        if i and i % GROUP_COLUMNS == 0:
            x, y = 0, y + row_height + GROUP_PAD
            row_height = 0
        rows = math.ceil(len(stands) / per_row)
        height = 28 + rows * (stand_h + GROUP_PAD) + GROUP_PAD // 2
        boxes[name] = (MARGIN + x, HEADER + MARGIN + y, MARGIN + x + group_w, HEADER + MARGIN + y + height)
        x += group_w + GROUP_PAD
        row_height = max(row_height, height)
    width = max([420] + [b[2] + MARGIN for b in boxes.values()])
    header, _ = header_layout(game, width)  # a header of several lines moves the groups down
    boxes = {name: (b[0], b[1] + header - HEADER, b[2], b[3] + header - HEADER) for name, b in boxes.items()}
    height = max([header + 3 * MARGIN] + [b[3] + MARGIN for b in boxes.values()])
    image = Image.new("RGB", (width, height), WHITE)
    draw = ImageDraw.Draw(image)
    picture = MapPicture(b"", (width, height))
    _header(draw, game, width, picture)
    label_font, small = font(LABEL_SIZE), font(SMALL_SIZE)
    bases: dict[str, Box] = {}  # each stand's base, which the fire's arrows go round
    writing: list[Box] = [(0, 0, width, header)]  # and the title, the legend and the groups' names
    for name, box in boxes.items():
        location = game.locations.get(name) if kind == "position" else None
        fill = terrain_rgb(location.terrain) if location else (245, 245, 240)
        draw.rounded_rectangle(box, radius=8, fill=fill, outline=HEX_EDGE)
        title = name if location is None or location.terrain == "open" else f"{name} ({location.terrain})"
        draw.text((box[0] + GROUP_PAD, box[1] + 6), title, fill=INK, font=label_font)
        writing.append(draw.textbbox((box[0] + GROUP_PAD, box[1] + 6), title, font=label_font))
        picture.wrote(title, tuple(map(math.ceil, writing[-1])), LABEL_SIZE)  # type: ignore[arg-type]
        picture.centres[name] = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        picture.labels[name] = box
        for j, stand in enumerate(groups[name]):
            sx = box[0] + GROUP_PAD + (j % per_row) * (STAND_W + GROUP_PAD)
            sy = box[1] + 28 + (j // per_row) * (stand_h + GROUP_PAD)
            draw.rectangle((sx, sy, sx + STAND_W - 1, sy + stand_h - 1), fill=WHITE, outline=side_rgb(stand.side),
                           width=3)
            draw.rectangle((sx, sy, sx + 8, sy + stand_h - 1), fill=side_rgb(stand.side))
            names, states, marked = written[stand.id]
            ty = sy + 5
            for line in names:
                draw.text((sx + 13, ty), line, fill=INK, font=label_font)
                picture.wrote(line, _text_box(sx + 13, ty, line, LABEL_SIZE, "la"), LABEL_SIZE)
                ty += LINE
            ty += 2
            for line in states:
                draw.text((sx + 13, ty), line, fill=MARKER_RGB if marked else INK, font=small)
                picture.wrote(line, _text_box(sx + 13, ty, line, SMALL_SIZE, "la"), SMALL_SIZE)
                ty += LINE - 1
            picture.stands[stand.id] = (sx + STAND_W / 2, sy + stand_h / 2)
            bases[stand.id] = (sx, sy, sx + STAND_W - 1, sy + stand_h - 1)
    if shot is not None:  # the latest fire: from the firing stand to each target, round the stands between
        for firer in shot.firers:
            for target in shot.targets:
                start, end = picture.stands.get(firer), picture.stands.get(target)
                if start is not None and end is not None:
                    others = [box for stand, box in bases.items() if stand not in (firer, target)]
                    path = clear_path(start, end, others, writing, (MARGIN, 0, width - MARGIN, height - MARGIN))
                    path = off_bases(path, bases[firer], bases[target])  # their names and states stay in sight
                    _arrow(draw, path[0], path[-1], side_rgb(shot.side), path)
                    picture.arrows.append((start, end))
                    picture.paths.append(path)
    picture.png = png(image, MAP_PALETTE)
    return picture


def map_png(game: Game, shot: Shot | None = None, whole: bool = False) -> MapPicture:
    """The picture of a game, as its ruleset's ``board`` says: hexes (ASL, NHiS), zoomed to the area in
    play when wider than a phone shows (``view_window``) unless ``whole``; or the table top (CD)."""
    with DRAWING:
        if get_ruleset(game.ruleset).board == "table":
            return _table_top(game, shot)
        return _hex_map(game, shot, whole=whole)


class MapCache:
    """The last few pictures, by the log's head hash (which fixes the state and the latest fire):
    a map asked for again (the Map button pressed twice, by two players) is not drawn again."""

    def __init__(self, size: int = 16):
        self.size = size
        self._pictures: OrderedDict[str, MapPicture] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key: str) -> MapPicture | None:
        picture = self._pictures.get(key)
        if picture is None:
            self.misses += 1
            return None
        self._pictures.move_to_end(key)
        self.hits += 1
        return picture

    def put(self, key: str, picture: MapPicture) -> None:
        self._pictures[key] = picture
        self._pictures.move_to_end(key)
        while len(self._pictures) > self.size:
            self._pictures.popitem(last=False)
