"""What a morale result does to a counter: pin, break, DM, Casualty Reduction, elimination and
ELR replacement (A7.3, A10, A19.13); and the numbers of ``data/asl/morale.yaml`` they and the
morale, rally and transfer rules read.

Every change follows the same pattern: ``ctx.touch(unit)`` before it (so the effects show the
state before), the change, then ``ctx.effect(unit, ...)`` naming the rule. A replaced unit keeps
its id, side, Location and markers, so the SWs it carries and the players' handle stay valid.
"""

from __future__ import annotations

from functools import lru_cache

import yaml

from ...data import data_path
from . import counters
from .context import AslContext
from .effects_data import (  # noqa: F401  (the data file's models in a module of their own: effects.py compiles)
    CasualtyRules, CheckRules, ElrRules, HeatOfBattle, MoraleData, PortageRules, RallyRules, RecoveryRules, _Strict)
from .models import ASL_UNITS, AslUnit

DATA_FILE = data_path("asl", "morale.yaml")

# Markers and bookkeeping a unit keeps when it is replaced by another counter type
STATUS_FIELDS = ("broken", "pinned", "dm", "cx", "fire_marker", "in_melee", "moving", "assault_moving",
                 "rallied_turn", "led_group", "rph_action_turn", "recovery_attempts", "eliminated",
                 "berserk", "heroic", "wounded")


# --------------------------------------------------------------------------- the data file

@lru_cache(maxsize=1)
def rules() -> MoraleData:
    with open(DATA_FILE, encoding="utf-8") as fh:
        return MoraleData.model_validate(yaml.safe_load(fh))


# --------------------------------------------------------------------------- simple markers

def pin(ctx: AslContext, unit: AslUnit, *, rule: str) -> None:
    if unit.pinned or unit.broken or unit.eliminated:
        return  # a broken unit is not pinned as well: breaking supersedes the pin
    ctx.touch(unit)
    unit.pinned = True
    ctx.effect(unit, "pinned", rule=rule)


def give_dm(ctx: AslContext, unit: AslUnit, *, rule: str = "A10.62") -> None:
    if unit.dm or unit.eliminated:
        return
    ctx.touch(unit)
    unit.dm = True
    ctx.effect(unit, "DM", rule=rule)


def break_unit(ctx: AslContext, unit: AslUnit, *, rule: str) -> None:
    """Flip to the broken side under a DM marker (A10.3, A10.62); the pin goes, as a broken unit
    cannot be pinned as well."""
    if unit.broken or unit.eliminated:
        return
    ctx.touch(unit)
    unit.broken = True
    unit.dm = True
    unit.pinned = False
    ctx.effect(unit, "broken", rule=rule)


def eliminate(ctx: AslContext, unit: AslUnit, *, rule: str, why: str | None = None) -> None:
    """Remove the unit; the SWs it carried stay in its Location, unpossessed (A4.44)."""
    if unit.eliminated:
        return
    ctx.touch(unit)
    unit.eliminated = True
    ctx.effect(unit, "eliminated" + (f" ({why})" if why else ""), rule=rule)
    drop_weapons(ctx, unit)


def drop_weapons(ctx: AslContext, unit: AslUnit) -> None:
    for sw in carried(ctx.game, unit.id):
        ctx.touch(sw)
        sw.owner = None
        ctx.effect(sw, f"unpossessed in {sw.location or 'its Location'}", rule="A4.44")


def carried(game, unit_id: str) -> list[AslUnit]:
    """The SWs a unit possesses."""
    units = game.units  # read as held, only the SWs found made working objects (bot/core/working.py)
    return [units[u.id] for u in dict.values(units)
            if isinstance(u, ASL_UNITS) and u.is_sw and u.owner == unit_id and not u.eliminated]


# --------------------------------------------------------------------------- replacement

def replace_with_type(ctx: AslContext, unit: AslUnit, type_name: str, *, new_id: str | None = None) -> AslUnit:
    """A counter of the library type ``type_name`` in ``unit``'s place: same side, Location and
    markers, the new type's numbers. With ``new_id`` it is an extra counter beside ``unit``."""
    fields = counters.unit_fields(type_name)
    if fields is None:  # the library validates its own references; a custom unit may name anything
        raise ValueError(f"counter type '{type_name}' is not in the ASL library")
    fields.update({name: getattr(unit, name) for name in STATUS_FIELDS})
    fields.update(id=new_id or unit.id, type=type_name.casefold(), side=unit.side, location=unit.location)
    new = AslUnit.model_validate(fields)
    return ctx.put_unit(new)


