"""ASL fire attacks on the Infantry Fire Table: the seven kinds of fire of seed 003.

One attack goes: which kind of fire it is (phase, side, markers) -> the fire group and its
targets -> FP with each firer's multipliers -> DRMs -> the DR, cowering -> the IFT cell -> the
result applied to the targets (morale.py) -> MG breakdown and rate of fire -> Residual FP ->
fire markers. Each step writes its numbers to the trail with the rule that gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple, cast

from ...dice import Roll, Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game, Location
from ...grid import counts_ranges, read_ranges
from ...outcome import Outcome, TableCell, UnitEffect, fire_outcome, table_cell
from ...sight import check_blocked, read_lines
from ...trail import Trail
from . import morale, tables
from .board import ASL_GRID, sight_terrain
from .context import AslContext
from .models import AslUnit, AslUnits, FireMarker
from .orders import AslFire, FireKind
from .weapons import MgShot, check_breakdowns, is_mg, keeps_rof

HALF = Fraction(1, 2)
NO_RANGE = "give the range in hexes from the firers to the target (0 = same Location)"


@dataclass(frozen=True, slots=True)
class KindRule:
    """What seed 003 says of one kind of fire."""

    name: str
    phase: str
    rule: str
    by_attacker: bool  # fired by the side whose player turn it is (the ATTACKER)
    marker: FireMarker | None  # the marker the firers get afterwards
    moving_targets: bool  # MPh fire: only the moving units of the target Location are hit
    residual: bool  # leaves Residual FP (A8.2)
    multiplier: tuple[str, Fraction, str] | None = None  # the kind's own FP multiplier
    no_rof: str | None = None  # why MGs cannot keep ROF in this kind of fire
    sustained: bool = False  # MGs fire with sustained fire (B# -2)


KINDS: dict[str, KindRule] = {
    "prep": KindRule("Prep Fire", "PFPh", "A3.3, seed 003", True, "prep", False, False),
    "advancing": KindRule("Advancing Fire", "AFPh", "A3.6, seed 003", True, "prep", False, False,
                          ("Advancing Fire", HALF, "A7.25, seed 003"), "no ROF in Advancing Fire"),
    "dff": KindRule("Defensive First Fire", "MPh", "A8.1, seed 003", False, "first", True, True),
    "sff": KindRule("Subsequent First Fire", "MPh", "A8.3, seed 003", False, "final", True, True,
                    ("Subsequent First Fire", HALF, "A8.3, seed 003"), "sustained fire", True),
    "fpf": KindRule("Final Protective Fire", "MPh", "A8.31, seed 003", False, "final", True, True,
                    ("Final Protective Fire", HALF, "A8.31, seed 003"), "sustained fire", True),
    "residual": KindRule("Residual Fire", "MPh", "A8.2, seed 003", False, None, True, False),
    "dfph": KindRule("Defensive Fire", "DFPh", "A3.5, seed 003", False, "final", False, False),
}
INFERRED_KIND: dict[str, FireKind] = {"PFPh": "prep", "AFPh": "advancing", "DFPh": "dfph", "MPh": "dff"}
MARKER_NAMES = {"prep": "Prep Fire", "first": "First Fire", "final": "Final Fire"}
DC_FT = ("DC", "FT")  # Advancing Fire does not halve these (seed 003)
RESIDUAL_MAX = 12  # A8.2: Residual FP never exceeds the 12 column


# --------------------------------------------------------------------------- the kind of fire

def fire_kind(game: Game, order: AslFire) -> FireKind:
    """The order's kind of fire, inferred from the phase when not given, checked against it."""
    kind = order.kind
    if kind is None:
        kind = INFERRED_KIND[game.phase]  # AslFire.phases: api.resolve refused the other phases
        if kind == "dff" and order.firers and all(
                _marker_of(game, f) == "first" for f in order.firers):
            kind = "sff"  # every firer already First Fired: its next MPh shot is SFF (A8.3)
    rule = KINDS[kind]
    if rule.phase != game.phase:
        raise IllegalOrder(f"{rule.name} is fired in the {rule.phase}, and this is the "
                           f"{game.phase} ({rule.rule})")
    return kind


def _marker_of(game: Game, unit_id: str) -> str | None:
    unit = game.find_unit(unit_id)
    return getattr(unit, "fire_marker", None)


# --------------------------------------------------------------------------- the fire group

@dataclass(slots=True)
class Member:
    """One firer: a unit firing its inherent FP, or a SW fired by its possessor (``user``)."""

    unit: AslUnit
    user: AslUnit | None = None  # the possessor of a SW
    first_fire_dfph: bool = False  # marked First Fire and firing in the DFPh (A8.4)
    fp: Fraction | int = 0  # this firer's FP after its multipliers (an int while whole)
    range: int = 0  # hexes from its Location to the target (``aim``)

    @property
    def person(self) -> AslUnit:
        """The unit whose state counts (pinned, CX, Location, quality)."""
        return self.user or self.unit


