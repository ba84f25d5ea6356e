"""Fire (seed 001, digest "Fire"): the firers' FP, the FP modifiers, the column and its shifts,
2d6 on the Fire Table, then the Hit or Damaged result on every enemy unit in the target hex."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dice import Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game, Location
from ...grid import counts_ranges, read_ranges
from ...sight import check_blocked, read_lines
from ...sequence import refereed
from ...sides import possessive
from ...outcome import Outcome, TableCell
from . import tables
from .board import NHIS_GRID, sight_terrain
from .context import NhisContext
from .damage import damaged
from .models import NhisUnit
from .morale import hit_checks
from .orders import NhisFire

MARKED = frozenset({"move", "fire", "charge"})  # markers that cancel the terrain shift
MOVING_MARKERS = frozenset({"move", "charge"})  # markers that make a target "moving"
RESULT_NAMES = {"-": "no effect", "D": "Damaged", "D-2": "Damaged-2", "D-3": "Damaged-3"}


def result_name(cell: str) -> str:
    return RESULT_NAMES.get(cell, cell)


@dataclass
class Attack:
    """One fire attack as it is worked out."""

    order: NhisFire
    hex: Location
    firers: list[NhisUnit]
    targets: list[NhisUnit] = field(default_factory=list)
    vs_tank: bool = False
    fp: int = 0
    ranges: dict[str, int] = field(default_factory=dict)  # each firer's range to the target, by unit id

    @property
    def range_text(self) -> str:
        found = sorted(set(self.ranges.values()))
        return str(found[0]) if len(found) == 1 else "-".join(str(r) for r in (found[0], found[-1]))

    @property
    def adjacent(self) -> bool:
        """Every firer is in a hex adjacent to the target's."""
        return bool(self.ranges) and all(r == 1 for r in self.ranges.values())

    @property
    def side(self) -> int:
        return self.firers[0].side


# --- who fires, at whom ----------------------------------------------------------------------

def _firers(ctx: NhisContext, order: NhisFire) -> list[NhisUnit]:
    if len({f.casefold() for f in order.firers}) != len(order.firers):
        raise InvalidOrder("a unit is named twice among the firers", field="firers")
    firers = [ctx.unit(f, field="firers") for f in order.firers]
    for unit in firers:
        _check_firer(unit, order)
    if len({u.side for u in firers}) > 1:
        raise IllegalOrder("the firers belong to both sides: one side fires at a time")
    named = {u.id.casefold() for u in firers}
    for listed, name in ((order.charging, "charging"), (order.beyond_visibility, "beyond_visibility")):
        stray = [f for f in listed if f.casefold() not in named]
        if stray:
            raise InvalidOrder(f"'{stray[0]}' in {name} is not one of the firers", field=name)
    return firers


def _check_firer(unit: NhisUnit, order: NhisFire) -> None:
    rule = tables.rules().morale.rule
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated and cannot fire")
    if unit.location is None:
        raise IllegalOrder(f"{unit.label} is off board and cannot fire")
    if unit.shaken:
        raise IllegalOrder(f"{unit.label} is Shaken and may not fire ({rule})")
    if unit.marker == "fire":
        raise IllegalOrder(f"{unit.label} is marked Fire: it has fired this turn "
                           f"({tables.fire_table().rule}, assumed)")
    if unit.current_fp <= 0:
        raise IllegalOrder(f"{unit.label} has no Firepower to fire with")
    if unit.location.casefold() == order.target.casefold() or order.range == 0:
        # range 0 is the firer's own hex whatever the order names
        raise IllegalOrder(f"{unit.label} would fire into its own hex: that is melee, "
                           f"which {tables.fire_table().rule} does not cover")


