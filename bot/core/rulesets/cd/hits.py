"""What a hit does [19.1] and what firing costs in ammunition [27.1]; shared by direct and
indirect fire."""

from __future__ import annotations

from dataclasses import dataclass

from ...outcome import TableCell
from . import tables
from .context import CdContext, eliminate, force_back
from .models import CdStand
from .turn import defer, deferred, quality


@dataclass(frozen=True)
class ApHit:
    """An armour-piercing hit: the target's armour and the weapon's penetration at the range."""

    armour: int
    penetration: int
    band: str
    close_range: bool


def column_for(ctx: CdContext, target: CdStand) -> str:
    """The chart column: soft targets read Green whatever their quality [19.1]; the others their
    quality (the scenario's side quality where the stand has none of its own)."""
    chart = tables.hit_results()
    return chart.soft_column if target.kind in chart.soft_kinds else quality(ctx, target)


def resolve_hit(ctx: CdContext, target: CdStand, ap: ApHit | None) -> str:
    """Roll one hit result on ``target``, apply it and return it ("no effect", ...)."""
    chart = tables.hit_results()
    column = column_for(ctx, target)
    natural = ctx.roller.d10(f"hit result on {target.label}").dice[0]
    ctx.trail.put("dice", f"Hit result on {target.label} ({column})", natural, rule=chart.rule, unit=target.id)
    roll, row = natural, str(natural)
    if ap is not None:
        roll = ctx.trail.add("modifier", f"Armour value of {target.label}", -ap.armour,
                             total=roll - ap.armour, rule=chart.ap_rule, unit=target.id).total
        roll = ctx.trail.add("modifier", f"Penetration at {ap.band}", ap.penetration,
                             total=roll + ap.penetration, rule=chart.ap_rule, unit=target.id).total
        row = f"{natural} {-ap.armour:+d} {ap.penetration:+d} = {roll}"
    result = chart.read(column, roll)  # type: ignore[arg-type]
    rule = chart.rule
    if ap is not None and natural == chart.natural_penetration:
        result, rule = _natural_penetration(ctx, result, ap)
        row += f" (natural {natural})"
    ctx.cells.append(TableCell(table=chart.table, column=column, row=row, result=result, rule=rule))
    ctx.trail.put("table", f"{chart.table} {column}, {row}: {result}", result, rule=rule, unit=target.id)
    if deferred(ctx) and result != "no effect":  # a simultaneous fire phase: at its end
        defer(ctx, target, result, rule)
    else:
        _apply(ctx, target, result, rule)
    return result


def _natural_penetration(ctx: CdContext, result: str, ap: ApHit) -> tuple[str, str]:
    """A natural 10 on an AP hit: eliminated at close range, at least forced back otherwise."""
    rule = tables.hit_results().ap_rule
    if ap.close_range:
        ctx.trail.note("Natural 10 on the penetration roll at close range: eliminated", rule=rule)
        return "eliminated", rule
    if result == "no effect":
        ctx.trail.note("Natural 10 on the penetration roll: at least forced back", rule=rule)
        return "forced back", rule
    return result, rule


def _apply(ctx: CdContext, target: CdStand, result: str, rule: str) -> None:
    if result == "eliminated":
        eliminate(ctx, target, "hit", rule)
    elif result == "forced back":
        force_back(ctx, target, rule)


def depletion_threshold(firer: CdStand) -> tuple[int, list[tuple[str, int]]]:
    """Caliber/10, fractions dropped, with the vehicle modifiers [27.1]."""
    ammo = tables.modifiers().ammo
    mods = []
    if firer.vehicle_type == "armoured_car":
        mods.append(("Armoured car", ammo.armoured_car))
    elif firer.vehicle_type == "tank":
        mods.append(("Tank", ammo.tank))
    return firer.caliber_mm // 10 + sum(v for _, v in mods), mods


def check_depletion(ctx: CdContext, firer: CdStand, naturals: list[int]) -> None:
    """A natural 1 on a to-hit die of a 20mm+ weapon calls for one depletion roll [27.1]."""
    ammo = tables.modifiers().ammo
    if firer.caliber_mm < ammo.min_caliber_mm or ammo.natural not in naturals:
        return
    ctx.trail.section(f"Ammo depletion: natural {ammo.natural} on a to-hit die of a "
                      f"{firer.caliber_mm}mm weapon", rule=ammo.rule, unit=firer.id)
    base = firer.caliber_mm // 10
    ctx.trail.put("base", f"Caliber {firer.caliber_mm}mm / 10", base, total=base, rule=ammo.rule, unit=firer.id)
    threshold, mods = depletion_threshold(firer)
    running = base
    for label, value in mods:
        running += value
        ctx.trail.put("modifier", label, value, total=running, rule=ammo.rule, unit=firer.id)
    roll = ctx.roller.d10(f"ammo depletion of {firer.label}").dice[0]
    ctx.trail.put("dice", f"Depletion roll for {firer.label}", roll, rule=ammo.rule, unit=firer.id)
    depleted = roll <= threshold
    ctx.trail.put("check", f"{roll} vs {threshold} or less: {'depleted' if depleted else 'ammunition holds'}",
                  roll, total=threshold, rule=ammo.rule, unit=firer.id)
    if depleted:
        ctx.touch(firer)
        firer.ammo_depleted = True
        ctx.effect(firer, "ammo depleted", rule=ammo.rule)


def suppress(ctx: CdContext, targets: list[CdStand], rule: str) -> None:
    """Suppression markers on every stand fired at that still stands [20]."""
    if deferred(ctx):
        for target in targets:
            if not target.eliminated and not target.suppressed and "suppressed" not in target.pending:
                defer(ctx, target, "suppressed", rule)
        return
    for target in targets:
        if not target.eliminated and not target.suppressed:
            ctx.touch(target)
            target.suppressed = True
            ctx.effect(target, "suppressed", rule=rule)