@dataclass(slots=True)
class FireGroup:
    kind: FireKind
    side: int
    members: list[Member] = field(default_factory=list)
    operators: list[AslUnit] = field(default_factory=list)  # possessors firing only their SW
    leaders: list[AslUnit] = field(default_factory=list)  # leaders directing the group
    leadership: int | None = None  # the leadership DRM applied; None: not directed
    hindrance: int = 0  # the hindrance DRM along the line of sight (typed, or read on the map)
    hindrance_label: str = ""  # how the trail names it

    @property
    def id(self) -> str:
        """A stable name for the group, so a leader directs the same group all phase (A7.53)."""
        return "+".join(sorted([m.unit.id for m in self.members]))

    def personnel(self) -> list[AslUnit]:
        """Every unit that takes part: firers, possessors of fired SWs, directing leaders."""
        seen: dict[str, AslUnit] = {}
        for unit in [*self.leaders, *(m.person for m in self.members), *self.operators]:
            seen.setdefault(unit.id, unit)
        return list(seen.values())


def _refuse_state(unit: AslUnit) -> None:
    """Seed 003: every firer is Good Order, not in melee, and (a SW) not malfunctioned."""
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated")
    if unit.location is None:
        raise IllegalOrder(f"{unit.label} is off board and cannot fire")
    if unit.broken:
        raise IllegalOrder(f"{unit.label} is broken and may not fire (seed 003: firers are Good Order)")
    if unit.in_melee:
        raise IllegalOrder(f"{unit.label} is in melee and may not fire (seed 003)")
    if unit.malfunctioned:
        raise IllegalOrder(f"{unit.label} is malfunctioned and may not fire until repaired (A.11)")


def _marker_refusal(unit: AslUnit, kind: FireKind) -> str | None:
    """Why the unit's fire marker forbids this kind of fire, or None (seed 003, A8)."""
    marker = unit.fire_marker
    name = MARKER_NAMES.get(marker or "", "")
    if kind in ("prep", "advancing"):
        if marker == "prep" and kind == "advancing":
            return f"{unit.label} is marked Prep Fire and may not fire in the AFPh (seed 003)"
        return f"{unit.label} is marked {name} and has fired this phase (seed 003)" if marker else None
    if kind == "dff":
        if marker == "first":
            return (f"{unit.label} is marked First Fire: its next MPh shot is Subsequent First Fire "
                    f"(A8.3)")
        return f"{unit.label} is marked Final Fire and may fire only FPF (A8.31)" if marker else None
    if kind == "sff":
        if marker == "final":
            return f"{unit.label} is marked Final Fire and may fire only FPF (A8.31)"
        return None if marker == "first" else (
            f"{unit.label} is not marked First Fire: Subsequent First Fire needs it (A8.3)")
    if kind == "fpf":
        return None if marker == "final" else (
            f"{unit.label} is not marked Final Fire: Final Protective Fire needs it (A8.31)")
    if marker == "final":  # dfph
        return f"{unit.label} is marked Final Fire and may not fire in the DFPh (A8.4)"
    return None


def _check_side(unit: AslUnit, game: Game, rule: KindRule) -> None:
    attacker = game.active_side
    if rule.by_attacker and unit.side != attacker:
        raise IllegalOrder(f"{unit.label} belongs to {game.side_name(unit.side)}: only the ATTACKER "
                           f"({game.side_name(attacker)}) fires {rule.name} ({rule.rule})")
    if not rule.by_attacker and unit.side == attacker:
        raise IllegalOrder(f"{unit.label} belongs to {game.side_name(unit.side)}, the ATTACKER: only "
                           f"the DEFENDER fires {rule.name} ({rule.rule})")


def _add_unit(ctx: AslContext, group: FireGroup, unit: AslUnit, seen: set[str],
              named: frozenset[str] = frozenset()) -> None:
    """Add one named firer: a SW with its possessor, a leader to direct, or a unit's FP."""
    if unit.id in seen:
        return
    seen.add(unit.id)
    rule = KINDS[group.kind]
    _refuse_state(unit)
    _check_side(unit, ctx.game, rule)
    if unit.is_sw:
        _add_sw(ctx, group, unit, seen, named)
        return
    refusal = _marker_refusal(unit, group.kind)
    if refusal:
        raise IllegalOrder(refusal)
    if unit.is_leader and unit.fp == 0:
        group.leaders.append(unit)  # a leader with no FP of its own fires by directing
        return
    group.members.append(Member(unit, first_fire_dfph=_first_fire_dfph(unit, group.kind)))


POSSESSOR_RULE = "seed 003 (assumed: data/asl/ift.yaml)"