def _aim(ctx: NhisContext, attack: Attack) -> None:
    """Each firer's range (counted on the map in a game whose map the bot reads, bot/core/grid.py;
    typed otherwise), the line of sight (game option ``los``), then the range limit."""
    order = attack.order
    game = ctx.game
    if counts_ranges(NHIS_GRID, game):
        sources = list(dict.fromkeys(u.location or "" for u in attack.firers))
        ranges = read_ranges(NHIS_GRID, game, sources, order.target, order.range, ctx.trail)
        attack.ranges = {u.id: ranges[u.location or ""] for u in attack.firers}
        lines = read_lines(ctx.trail, NHIS_GRID, sight_terrain, game, sources, order.target)
        check_blocked(ctx.trail, game, lines, order.los_confirmed, NHIS_GRID.line_rule, field="los_confirmed")
    elif order.range is None:
        raise InvalidOrder("give the range in hexes from the firers to the target (1 = adjacent)", field="range")
    else:
        attack.ranges = {u.id: order.range for u in attack.firers}
    for unit in attack.firers:
        distance = attack.ranges[unit.id]
        if distance == 0:
            raise IllegalOrder(f"{unit.label} would fire into its own hex: that is melee, "
                               f"which {tables.fire_table().rule} does not cover")
        most = unit.current_range * tables.fire_table().modifiers.max_range_multiple
        if distance > most:
            raise IllegalOrder(f"{unit.label} has range {unit.current_range}: it may fire at most {most} "
                               f"hexes, not {distance} ({tables.fire_table().modifier_rule})")


def _targets(ctx: NhisContext, attack: Attack) -> None:
    """The enemy units in the hex; infantry fire at a mixed hex leaves the tanks out (assumed)."""
    here = ctx.game.units_at(attack.hex.id)
    enemies = [u for u in here if u.side != attack.side]
    if not enemies:
        whose = "only friendly units" if here else "no unit"
        raise IllegalOrder(f"there is {whose} in {attack.hex.id}: no enemy to fire at")
    tanks = [u for u in enemies if u.kind == "tank"]
    if tanks and any(f.infantry for f in attack.firers):
        if len(tanks) == len(enemies):
            attack.vs_tank = True
        else:
            enemies = [u for u in enemies if u.kind != "tank"]
            ctx.trail.note(f"Infantry fire at a mixed hex attacks the infantry only: "
                           f"{', '.join(t.label for t in tanks)} untouched (assumed)",
                           rule=tables.fire_table().modifier_rule)
    attack.targets = enemies  # type: ignore[assignment]


# --- Firepower -----------------------------------------------------------------------------

def _base_fp(ctx: NhisContext, attack: Attack) -> None:
    table = tables.fire_table()
    rule = table.modifier_rule
    full = long = 0
    long_names = []
    for unit in attack.firers:
        fp = unit.current_fp
        ctx.trail.put("base", f"FP of {unit.label}" + (" (reduced)" if unit.reduced else ""), fp,
                      rule=rule, unit=unit.id)
        if attack.ranges[unit.id] > unit.current_range:
            long += fp
            long_names.append(unit.label)
        else:
            full += fp
    attack.fp = full + long
    if long_names:
        halved = long // table.modifiers.long_range_divisor
        attack.fp = full + halved
        ctx.trail.put("multiplier", f"Half FP beyond printed range, fractions dropped "
                      f"({', '.join(long_names)}): {long} -> {halved}", "x1/2", total=attack.fp, rule=rule)
    else:
        ctx.trail.put("base", "Firepower", attack.fp, total=attack.fp, rule=rule)


def _modify(ctx: NhisContext, attack: Attack, amount: int, label: str, *, rule: str | None = None) -> None:
    attack.fp += amount
    ctx.trail.put("modifier", label, amount, total=attack.fp, rule=rule or tables.fire_table().modifier_rule)


def _moving_target(ctx: NhisContext, attack: Attack, terrain: tables.Terrain) -> None:
    movers = [u for u in attack.targets
              if (u.moving and not u.crawling) or u.marker in MOVING_MARKERS]
    if not movers:
        return
    rule = tables.fire_table().modifier_rule
    if terrain.negates_moving_bonus:
        ctx.trail.note(f"{terrain.name} negates the moving-target bonus ({movers[0].label})", rule=rule)
        return
    _modify(ctx, attack, tables.fire_table().modifiers.moving_target, f"Moving target ({movers[0].label})")


def cover(location: Location, from_lower: bool) -> tuple[int, str, list[str]]:
    """The Cover Factor of a hex, how it was summed, and notes on features not counted."""
    chart = tables.terrain_file()
    terrain = tables.terrain(location.terrain)
    notes: list[str] = []
    features = []
    for key in location.features:
        feature = chart.features.get(key.casefold())
        if feature is None:
            notes.append(f"'{key}' is not on the NHiS terrain chart: no cover")
        else:
            features.append(feature)
    bunker = next((f for f in features if f.replaces_cover), None)
    if bunker is not None:
        return bunker.cover, f"{bunker.name} {bunker.cover}, other terrain ignored", notes
    value, parts = terrain.cover, [f"{terrain.name} {terrain.cover}"]
    for feature in features:
        if feature.from_lower_only and not from_lower:
            continue
        value += feature.cover
        parts.append(f"{feature.name} +{feature.cover}" + (" (fired on from lower)" if feature.from_lower_only else ""))
    return value, " ".join(parts), notes