def custom_half_squad(ctx: AslContext, unit: AslUnit, *, new_id: str | None = None) -> AslUnit:
    """The half-squad of a squad the library does not know (see the `assumed:` note)."""
    divisor = rules().casualty_reduction.custom_fp_divisor
    data = unit.model_dump()
    fp = max(1, unit.fp // divisor)
    data.update(kind="half-squad", fp=fp, name=f"{fp}-{unit.range}-{unit.morale}", reduces_to=None,
                replaced_by=None, id=new_id or unit.id, type="custom")
    new = ctx.put_unit(AslUnit.model_validate(data))
    ctx.trail.note(f"{unit.label} has no half-squad type in the library: half its FP, same range and "
                   "morale (assumed, data/asl/morale.yaml)", rule=rules().casualty_reduction.rule, unit=unit.id)
    return new


def half_squad(ctx: AslContext, unit: AslUnit, *, new_id: str | None = None) -> AslUnit:
    if unit.reduces_to and counters.counter_type(unit.reduces_to) is not None:
        return replace_with_type(ctx, unit, unit.reduces_to, new_id=new_id)
    return custom_half_squad(ctx, unit, new_id=new_id)


def casualty_reduction(ctx: AslContext, unit: AslUnit, *, rule: str = "A7.302") -> AslUnit | None:
    """The ruleset's one Casualty Reduction (fire, morale checks, rally and close combat all call
    it): a squad becomes its half-squad; a half-squad or crew is eliminated (A7.302); a single-man
    counter is wounded (A17.1), its Wound Severity dr deciding whether it lives (``wound``), in the
    games that referee wounds (an older game eliminates it, as it was played). Returns the unit now
    in play, or None."""
    if unit.kind in rules().wounds.kinds and wounds_refereed(ctx.game):
        return wound(ctx, unit, why=f"Casualty Reduction ({rule})")
    if unit.kind != "squad":
        eliminate(ctx, unit, rule=rule, why="Casualty Reduction")
        return None
    ctx.touch(unit)
    new = half_squad(ctx, unit)
    ctx.effect(new, f"reduced to {new.name}", rule=rule)
    return new


def wounds_refereed(game) -> bool:
    """Whether the game wounds its single-man counters (A17; games created since, a creation default)."""
    return bool(game.options.get(rules().wounds.option))


def wound(ctx: AslContext, unit: AslUnit, *, why: str) -> AslUnit | None:
    """A single-man counter is wounded (A17.1): a Wound Severity dr, +1 if he is wounded already;
    from ``mortal_from`` the wound is mortal and he is eliminated (A17.11); otherwise he is marked
    wounded, his morale one lower and a leader's leadership modifier one worse, once only (A17.3).
    Returns the unit, or None when the wound killed him."""
    data = rules().wounds
    ctx.trail.note(f"{unit.label}: {why} wounds a single-man counter", rule=data.rule, unit=unit.id)
    roll = ctx.roller.dr(f"Wound Severity of {unit.label}")
    ctx.trail.put("dice", "Wound Severity dr", roll.total, rule=data.severity_rule, unit=unit.id)
    final = roll.total
    if unit.wounded:
        final += data.again_drm
        ctx.trail.put("modifier", "already wounded", data.again_drm, rule=data.severity_rule, unit=unit.id)
    mortal = final >= data.mortal_from
    verdict = f"mortal ({data.mortal_from}+)" if mortal else f"wounded (1-{data.mortal_from - 1})"
    ctx.trail.put("check", f"Final dr {final}", verdict, total=final, rule=data.severity_rule, unit=unit.id)
    if mortal:
        eliminate(ctx, unit, rule=data.severity_rule, why="mortal wound")
        return None
    ctx.touch(unit)
    if unit.wounded:
        ctx.effect(unit, "wounded again: no further loss of morale or leadership", rule=data.effects_rule)
        return unit
    unit.wounded = True
    changes = [f"morale {unit.morale} -> {unit.morale + data.morale_drm}"]
    unit.morale += data.morale_drm
    if unit.broken_morale is not None:
        unit.broken_morale += data.morale_drm
    if unit.kind == "leader":
        after = unit.leadership + data.leadership_drm
        changes.append(f"leadership {unit.leadership:+d} -> {after:+d}")
        unit.leadership = after
    changes.append(f"{data.mf} MF, no Double Time ({data.movement_rule})")
    ctx.effect(unit, f"wounded: {', '.join(changes)}", rule=data.effects_rule)
    return unit


def free_id(game, base: str) -> str:
    """An unused unit id from ``base`` (ids are at most 24 characters, see setup.ID_PATTERN)."""
    for suffix in ["b"] + [f"b{i}" for i in range(2, 100)]:
        candidate = base[: 24 - len(suffix)] + suffix
        if game.find_unit(candidate) is None:
            return candidate
    raise ValueError("no free unit id")  # 99 half-squads of one squad cannot happen in play


def elr_replacement(ctx: AslContext, unit: AslUnit, *, rule: str = "A19.13") -> list[AslUnit]:
    """ELR failure (A19.13): the next lower quality; an underlined-morale squad instead becomes
    two half-squads (the caller breaks them). Returns the unit(s) now in its place."""
    if unit.morale_underlined and unit.kind == "squad":
        ctx.touch(unit)
        first = half_squad(ctx, unit)
        second = half_squad(ctx, unit, new_id=free_id(ctx.game, unit.id))
        ctx.effect(first, f"ELR: becomes two half-squads ({first.name} {first.id}, {second.name} {second.id})",
                   rule=rule)
        ctx.effect(second, "created by ELR failure", rule=rule)
        return [first, second]
    if unit.replaced_by and counters.counter_type(unit.replaced_by) is not None:
        ctx.touch(unit)
        old = unit.name
        new = replace_with_type(ctx, unit, unit.replaced_by)
        ctx.effect(new, f"ELR: {old} replaced by {new.name}", rule=rule)
        return [new]
    ctx.trail.note(f"{unit.label}: no lower-quality type, so no ELR replacement", rule=rule, unit=unit.id)
    return [unit]