def _add_sw(ctx: AslContext, group: FireGroup, sw: AslUnit, seen: set[str], named: frozenset[str]) -> None:
    if sw.owner is None:
        raise IllegalOrder(f"nobody possesses {sw.label}: a SW fires only with the unit holding it "
                           f"(seed 003)")
    owner = ctx.unit(sw.owner, field="firers")
    _refuse_state(owner)
    refusal = _marker_refusal(sw, group.kind)
    if refusal:
        raise IllegalOrder(refusal)
    group.members.append(Member(sw, user=owner, first_fire_dfph=_first_fire_dfph(sw, group.kind)))
    if owner.id in seen:
        return
    seen.add(owner.id)
    # The possessor fires with its SW: its own FP joins the group when its marker lets it fire;
    # otherwise (e.g. it already fired and the MG kept ROF) it only operates the weapon.
    if _marker_refusal(owner, group.kind) is None and not (owner.is_leader and owner.fp == 0):
        group.members.append(Member(owner, first_fire_dfph=_first_fire_dfph(owner, group.kind)))
        if owner.id not in named:  # no surprise: say why a unit nobody named fires
            ctx.trail.note(f"{owner.label} possesses {sw.label} and fires it: its own {owner.fp:g} FP joins the "
                           f"group and it is marked as having fired (named: {sw.label} only)",
                           rule=POSSESSOR_RULE, unit=owner.id)
    else:
        group.operators.append(owner)
        ctx.trail.note(f"{owner.label} fires {sw.label} only", unit=owner.id)


def _first_fire_dfph(unit: AslUnit, kind: FireKind) -> bool:
    return kind == "dfph" and unit.fire_marker == "first"


def build_group(ctx: AslContext, order: AslFire, kind: FireKind) -> FireGroup:
    if not order.firers:
        raise InvalidOrder("name at least one firer (unit or support weapon ids)", field="firers")
    firers = [ctx.unit(f, field="firers") for f in order.firers]
    group = FireGroup(kind=kind, side=firers[0].side)
    seen: set[str] = set()
    named = frozenset(u.id for u in firers)
    for unit in firers:
        if unit.side != group.side:
            raise IllegalOrder(f"{unit.label} is not on the same side as {firers[0].label}: a fire "
                               f"group is one side's units (A7.5)")
        _add_unit(ctx, group, unit, seen, named)
    if order.leader is not None:
        _add_unit(ctx, group, ctx.unit(order.leader, field="leader"), seen)
    if not group.members:
        raise IllegalOrder("a leader alone has no FP to fire: name the units it directs (A7.53)")
    return group


# --------------------------------------------------------------------------- range and targets

def _distance(order: AslFire) -> int:
    """The order's range in hexes: every fire but Residual Fire gives one (``resolve_fire`` refuses
    an order without it first, with this message)."""
    distance = order.range
    if distance is None:
        raise InvalidOrder(NO_RANGE, field="range")
    return distance


def aim(ctx: AslContext, group: FireGroup, order: AslFire) -> None:
    """Each firer's range to the target, then the range limits. A game whose map the bot reads
    (bot/core/grid.py) counts the range from each firing Location; a game created before takes it
    as typed (and its hindrance as typed: ``sight``)."""
    game = ctx.game
    if counts_ranges(ASL_GRID, game):
        ranges = read_ranges(ASL_GRID, game, _sources(group), order.target, order.range, ctx.trail)
        for m in group.members:
            m.range = ranges[m.person.location or ""]
    else:
        distance = _distance(order)
        for m in group.members:
            m.range = distance
        group.hindrance = order.hindrance or 0
        group.hindrance_label = f"hindrance, {group.hindrance} hex(es)"
    check_range(group, order)


def _sources(group: FireGroup) -> list[str]:
    """The firing Locations, in the order the firers are named."""
    return list(dict.fromkeys(m.person.location or "" for m in group.members))


def sight(ctx: AslContext, group: FireGroup, order: AslFire) -> None:
    """The line of sight, read on the map in a game whose map the bot reads (``read_line``); then a
    hindrance of +6 or more blocks the shot (A6.7)."""
    if counts_ranges(ASL_GRID, ctx.game):
        read_line(ctx, group, order, _sources(group))
    if group.hindrance >= 6:
        raise IllegalOrder(f"a hindrance DRM of +{group.hindrance} blocks the line of sight: fire "
                           f"needs less than +6 (A6.7, seed 003)")