def _cover(ctx: NhisContext, attack: Attack) -> None:
    value, how, notes = cover(attack.hex, attack.order.from_lower)
    for note in notes:
        ctx.trail.note(note, rule=tables.terrain_file().rule)
    _modify(ctx, attack, -value, f"Cover Factor of {attack.hex.id}: {how}", rule=tables.terrain_file().rule)


def _modifiers(ctx: NhisContext, attack: Attack) -> None:
    mods = tables.fire_table().modifiers
    terrain = tables.terrain(attack.hex.terrain)
    _moving_target(ctx, attack, terrain)
    if attack.adjacent:
        _modify(ctx, attack, mods.adjacent, "Target in an adjacent hex")
    for unit_id in attack.order.charging:
        _modify(ctx, attack, mods.charging_firer, f"{ctx.unit(unit_id).label} fires using Charge movement")
    _cover(ctx, attack)
    for unit_id in attack.order.beyond_visibility:
        _modify(ctx, attack, mods.beyond_visibility, f"{ctx.unit(unit_id).label} fires beyond night visibility")
    ctx.trail.put("check", "Final FP", attack.fp, total=attack.fp, rule=tables.fire_table().modifier_rule)


# --- the column and its shifts -------------------------------------------------------------

def _hex_shifts(attack: Attack) -> bool:
    """The hex is one of the terrains that shift fire left (terrain or feature)."""
    chart = tables.terrain_file()
    if tables.terrain(attack.hex.terrain).fire_shift:
        return True
    return any(chart.features[f.casefold()].fire_shift for f in attack.hex.features
               if f.casefold() in chart.features)


def _shift(ctx: NhisContext, attack: Attack) -> int:
    table = tables.fire_table()
    rule = table.modifier_rule
    total = 0
    if _hex_shifts(attack):
        marked = next((u for u in attack.targets if u.marker in MARKED), None)
        if marked is not None:
            ctx.trail.note(f"No terrain shift: {marked.label} carries a {marked.marker.title()} marker",
                           rule=rule)
        else:
            total += table.shifts.terrain
            ctx.trail.put("modifier", f"Column shift: {attack.hex.id} is protective terrain "
                          "without a Move/Fire/Charge marker", -table.shifts.terrain, rule=rule)
    if attack.vs_tank:
        total += table.shifts.infantry_vs_tank
        ctx.trail.put("modifier", "Column shift: infantry firing on a tank", -table.shifts.infantry_vs_tank,
                      rule=rule)
    return total


# --- impulses (a refereed sequence of play, data/nhis/sequence.yaml) --------------------------

IMPULSE_RULE = "NHiS sequence of play (assumed)"


def _in_its_impulse(ctx: NhisContext, attack: Attack) -> str:
    """Where the impulses are refereed: a unit fires once an impulse, and the side without the
    impulse fires only at a hex where a unit moved in it (opportunity fire). Returns the trail's
    word on it ("" when the sequence is not refereed). Stamps the firers."""
    game = ctx.game
    if not refereed(game) or game.phase != tables.rules().turn.fire_phase:
        return ""
    for unit in attack.firers:
        if unit.fired_impulse == game.impulse:
            raise IllegalOrder(f"{unit.label} has fired in this impulse already ({IMPULSE_RULE})", rule=IMPULSE_RULE)
    said = f"Impulse {game.impulse} of {game.side_name(game.to_act)}"
    if attack.side != game.to_act:
        movers = [u for u in game.units_at(attack.hex.id) if u.side == game.to_act and u.moved_impulse == game.impulse]
        if not movers:
            raise IllegalOrder(f"it is {possessive(game.side_name(game.to_act))} impulse: "
                               f"{game.side_name(attack.side)} may fire only at a hex where a unit moved in it, "
                               f"and none did in {attack.hex.id} (opportunity fire, {IMPULSE_RULE})", rule=IMPULSE_RULE)
        said += f": opportunity fire at {', '.join(u.label for u in movers)}, which moved in it"
    for unit in attack.firers:
        unit.fired_impulse = game.impulse
    return said


