"""Heat of Battle (A15, full ASL only): what follows an Original 2 on a Morale Check or on a
leader-led Rally. The table, its DRMs and its sources are ``data/asl/heat_of_battle.yaml``.

The game option ``heat_of_battle`` chooses how far the bot goes: "mark" (the default) marks the
unit and leaves the table to the players; "table" rolls the HoB DR and applies the result. The
caller has already written the check line and, for a rally, rallied the unit.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from ...data import data_path
from ...errors import InvalidOrder
from . import counters
from .context import AslContext
from .effects import replace_with_type
from .models import AslUnit

DATA_FILE = data_path("asl", "heat_of_battle.yaml")
MODE_OPTION = "heat_of_battle"
DRM_OPTION = "heat_of_battle_drms"
INEXPERIENCED = ("green", "conscript")

Result = Literal["hero", "battle_hardening", "berserk", "surrender"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HobDrm(_Strict):
    key: str
    label: str
    value: int | None
    when: tuple[str, ...]
    each: bool = False
    assumed: str | None = None


class Band(_Strict):
    min: int | None
    max: int | None
    results: tuple[Result, ...]

    def holds(self, final: int) -> bool:
        return (self.min is None or final >= self.min) and (self.max is None or final <= self.max)


class EarlySurrender(_Strict):
    min: int
    nationalities: tuple[str, ...]
    except_quality: str


class HobData(_Strict):
    rule: str
    sources: tuple[str, ...]
    default_mode: Literal["mark", "table"]
    modes: tuple[str, ...]
    exempt_kinds: tuple[str, ...]
    drms: tuple[HobDrm, ...]
    bands: tuple[Band, ...]
    early_surrender: EarlySurrender
    result_rules: dict[Result, str]
    result_names: dict[Result, str]
    heroes: dict[str, str]
    assumed: tuple[str, ...]


@lru_cache(maxsize=1)
def table() -> HobData:
    with open(DATA_FILE, encoding="utf-8") as fh:
        return HobData.model_validate(yaml.safe_load(fh))


def mode(ctx: AslContext) -> str:
    data = table()
    value = ctx.game.options.get(MODE_OPTION, data.default_mode)
    if value not in data.modes:
        raise InvalidOrder(f"the game option {MODE_OPTION} is '{value}': use one of {', '.join(data.modes)}",
                           field=f"options.{MODE_OPTION}")
    return value


def heat_of_battle(ctx: AslContext, unit: AslUnit, *, was_broken: bool, mark_note: str) -> None:
    """The Heat of Battle of ``unit`` after its Original 2 (A15.1)."""
    data = table()
    if mode(ctx) == "mark":
        ctx.trail.note(mark_note, rule=data.rule, unit=unit.id)
        ctx.effect(unit, "Heat of Battle (A15)", rule=data.rule)
        return
    if unit.kind in data.exempt_kinds or unit.berserk:
        why = "already berserk" if unit.berserk else f"a {unit.kind}"
        ctx.trail.note(f"Original 2, but {unit.label} is {why}: not subject to Heat of Battle", rule=data.rule,
                       unit=unit.id)
        return
    ctx.trail.section(f"Heat of Battle DR: {unit.label}", rule=data.rule, unit=unit.id)
    roll = ctx.roller.DR(f"Heat of Battle {unit.label}")
    ctx.trail.put("dice", f"DR: white {roll.white}, colored {roll.colored}", roll.total, rule=data.rule, unit=unit.id)
    final = roll.total + _drms(ctx, unit, was_broken)
    results = _results(ctx, unit, final)
    ctx.trail.put("table", f"Final Heat of Battle DR {final}",
                  " + ".join(data.result_names[r] for r in results), total=final, rule=data.rule, unit=unit.id)
    for result in results:
        unit = _APPLY[result](ctx, ctx.game.units[unit.id], data.result_rules[result])


def traits(ctx: AslContext, unit: AslUnit, was_broken: bool) -> set[str]:
    """What the DRMs look at: broken (before a rally), inexperienced, elite, the nationality."""
    found = {(unit.nationality or ctx.game.sides[unit.side].nationality or "").casefold()}
    if was_broken:
        found.add("broken")
    if unit.quality in INEXPERIENCED:
        found.add("inexperienced")
    if unit.quality == "elite":
        found.add("elite")
    return found - {""}


def supplied_drm(ctx: AslContext, key: str) -> int | None:
    """A DRM value the game supplies: options heat_of_battle_drms {key: n} (JSON, the CLI) or the flat
    option heat_of_battle_drm_<key>=n (what /game new's key=value options can carry)."""
    nested = ctx.game.options.get(DRM_OPTION)
    flat = f"heat_of_battle_drm_{key}"
    if isinstance(nested, dict) and key in nested:
        value, name = nested[key], f"options.{DRM_OPTION}.{key}"
    elif flat in ctx.game.options:
        value, name = ctx.game.options[flat], f"options.{flat}"
    else:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not -6 <= value <= 6:
        raise InvalidOrder(f"the game option {name} is '{value}': give a whole number from -6 to 6", field=name)
    return value


def _drms(ctx: AslContext, unit: AslUnit, was_broken: bool) -> int:
    data = table()
    have = traits(ctx, unit, was_broken)
    total = 0
    for drm in data.drms:
        matched = [t for t in drm.when if t in have]
        if not matched:
            continue
        times = len(matched) if drm.each else 1
        value = drm.value if drm.value is not None else supplied_drm(ctx, drm.key)
        if value is None:
            ctx.trail.note(f"{drm.label}: the DRM's value is not in our sources, so it is not applied "
                           f"(set the game option heat_of_battle_drm_{drm.key})", rule=data.rule, unit=unit.id)
            continue
        why = drm.label if drm.value is not None else f"{drm.label} (game option)"
        for trait in matched[:times]:
            ctx.trail.put("modifier", why if times == 1 else f"{why}: {trait}", value, rule=data.rule, unit=unit.id)
            total += value
    return total


def _results(ctx: AslContext, unit: AslUnit, final: int) -> tuple[Result, ...]:
    data = table()
    early = data.early_surrender
    nation = (unit.nationality or ctx.game.sides[unit.side].nationality or "").casefold()
    if final >= early.min and nation in early.nationalities and unit.quality != early.except_quality:
        return ("surrender",)
    return next(band.results for band in data.bands if band.holds(final))


# --------------------------------------------------------------------------- the results

def _hero(ctx: AslContext, unit: AslUnit, rule: str) -> AslUnit:
    if unit.kind == "leader":
        ctx.touch(unit)
        unit.heroic = True
        ctx.effect(unit, "heroic", rule=rule)
        if unit.broken:
            unit.broken = False
            ctx.effect(unit, "rallied (a heroic leader rallies)", rule=rule)
        return unit
    nation = (unit.nationality or ctx.game.sides[unit.side].nationality or "").casefold()
    type_name = table().heroes.get(nation)
    if type_name is None or counters.counter_type(type_name) is None:
        ctx.trail.note(f"no hero counter for '{nation or 'no nationality'}' in the library: add one with "
                       "/unit add (kind hero)", rule=rule, unit=unit.id)
        return unit
    hero = _new_unit(ctx, unit, type_name, _free_id(ctx, f"{unit.id}H"))
    ctx.effect(hero, f"created by Heat of Battle beside {unit.label}", rule=rule)
    return unit


def _new_unit(ctx: AslContext, beside: AslUnit, type_name: str, new_id: str) -> AslUnit:
    entry = counters.counter_type(type_name)
    assert entry is not None  # checked by the caller
    fields = entry.model_dump(exclude={"assumed"})
    fields.update(id=new_id, type=type_name, side=beside.side, location=beside.location)
    new = AslUnit.model_validate(fields)
    return ctx.put_unit(new)


def _free_id(ctx: AslContext, base: str) -> str:
    base = base[:22]
    for candidate in [base] + [f"{base}{i}" for i in range(2, 100)]:
        if ctx.game.find_unit(candidate) is None:
            return candidate
    raise ValueError("no free unit id")  # 99 heroes from one unit cannot happen in play


def higher_type(unit: AslUnit) -> tuple[str | None, list[str]]:
    """The library type one quality step above ``unit`` (the one whose ELR step down is this
    type), preferring the same FP and range; with none or several: (None, the candidates)."""
    library = counters.library().counters
    found = [key for key, entry in library.items()
             if unit.type and entry.replaced_by == unit.type.casefold() and entry.kind == unit.kind]
    if len(found) > 1:
        same = [key for key in found if (library[key].fp, library[key].range) == (unit.fp, unit.range)]
        if len(same) == 1:
            return same[0], found
    return (found[0] if len(found) == 1 else None), found


def _battle_hardening(ctx: AslContext, unit: AslUnit, rule: str) -> AslUnit:
    if unit.kind not in ("squad", "half-squad"):
        ctx.effect(unit, "Battle Hardening: the players apply it with a GM correction", rule=rule)
        return unit
    new_type, candidates = higher_type(unit)
    if new_type is None:
        choice = f"one of {', '.join(candidates)}" if candidates else "no higher-quality type in the library"
        ctx.effect(unit, f"Battle Hardening ({choice}): the players apply it with a GM correction", rule=rule)
        return unit
    ctx.touch(unit)
    old = unit.name
    new = replace_with_type(ctx, unit, new_type)
    new.broken = new.pinned = False
    ctx.effect(new, f"Battle Hardening: {old} becomes {new.name}, unbroken and unpinned", rule=rule)
    return new


def _berserk(ctx: AslContext, unit: AslUnit, rule: str) -> AslUnit:
    ctx.touch(unit)
    unit.berserk = True
    unit.broken = unit.pinned = False
    ctx.effect(unit, "berserk", rule=rule)
    ctx.trail.note("the bot does not track which enemy units are Known: with no Known enemy unit in LOS this is "
                   "Battle Hardening instead (A15.44); correct it with a GM correction", rule=rule, unit=unit.id)
    return unit


def _surrender(ctx: AslContext, unit: AslUnit, rule: str) -> AslUnit:
    ctx.effect(unit, "surrenders: the players carry it out (the bot does not move units for it)", rule=rule)
    return unit


_APPLY = {"hero": _hero, "battle_hardening": _battle_hardening, "berserk": _berserk, "surrender": _surrender}