def read_line(ctx: AslContext, group: FireGroup, order: AslFire, sources: list[str]) -> None:
    """The line of sight from each firing Location, as the map reads it (game option ``los``): shown
    in the trail; a line read as blocked refused (``strict``) or put to the firer to confirm
    (``advise``, the default); the hindrances read added unless ``hindrance`` is typed (A7.55: the
    worst line of a group from several Locations counts)."""
    lines = read_lines(ctx.trail, ASL_GRID, sight_terrain, ctx.game, sources, order.target)
    check_blocked(ctx.trail, ctx.game, lines, order.los_confirmed, "A6.1", field="los_confirmed")
    typed = order.hindrance
    if typed is not None:
        read = max((line.hindrance for line in lines), default=None)
        differs = f" (the map reads +{read})" if read is not None and read != typed else ""
        group.hindrance = typed
        group.hindrance_label = f"hindrance, {typed} hex(es), typed by the players{differs}"
        return
    worst = max(lines, key=lambda line: line.hindrance, default=None)
    if worst is None or not worst.hindrance:
        return
    group.hindrance = worst.hindrance
    group.hindrance_label = ("hindrance read on the map: " +
                             ", ".join(f"{s.name} {'/'.join(h.terrain.name for h in s.hexes if h.terrain)} "
                                       f"+{s.hindrance}" for s in worst.hindrances))


def check_range(group: FireGroup, order: AslFire) -> None:
    """Range limits of seed 003: 2x normal range, SFF within normal range, FPF and First Fire
    units in the DFPh at adjacent targets only (a hindrance DRM of 6 blocking the shot: ``sight``)."""
    if group.hindrance >= 6:  # a game logged before the map was read: its typed hindrance, checked first
        raise IllegalOrder(f"a hindrance DRM of +{group.hindrance} blocks the line of sight: fire "
                           f"needs less than +6 (A6.7, seed 003)")
    for m in group.members:
        normal = m.unit.range
        distance = m.range
        if distance > 2 * normal:
            raise IllegalOrder(f"{m.unit.label} has normal range {normal}: {distance} hexes is "
                               f"beyond twice that (A7.22)")
        if group.kind == "sff" and distance > normal:
            raise IllegalOrder(f"{m.unit.label}: Subsequent First Fire reaches only its normal range "
                               f"{normal} (A8.3)")
        if group.kind == "fpf" and distance > 1:
            raise IllegalOrder(f"{m.unit.label}: Final Protective Fire is only at an adjacent target (A8.31)")
        if m.first_fire_dfph and distance > 1:
            raise IllegalOrder(f"{m.unit.label} is marked First Fire: in the DFPh it may fire only at "
                               f"an adjacent target (A8.4)")


def select_targets(ctx: AslContext, order: AslFire, kind: FireKind, side: int) -> tuple[Location, list[AslUnit]]:
    """The target Location and the units the attack hits (enemy, not SWs)."""
    loc = ctx.game.location(order.target, field="target")
    if KINDS[kind].moving_targets:
        return loc, _moving_targets(ctx, order, loc, side, kind)
    if order.target_units is not None:
        raise InvalidOrder("target_units is only for fire in the MPh: other fire hits every enemy "
                           "unit in the Location", field="target_units")
    units = [u for u in ctx.game.units_at(loc.id) if u.side != side and not u.is_sw]
    if not units:
        raise IllegalOrder(f"there is no enemy unit in {loc.id} to fire at")
    return loc, units  # type: ignore[return-value]


def _moving_targets(ctx: AslContext, order: AslFire, loc: Location, side: int, kind: FireKind) -> list[AslUnit]:
    name = KINDS[kind].name
    if order.target_units is None:
        units = [u for u in ctx.game.units_at(loc.id) if u.side != side and not u.is_sw and u.moving]
        if not units:
            raise IllegalOrder(f"no enemy unit in {loc.id} has expended MF this MPh: {name} needs a "
                               f"moving target ({KINDS[kind].rule})")
        return units  # type: ignore[return-value]
    units = []
    for unit_id in order.target_units:
        unit = ctx.unit(unit_id, field="target_units")
        if unit.side == side:
            raise IllegalOrder(f"{unit.label} is on the firers' side and cannot be the target")
        if unit.location != loc.id or unit.eliminated or unit.is_sw:
            raise IllegalOrder(f"{unit.label} is not a unit in {loc.id}")
        if not unit.moving:
            raise IllegalOrder(f"{unit.label} has not expended MF this MPh: {name} hits only moving "
                               f"units ({KINDS[kind].rule})")
        units.append(unit)
    return units


# --------------------------------------------------------------------------- firepower

def _num(value: Fraction | int) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _multipliers(m: Member, order: AslFire, kind: FireKind) -> list[tuple[str, Fraction, str]]:
    """Each firer's own FP multipliers, in the order seed 003 lists them."""
    out: list[tuple[str, Fraction, str]] = []
    rule = KINDS[kind]
    if rule.multiplier and not (kind == "advancing" and (m.unit.sw_type or "") in DC_FT):
        out.append(rule.multiplier)
    if m.first_fire_dfph:
        out.append(("marked First Fire, firing in the DFPh", HALF, "A8.4, seed 003"))
    if m.person.pinned:
        out.append((f"{m.person.label} pinned", HALF, "A7.8"))
    distance = m.range
    if distance > m.unit.range:
        out.append(("long range", HALF, "A7.22"))
    if distance == 1:
        out.append(("point blank fire", Fraction(2), "A7.21"))
    if distance == 0:
        out.append(("triple point blank fire", Fraction(3), "A7.21"))
    return out


