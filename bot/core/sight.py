"""The line of sight, read from what the bot knows of the map.

The line is drawn from the centre of one hex to the centre of the other (``crossed``, exact
geometry: the hexes whose inside the line passes through, in order; two hexes at once where it runs
exactly along their common hexside; a hex the line only touches at a vertex is not crossed). Each
hex crossed is read from the game's Locations: its terrain as set with ``/location set`` or by a
scenario, through the ruleset's ``sight_terrain`` (an obstacle that blocks, a hindrance and its DRM);
a hex the game does not hold is *unknown*, named as such and never read as open. The rules each
choice follows are the grid's (``HexGrid.line_rule``, ``hexside_rule``, ``vertex_rule``), cited in
every reading. Levels (hills, upper building levels) are not in the terrain data: the line is read
at ground level, and the reading says so.

``/los`` shows a reading; a fire reads the same line (game option ``los``: ``advise``, ``strict``,
``off``) to add the hindrances it counts and to stop at a line it reads as blocked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import ConfirmSight, IllegalOrder, InvalidOrder
from .grid import Cell, HexGrid, at, centre, distance, neighbours
from .rulesets import get_ruleset

if TYPE_CHECKING:
    from .game import Game, Location
    from .trail import Trail

EPS = 1e-9
SHRINK = 1e-6  # the inside of a hex: the hex shrunk by this, so a line along its hexside is not inside it
LEVELS_NOTE = "levels (hills, upper building levels) are not computed: the line is read at ground level"


@dataclass(frozen=True)
class SightTerrain:
    """What a known hex does to a line of sight crossing it (the ruleset's terrain table)."""

    name: str
    blocks: bool  # an obstacle
    hindrance: int  # the DRM it adds, 0 for none
    rule: str  # the terrain chart
    inherent: bool = False  # fills its whole hex (ASL B.6): hinders a line along its hexside too


@dataclass(frozen=True)
class Crossed:
    """One step of the line: a hex, or the two hexes of a hexside the line runs along."""

    cells: tuple[Cell, ...]
    vertex: bool = False  # the line only passes through a vertex of these hexes: they are not crossed

    @property
    def along_hexside(self) -> bool:
        return len(self.cells) == 2 and not self.vertex


def _clip(p0: tuple[float, float], d: tuple[float, float], cell: Cell, radius: float) -> tuple[float, float] | None:
    """The part [t0, t1] of the segment p0 + t d (t in 0..1) inside the hex of ``radius`` round the
    cell's centre (Cyrus-Beck), or None."""
    cx, cy = centre(cell)
    lo, hi = 0.0, 1.0
    for k in range(6):
        a0 = math.radians(60 * k)
        ex, ey = cx + radius * math.cos(a0), cy + radius * math.sin(a0)
        mid = math.radians(60 * k + 30)
        nx, ny = math.cos(mid), math.sin(mid)  # the edge's outward normal
        num = nx * (p0[0] - ex) + ny * (p0[1] - ey)
        den = nx * d[0] + ny * d[1]
        if abs(den) < EPS:
            if num > EPS:
                return None
            continue
        t = -num / den
        if den > 0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
        if lo > hi + EPS:
            return None
    return lo, hi


def crossed(a: Cell, b: Cell) -> list[Crossed]:
    """The hexes between ``a`` and ``b`` (neither included) the line from centre to centre crosses,
    in order from ``a``."""
    if a == b:
        return []
    p0, p1 = centre(a), centre(b)
    d = (p1[0] - p0[0], p1[1] - p0[1])
    length = math.hypot(*d)
    samples = 4 * distance(a, b) + 1
    candidates: set[Cell] = set()
    for i in range(samples + 1):
        t = i / samples
        here = at((p0[0] + d[0] * t, p0[1] + d[1] * t))
        candidates.add(here)
        candidates.update(neighbours(here))
    candidates -= {a, b}
    inside: list[tuple[float, Cell]] = []
    edges: dict[tuple[int, int], list[Cell]] = {}
    vertices: dict[int, list[Cell]] = {}
    for cell in candidates:
        closed = _clip(p0, d, cell, 1.0)
        if closed is None:
            continue
        if (closed[1] - closed[0]) * length < 1e-6:  # touched at a vertex only
            vertices.setdefault(round(closed[0] * 1e6), []).append(cell)
            continue
        interior = _clip(p0, d, cell, 1.0 - SHRINK)
        if interior is not None and (interior[1] - interior[0]) * length > 1e-4:
            inside.append(((closed[0] + closed[1]) / 2, cell))
        else:  # the line runs along one of its hexsides
            key = (round(closed[0] * 1e6), round(closed[1] * 1e6))
            edges.setdefault(key, []).append(cell)
    steps: list[tuple[float, Crossed]] = [(t, Crossed((cell,))) for t, cell in inside]
    for (t0, t1), cells in edges.items():
        steps.append(((t0 + t1) / 2e6, Crossed(tuple(sorted(cells)))))
    for t, cells in vertices.items():
        steps.append((t / 1e6, Crossed(tuple(sorted(cells)), vertex=True)))
    steps.sort(key=lambda s: s[0])
    return [s for _, s in steps]


@dataclass(frozen=True)
class HexRead:
    """A hex crossed, as the bot knows it: its id, its terrain (None: unknown)."""

    id: str
    terrain: SightTerrain | None
    smoke: bool = False


@dataclass(frozen=True)
class StepRead:
    hexes: tuple[HexRead, ...]
    blocks: bool
    hindrance: int
    unknown: bool  # a hex of it is unknown (and the step is not blocked by what is known)
    vertex: bool = False  # the line passes through a vertex of these hexes, crossing none of them

    @property
    def along_hexside(self) -> bool:
        return len(self.hexes) == 2 and not self.vertex

    @property
    def name(self) -> str:
        return "/".join(h.id for h in self.hexes)


@dataclass(frozen=True)
class SightLine:
    """A line of sight read along the map."""

    source: str
    target: str
    range: int
    steps: tuple[StepRead, ...]
    grid: HexGrid
    source_cell: Cell
    target_cell: Cell

    @property
    def blocked(self) -> bool:
        return any(s.blocks for s in self.steps)

    @property
    def blockers(self) -> list[StepRead]:
        return [s for s in self.steps if s.blocks]

    @property
    def hindrances(self) -> list[StepRead]:
        return [s for s in self.steps if s.hindrance and not s.blocks]

    @property
    def hindrance(self) -> int:
        return sum(s.hindrance for s in self.hindrances)

    @property
    def unknown(self) -> list[str]:
        return [h.id for s in self.steps if not s.vertex for h in s.hexes if h.terrain is None]

    def hexes(self) -> list[str]:
        """The hexes the line crosses, in order ("A5/B4" for a hexside it runs along)."""
        return [s.name for s in self.steps if not s.vertex]

    def verdict(self) -> str:
        """"blocked by 32E3 (Woods)", "clear, hindrance +2", "clear": the reading in a few words."""
        if self.blocked:
            return "blocked by " + ", ".join(_step_text(s) for s in self.blockers)
        hindering = ", ".join(f"{s.name} {' | '.join(_hex_text(h) for h in s.hexes)} +{s.hindrance}"
                              for s in self.hindrances)
        words = "clear" + (f", hindrance +{self.hindrance}: {hindering}" if self.hindrance else "")
        if self.unknown:
            words += f"; terrain unknown in {', '.join(self.unknown)} (not read as open: check them)"
        return words

    def lines(self) -> list[tuple[str, str]]:
        """(text, rule) lines a trail or an answer shows: the line, each hex crossed, the verdict."""
        grid = self.grid
        out = [(f"Line of sight {self.source} to {self.target}, range {self.range}, hex centre to hex centre",
                grid.line_rule)]
        if not self.steps:
            out.append(("no hex between them" if self.range == 1 else "the same hex", grid.line_rule))
        for step in self.steps:
            if step.vertex:
                out.append((f"through a vertex of {' and '.join(h.id for h in step.hexes)}: not crossed, not read",
                            grid.vertex_rule))
            elif step.along_hexside:
                out.append((f"along the hexside of {step.hexes[0].id} and {step.hexes[1].id} (blocked only if both "
                            f"sides block): {_hex_text(step.hexes[0])} | {_hex_text(step.hexes[1])} -> "
                            f"{_effect(step)}", grid.hexside_rule))
            else:
                hex_ = step.hexes[0]
                rule = hex_.terrain.rule if hex_.terrain is not None else grid.line_rule
                out.append((f"{hex_.id}: {_hex_text(hex_)} -> {_effect(step)}", rule))
            smoky = [h.id for h in step.hexes if h.smoke]
            if smoky:
                out.append((f"SMOKE in {', '.join(smoky)}: its hindrance is not read (give it with hindrance:)",
                            grid.hindrance_rule))
        out.append((LEVELS_NOTE, "assumed"))
        return out


def _hex_text(hex_: HexRead) -> str:
    return hex_.terrain.name if hex_.terrain is not None else "terrain unknown"


def _step_text(step: StepRead) -> str:
    names = " | ".join(_hex_text(h) for h in step.hexes)
    return f"{step.name} ({names})"


def _effect(step: StepRead) -> str:
    if step.blocks:
        return "blocks"
    if step.hindrance:
        return f"hindrance +{step.hindrance}"
    if step.unknown:
        return "unknown"
    return "open"


def _read_step(crossing: Crossed, hexes: tuple[HexRead, ...]) -> StepRead:
    known = [h.terrain for h in hexes if h.terrain is not None]
    unknown = len(known) < len(hexes)
    if crossing.vertex:  # only touched at a vertex: not crossed (the grid's vertex_rule)
        return StepRead(hexes, False, 0, False, vertex=True)
    if crossing.along_hexside:
        # a line along a hexside: blocked only when both sides block; a hindrance filling its hex
        # (inherent terrain) on either side hinders it, counted once (the grid's hexside_rule)
        blocks = len(known) == 2 and all(t.blocks for t in known)
        hindrance = max([t.hindrance for t in known if t.inherent and not t.blocks] or [0])
    else:
        blocks = bool(known) and known[0].blocks
        hindrance = known[0].hindrance if known else 0
    return StepRead(hexes, blocks, hindrance, unknown and not blocks)


def read_sight(grid: HexGrid | None, terrain_of: Callable[[Location], SightTerrain], game: Game, source: str,
               target: str, *, field: str = "from", target_field: str = "to") -> SightLine:
    """The line of sight from Location ``source`` to Location ``target`` of ``game``, read with the
    ruleset's grid and its terrain (``terrain_of``, the ruleset's ``sight_terrain``). Refuses when the
    ruleset has no grid, or the grid cannot place either Location."""
    if grid is None or grid.kind != "hexes":
        raise IllegalOrder("this game's map has no hex grid the bot can read: the line of sight is the players' "
                           "to judge")
    cells = []
    for location_id, name in ((source, field), (target, target_field)):
        cell = grid.cell(location_id, game.boards)
        if cell is None:
            raise InvalidOrder(f"the map cannot place '{location_id[:30]}': {grid.title}, e.g. {grid.example}",
                               field=name)
        cells.append(cell)
    ruleset = get_ruleset(game.ruleset)  # whether a Location holds smoke is its ruleset's (smoke_in)
    known: dict[Cell, Location] = {}
    for location in game.locations.values():
        cell = grid.cell(location.id, game.boards)
        if cell is not None:
            known.setdefault(cell, location)

    def named(cell: Cell) -> str:  # the Location's own id where the game has one, else the grid's
        location = known.get(cell)
        return location.id if location is not None else grid.name(cell, game.boards)

    steps = []
    for crossing in crossed(cells[0], cells[1]):
        hexes = []
        for cell in crossing.cells:
            location = known.get(cell)
            name = named(cell)
            terrain = terrain_of(location) if location is not None else None
            hexes.append(HexRead(name, terrain, location is not None and ruleset.smoke_in(location)))
        steps.append(_read_step(crossing, tuple(hexes)))
    return SightLine(named(cells[0]), named(cells[1]), distance(cells[0], cells[1]), tuple(steps), grid, cells[0],
                     cells[1])


# --- a fire reads the line (game option ``los``) ---------------------------------------------------------------


def read_lines(trail: Trail, grid: HexGrid, terrain_of: Callable[[Location], SightTerrain], game: Game,
               sources: list[str], target: str) -> list[SightLine]:
    """The line of sight from each firing Location to ``target``, each shown in the trail; none when the
    game option ``los`` is ``off``, and a Location the map cannot place is said to be unread."""
    mode = game.options.get("los", "advise")
    lines: list[SightLine] = []
    if mode == "off":
        trail.note("line of sight not read on the map (game option los=off)", rule=grid.line_rule)
        return lines
    for source in sources:
        if source.casefold() == target.casefold():
            continue
        if grid.cell(source, game.boards) is None or grid.cell(target, game.boards) is None:
            trail.note(f"line of sight {source} to {target} not read: the map cannot place both", rule=grid.line_rule)
            continue
        line = read_sight(grid, terrain_of, game, source, target)
        trail.section(f"Line of sight {source} to {target}, hex centre to hex centre (los={mode})",
                      rule=grid.line_rule)
        for text, rule in line.lines()[1:]:
            trail.note(text, rule=rule)
        trail.note(f"read on the map: {line.verdict()}", rule=grid.hindrance_rule)
        lines.append(line)
    return lines


def check_blocked(trail: Trail, game: Game, lines: list[SightLine], confirmed: bool, rule: str, *,
                  field: str) -> None:
    """A line read as blocked: refused under ``los=strict``; under ``advise`` put to the firer to confirm
    (``ConfirmSight``, naming the order's ``field`` that confirms it) unless the order says the firer
    did, which the trail then says."""
    blocked = [line for line in lines if line.blocked]
    if not blocked:
        return
    why = "; ".join(f"{line.source} to {line.target} {line.verdict()}" for line in blocked)
    if game.options.get("los", "advise") == "strict":
        raise IllegalOrder(f"no line of sight: {why}, reading whole hexes ({rule}; the game option los=strict "
                           f"refuses it)")
    if not confirmed:
        raise ConfirmSight(f"the bot reads the line of sight as {why}, reading whole hexes ({rule}): fire anyway "
                           f"if the terrain art leaves it clear", field=field)
    trail.note(f"the firer confirmed the line of sight, which the bot reads as {why}", rule=rule)