# --- the whole action ----------------------------------------------------------------------

def _mark_firers(ctx: NhisContext, attack: Attack) -> None:
    rule = tables.fire_table().rule
    charging = {c.casefold() for c in attack.order.charging}
    for unit in attack.firers:
        wanted = "charge" if unit.id.casefold() in charging else "fire"
        if unit.marker in MOVING_MARKERS and wanted == "fire":
            continue  # a moving unit keeps its Move / Charge marker
        if unit.marker != wanted:
            ctx.touch(unit)
            unit.marker = wanted  # type: ignore[assignment]
            ctx.effect(unit, f"marked {wanted.title()}", rule=f"{rule}, assumed")


def _apply(ctx: NhisContext, attack: Attack, cell: str) -> None:
    if cell == "-":
        return
    flame = attack.order.flamethrower
    if cell.startswith("Hit"):
        hit_checks(ctx, attack.targets, int(cell[4:] or 0), flamethrower=flame)
    else:
        damaged(ctx, attack.targets, int(cell[2:] or 1), flamethrower=flame)


def _roll(ctx: NhisContext, attack: Attack, index: int) -> tuple[str, TableCell]:
    table = tables.fire_table()
    roll = ctx.roller.two_d6(f"fire on {attack.hex.id}")
    ctx.trail.put("dice", f"2d6 {roll.dice[0]} + {roll.dice[1]}", roll.total, total=roll.total, rule=table.rule)
    cell = table.read(index, roll.total)
    column = str(table.columns[index])
    reading = "12: no effect" if roll.total == table.no_effect_roll else result_name(cell)
    ctx.trail.put("table", f"Column {column}, roll {roll.total}: {reading}", result_name(cell), rule=table.rule)
    headline = f": 2d6 {roll.total} -> {result_name(cell)}"
    return headline, TableCell(table="NHiS Fire Table", column=column, row=str(roll.total),
                               result=result_name(cell), rule=table.rule)


def resolve_fire(game: Game, order: NhisFire, roller: Roller) -> Outcome:
    ctx = NhisContext(game, roller)
    attack = Attack(order=order, hex=game.location(order.target, field="target"), firers=_firers(ctx, order))
    impulse_rule = _in_its_impulse(ctx, attack)
    _aim(ctx, attack)
    ctx.trail.section(f"Fire on {attack.hex.id} at range {attack.range_text}", rule=tables.fire_table().rule)
    if impulse_rule:
        ctx.trail.note(impulse_rule, rule=IMPULSE_RULE)
    _targets(ctx, attack)
    _base_fp(ctx, attack)
    _modifiers(ctx, attack)
    headline, cells = _column_and_roll(ctx, attack)
    _mark_firers(ctx, attack)
    return Outcome(ruleset="nhis", action="fire", headline=headline, actor_side=attack.side,
                   trail=ctx.trail.freeze(), cells=cells, effects=ctx.effects())


def _column_and_roll(ctx: NhisContext, attack: Attack) -> tuple[str, tuple[TableCell, ...]]:
    table = tables.fire_table()
    index = table.column_index(attack.fp)
    if index is None:
        ctx.trail.put("table", f"FP {attack.fp} is below the 0 column: no effect", "no effect", rule=table.rule)
        return f"{attack.fp} FP: below the Fire Table, no effect", ()
    head = f"{attack.fp} FP -> column {table.columns[index]}"
    ctx.trail.put("table", f"FP {attack.fp} -> column {table.columns[index]}", table.columns[index], rule=table.rule)
    shift = _shift(ctx, attack)
    if shift:
        if index - shift < 0:
            ctx.trail.put("table", f"Shifted {shift} left: off the table, no effect", "no effect", rule=table.rule)
            return head + f", shifted {shift} left -> off the table: no effect", ()
        index -= shift
        head += f", shifted {shift} left -> column {table.columns[index]}"
        ctx.trail.put("table", f"Shifted {shift} left -> column {table.columns[index]}", table.columns[index],
                      rule=table.rule)
    tail, cell = _roll(ctx, attack, index)
    _apply(ctx, attack, table.read(index, int(cell.row)))
    return head + tail, (cell,)