def member_fp(ctx: AslContext, m: Member, order: AslFire, kind: FireKind) -> Fraction | int:
    # An int while the value is whole (no Fraction arithmetic for the usual unmodified firer);
    # a Fraction as soon as a halving leaves a fraction: the same numbers either way.
    fp, name, uid = m.unit.fp, m.unit.label, m.unit.id
    value: Fraction | int = fp if type(fp) is int else Fraction(fp)
    ctx.trail.put("base", f"{name} FP", fp, rule="A7.2", unit=uid)
    for label, factor, rule in _multipliers(m, order, kind):
        value = _times(value, factor)
        shown = f"x{factor.numerator}/{factor.denominator}" if factor.denominator > 1 else f"x{factor}"
        ctx.trail.put("multiplier", f"{name}: {label}", shown, total=_num(value), rule=rule, unit=uid)
    if kind == "advancing" and m.unit.fp_underlined and not m.unit.is_sw and m.range <= m.unit.range:
        value = Fraction(math.ceil(value + 1))  # added last, then rounded up (A7.36)
        ctx.trail.put("modifier", f"{m.unit.label}: Assault Fire", 1, total=_num(value), rule="A7.36", unit=m.unit.id)
    return value


def _times(value: Fraction | int, factor: Fraction) -> Fraction | int:
    """``value * factor``, kept an int when both are whole."""
    if type(value) is int and factor.denominator == 1:
        return value * factor.numerator
    return value * factor


def firepower(ctx: AslContext, group: FireGroup, order: AslFire) -> Fraction:
    ctx.trail.section(f"{KINDS[group.kind].name}: firepower", rule=KINDS[group.kind].rule)
    for m in group.members:
        m.fp = member_fp(ctx, m, order, group.kind)
    total = Fraction(sum(m.fp for m in group.members))  # exact: ints and Fractions add exactly
    ctx.trail.put("base", "Total FP (fractions kept until the total)", _num(total), rule="A7.2")
    return total


# --------------------------------------------------------------------------- DRMs

# A NamedTuple: as immutable as a frozen dataclass, and built in half the time (a frozen
# dataclass sets each field through object.__setattr__); several are made per resolution.
class Drm(NamedTuple):
    label: str
    value: int
    rule: str
    outside: bool = False  # from outside the target hex: lowers Residual FP (A8.26)


def _leadership(ctx: AslContext, group: FireGroup, explicit: str | None) -> int | None:
    """The directing leadership (A7.53): a Good Order leader in every firing Location that has not
    directed another group this phase; the worst of them applies."""
    locations = {m.person.location for m in group.members}
    chosen: dict[str | None, AslUnit] = {}
    for leader in group.leaders:
        # (the group's id is only worked out for a leader who directed a group already)
        if leader.led_group is not None and leader.fire_marker and leader.led_group != group.id:
            if explicit is not None:
                raise IllegalOrder(f"{leader.label} already directed another fire group this phase (A7.53)")
            continue
        if leader.location not in locations:
            raise IllegalOrder(f"{leader.label} is not in a Location of the units it would direct (A7.53)")
        best = chosen.get(leader.location)
        if best is None or leader.leadership < best.leadership:
            chosen[leader.location] = leader
    if not chosen:
        group.leaders = []
        return None
    if set(chosen) != locations:
        ctx.trail.note("no leadership: a fire group from several Locations needs a leader in each (A7.53)")
        group.leaders = list(chosen.values())  # they still took part, and are marked
        return None
    group.leaders = list(chosen.values())
    return max(leader.leadership for leader in chosen.values())


def _target_drms(kind: FireKind, order: AslFire, loc: Location, targets: list[AslUnit],
                 hindrance: int | None = None) -> list[Drm]:
    terrain = tables.terrain(loc.terrain)
    out: list[Drm] = []
    if KINDS[kind].moving_targets and not any(t.pinned for t in targets):
        along = (order.hindrance or 0) if hindrance is None else hindrance
        no_hindrance = along == 0 and terrain.hindrance == 0 and not loc.smoke
        if terrain.open_ground and no_hindrance:
            out.append(Drm("FFMO (moving in Open Ground)", -1, "A4.6, seed 003"))
        if not any(t.assault_moving for t in targets):
            out.append(Drm("FFNAM (not Assault Movement)", -1, "A4.6, seed 003"))
    if terrain.tem:
        out.append(Drm(f"TEM: {terrain.name}", terrain.tem, tables.terrain_rule()))
    return out


def group_drms(ctx: AslContext, group: FireGroup, order: AslFire, loc: Location,
               targets: list[AslUnit]) -> list[Drm]:
    out: list[Drm] = []
    group.leadership = _leadership(ctx, group, order.leader)
    if group.leadership is not None:
        names = ", ".join(leader.label for leader in group.leaders)
        out.append(Drm(f"leadership of {names}", group.leadership, "A7.53", outside=group.leadership > 0))
    cx = [p for p in group.personnel() if p.cx]
    if cx:  # one CX firer is enough: the worst DRM of a member applies to all (A7.55)
        out.append(Drm(f"CX firer ({cx[0].label})", 1, "A4.51, A7.55", outside=True))
    if group.hindrance:
        out.append(Drm(group.hindrance_label, group.hindrance, "A6.7", outside=True))
    out += _target_drms(group.kind, order, loc, targets, group.hindrance)
    if order.drm:
        out.append(Drm(f"agreed: {order.drm_reason or 'no reason given'}", order.drm, "agreed by the players"))
    return out


def record_drms(ctx: AslContext, drms: list[Drm]) -> int:
    running = 0
    for drm in drms:
        running += drm.value
        ctx.trail.put("modifier", drm.label, f"{drm.value:+d}", total=running, rule=drm.rule)
    return running


# --------------------------------------------------------------------------- roll and IFT

@dataclass(slots=True)
class Attack:
    """The dice and the table as read."""

    roll: Roll
    drm: int
    column: int | None  # the column index read (after cowering); None: off the table
    base_column: int  # the column the FP gave (Residual FP is based on it)
    cowered: int = 0  # columns shifted left by cowering
    result: str = "-"
    cell: TableCell | None = None

    @property
    def final_dr(self) -> int:
        return self.roll.total + self.drm


def _cower_exempt(unit: AslUnit, game: Game) -> bool:
    if unit.berserk:  # berserk units never cower (A7.9, A15.4)
        return True
    nation = (unit.nationality or game.sides[unit.side].nationality or "").casefold()
    if nation.startswith("brit") and unit.quality in ("elite", "first_line"):
        return True
    return nation.startswith("finn") and unit.quality != "conscript"


def cowering(ctx: AslContext, group: FireGroup, roll: Roll) -> int:
    """Columns lost to cowering (A7.9): Original doubles and no directing leader."""
    if not roll.doubles:
        return 0
    if group.leadership is not None:
        ctx.trail.note("doubles, but a leader directs the fire: no cowering", rule="A7.9")
        return 0
    mmc = [p for p in group.personnel() if not p.is_leader]
    if not mmc or all(_cower_exempt(p, ctx.game) for p in mmc):
        why = "leaders/heroes alone" if not mmc else "every firer is exempt (British elite/first line, Finns)"
        ctx.trail.note(f"doubles: no cowering, {why}", rule="A7.9")
        return 0
    inexperienced = any(p.quality in ("green", "conscript") for p in mmc)
    shift = 2 if inexperienced else 1
    ctx.trail.put("modifier", "cowering: doubles with no leader directing"
                  + (" (Inexperienced firer)" if inexperienced else ""), f"-{shift} column(s)", rule="A7.9")
    return shift


def read_ift(ctx: AslContext, attack: Attack) -> None:
    table = tables.ift()
    if attack.column is None or attack.column < 0:
        attack.column = None
        ctx.trail.note("cowering shifts the attack off the IFT: no effect", rule="A7.9")
        return
    final = attack.final_dr
    attack.result = table.read(attack.column, final)
    row = str(min(max(final, 0), 15)) if final <= 15 else str(final)
    label = table.label(attack.column)
    ctx.trail.put("table", f"IFT {label} column, Final DR {final}", attack.result, rule=table.rule)
    attack.cell = table_cell("IFT", label, row, attack.result, table.rule)


def roll_attack(ctx: AslContext, group: FireGroup, column: int, drm: int, *, can_cower: bool) -> Attack:
    roll = ctx.roller.DR("IFT attack")
    ctx.trail.put("dice", f"IFT DR: white {roll.white}, colored {roll.colored}", roll.total, rule="A7.3")
    shift = cowering(ctx, group, roll) if can_cower else 0
    attack = Attack(roll=roll, drm=drm, column=column - shift, base_column=column, cowered=shift)
    ctx.trail.put("check", "Final DR", attack.final_dr, rule="A7.3")
    read_ift(ctx, attack)
    return attack


def apply_result(ctx: AslContext, attack: Attack, targets: list[AslUnit]) -> None:
    if attack.result == "-":
        ctx.trail.note("no effect on the target", rule="A7.3")
        return
    ctx.trail.section(f"{attack.result} on {', '.join(t.label for t in targets)}", rule="A7.3")
    morale.apply_ift_result(ctx, attack.result, targets, rule="A7.3")


# --------------------------------------------------------------------------- after the roll

def mg_checks(ctx: AslContext, group: FireGroup, attack: Attack) -> set[str]:
    """Breakdown of every MG fired, then ROF for those still working. Returns the MGs that keep
    ROF (they are not marked and may fire again)."""
    mgs = [m for m in group.members if is_mg(m.unit)]
    if not mgs:
        return set()
    rule = KINDS[group.kind]
    ctx.trail.section("Machine guns", rule="A.11, A9.2")
    shots = [MgShot(m.unit, m.user, rule.sustained or m.first_fire_dfph) for m in mgs]
    check_breakdowns(ctx, shots, attack.roll)
    kept: set[str] = set()
    for m in mgs:
        why_not = rule.no_rof or ("sustained fire" if m.first_fire_dfph else None)
        if why_not is None and attack.cowered:
            why_not = "the group cowered (A7.9)"
        if keeps_rof(ctx, m.unit, m.user, attack.roll, why_not=why_not):
            kept.add(m.unit.id)
    return kept


def residual_column(ctx: AslContext, group: FireGroup, attack: Attack, drms: list[Drm]) -> int | None:
    """The Residual FP column left in the target Location (A8.2, A8.26), or None."""
    table = tables.ift()
    working = [m for m in group.members if not m.unit.malfunctioned]
    column = attack.base_column
    if len(working) < len(group.members):  # a malfunctioned weapon leaves no residual (A8.2)
        found = table.column_index(float(sum((m.fp for m in working), Fraction(0))))
        if found is None:
            return None
        column = found
    half = min(table.columns[column] // 2, RESIDUAL_MAX)
    index = table.column_index(half)
    outside = sum(d.value for d in drms if d.outside and d.value > 0)
    if index is None or index - outside < 0:
        return None
    return table.columns[index - outside]


def place_residual(ctx: AslContext, group: FireGroup, attack: Attack, drms: list[Drm],
                   loc: Location, kept_rof: set[str]) -> None:
    if not KINDS[group.kind].residual:
        return
    if attack.cowered or kept_rof:
        why = "the group cowered" if attack.cowered else "an MG kept its rate of fire"
        ctx.trail.note(f"no Residual FP: {why}", rule="A8.2, seed 003")
        return
    value = residual_column(ctx, group, attack, drms)
    if not value:
        ctx.trail.note("no Residual FP: the residual column falls off the IFT", rule="A8.26")
        return
    if value <= loc.residual_fp:
        ctx.trail.note(f"Residual FP {value} does not replace the {loc.residual_fp} already in {loc.id}",
                       rule="A8.2")
        return
    before = loc.residual_fp
    loc.residual_fp = value
    ctx.trail.put("marker", f"Residual FP {value} in {loc.id}" + (f" (replaces {before})" if before else ""),
                  value, rule="A8.2, A8.26")


def _set_marker(ctx: AslContext, unit: AslUnit, marker: FireMarker, rule: str) -> None:
    if unit.fire_marker == marker or (unit.fire_marker == "final" and marker == "first"):
        return  # a Final Fire marker never goes back to First Fire
    ctx.touch(unit)
    unit.fire_marker = marker
    ctx.effect(unit, f"marked {MARKER_NAMES[marker]}", rule=rule)


def place_markers(ctx: AslContext, group: FireGroup, attack: Attack | None, kept_rof: set[str]) -> None:
    rule = KINDS[group.kind]
    marker = rule.marker
    if marker is None:
        return
    if group.kind == "dff" and attack is not None and attack.cowered:
        marker = "final"  # a cowering DFF ends the firers' MPh fire (seed 003)
    units = [m.unit for m in group.members if m.unit.id not in kept_rof] + group.personnel()
    if group.kind == "sff":  # every SW of the firers is marked too, fired or not (seed 003)
        holders = {p.id for p in group.personnel()}
        held = cast(AslUnits, ctx.game.units)  # read as held, only the SWs found made working objects
        units += [held[u.id] for u in dict.values(held) if u.is_sw and u.owner in holders]
    done: set[str] = set()
    for unit in units:
        if unit.id not in done:
            done.add(unit.id)
            _set_marker(ctx, unit, marker, rule.rule)
    for leader in group.leaders:
        leader.led_group = group.id


def fpf_morale(ctx: AslContext, group: FireGroup, attack: Attack) -> None:
    """FPF: every unit that fired takes an NMC on the attack's Original DR (A8.312)."""
    ctx.trail.section("FPF: NMC for each firer (Original DR of the attack)", rule="A8.312")
    personnel = sorted(group.personnel(), key=lambda u: not u.is_leader)  # leaders check first
    for unit in personnel:
        if not unit.eliminated and not unit.broken:
            morale.morale_check(ctx, unit, kind="NMC", rule="A8.312", roll=attack.roll)


# --------------------------------------------------------------------------- the attack

def resolve_fire(game: Game, order: AslFire, roller: Roller) -> Outcome:
    ctx = AslContext(game, roller)
    if order.range is None and order.kind != "residual" and not counts_ranges(ASL_GRID, game):
        raise InvalidOrder(NO_RANGE, field="range")
    kind = fire_kind(game, order)
    if kind == "residual":
        return _residual_attack(ctx, order)
    group = build_group(ctx, order, kind)
    aim(ctx, group, order)
    loc, targets = select_targets(ctx, order, kind, group.side)
    _note_targets(ctx, kind, loc, targets)
    sight(ctx, group, order)
    total = firepower(ctx, group, order)
    column = tables.ift().column_index(float(total))
    if column is None:
        ctx.trail.note("under 1 FP: no attack, but the firers have fired", rule="A7.2")
        place_markers(ctx, group, None, set())
        return _outcome(ctx, group.side, f"{_num(total)} FP vs {loc.id}: under 1 FP, no attack")
    ctx.trail.put("table", "IFT column", tables.ift().label(column), total=_num(total), rule="A7.2")
    ctx.trail.section("DRMs", rule="A7.3")
    drms = group_drms(ctx, group, order, loc, targets)
    attack = roll_attack(ctx, group, column, record_drms(ctx, drms), can_cower=True)
    apply_result(ctx, attack, targets)
    # a section of its own, so the weapons' checks and the markers do not read as part of the
    # last target's morale check
    ctx.trail.section("Final steps: weapons, Residual FP, fire markers", rule="seed 003")
    kept_rof = mg_checks(ctx, group, attack)
    place_residual(ctx, group, attack, drms, loc, kept_rof)
    place_markers(ctx, group, attack, kept_rof)
    if kind == "fpf":
        fpf_morale(ctx, group, attack)
    return _outcome(ctx, group.side, _headline(total, attack, loc), attack.cell)


def _note_targets(ctx: AslContext, kind: FireKind, loc: Location, targets: list[AslUnit]) -> None:
    moving = " (moving)" if KINDS[kind].moving_targets else ""
    ctx.trail.note(f"Target in {loc.id}{moving}: {', '.join(t.label for t in targets)}", rule=KINDS[kind].rule)


def _residual_attack(ctx: AslContext, order: AslFire) -> Outcome:
    """Residual FP attacks a unit moving into its Location: no multipliers, no cowering, and only
    FFMO, FFNAM and TEM (and any DRM the players agree) modify it (A8.2, seed 003)."""
    if order.firers:
        raise InvalidOrder("Residual Fire has no firers: the Location's Residual FP attacks", field="firers")
    defender = 1 - ctx.game.active_side
    loc, targets = select_targets(ctx, order, "residual", defender)
    if loc.residual_fp <= 0:
        raise IllegalOrder(f"there is no Residual FP in {loc.id} (A8.2)")
    table = tables.ift()
    column = table.column_index(loc.residual_fp)
    assert column is not None  # noqa: S101 - a Residual FP of 1 or more reads a column (A8.2)
    ctx.trail.section("Residual Fire", rule=KINDS["residual"].rule)
    _note_targets(ctx, "residual", loc, targets)
    ctx.trail.put("table", f"Residual FP {loc.residual_fp}", table.label(column), rule="A8.2")
    drms = _target_drms("residual", order, loc, targets)
    if order.drm:
        drms.append(Drm(f"agreed: {order.drm_reason or 'no reason given'}", order.drm, "agreed by the players"))
    ctx.trail.section("DRMs", rule="A8.2")
    group = FireGroup(kind="residual", side=defender)
    attack = roll_attack(ctx, group, column, record_drms(ctx, drms), can_cower=False)
    apply_result(ctx, attack, targets)
    return _outcome(ctx, defender, _headline(Fraction(loc.residual_fp), attack, loc, residual=True), attack.cell)


def _headline(total: Fraction, attack: Attack, loc: Location, *, residual: bool = False) -> str:
    table = tables.ift()
    what = "Residual" if residual else ""
    fp = f"{_num(total)} {what + ' ' if what else ''}FP (IFT {table.label(attack.base_column)})"
    if attack.column is None:
        return f"{fp} vs {loc.id}: DR {attack.roll.total}, cowers off the IFT -> no effect"
    shifted = f", cowers to IFT {table.label(attack.column)}" if attack.cowered else ""
    return f"{fp} vs {loc.id}: DR {attack.final_dr}{shifted} -> {attack.result}"


def _outcome(ctx: AslContext, side: int, headline: str, cell: TableCell | None = None) -> Outcome:
    return fire_outcome("asl", "fire", headline, side, ctx.trail.freeze(), (cell,) if cell else (), ctx.effects())

