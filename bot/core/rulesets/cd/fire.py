"""Direct fire [13, 14]: rate of fire [13.5], to-hit [14.2.1], hit results [19.1], ammo [27.1].

Each ROF die is aimed at one target in turn (round-robin, an ``assumed:`` reading in
data/cd/modifiers.yaml) and compared with that target's modified to-hit number; every hit then
takes one hit-result roll on the Hit Results chart.
"""

from __future__ import annotations

from collections import Counter

from ...errors import IllegalOrder, InvalidOrder
from ...game import Game
from ...outcome import Outcome
from ...sequence import refereed
from . import tables
from .context import CdContext
from .hits import ApHit, check_depletion, resolve_hit, suppress
from .models import CdStand
from .orders import CdFire
from .turn import check_revealed, cover, deferred, doomed, fired_upon, quality

ONCE_RULE = "CD [13.1] (once a fire phase: assumed)"
PREP_FIRE_CLASSES = ("H", "HC")  # Prep Fire: unpinned H/HC class only (card, Movement C)
PERSONNEL_COVER = {"medium": "medium_cover", "hard": "hard_cover", "fortification": "fortification"}


def resolve_fire(ctx: CdContext, order: CdFire) -> Outcome:
    firer, targets = participants(ctx, order)
    moving = as_it_moves(ctx.game, firer, targets)
    op_fire = order.op_fire or ctx.game.phase == "OpFire" or moving
    check_may_fire(ctx, firer, order, op_fire, moving=moving)
    if refereed(ctx.game):
        firer.fired_phase = f"{ctx.turn}:{OP_FIRE_PHASE if moving else ctx.game.phase}"
    fired_upon(ctx, targets)
    base = base_to_hit(firer, order.range_band)
    ap_penetration = penetration(firer, targets, order.range_band)
    ctx.trail.section(f"{firer.label} fires at {', '.join(t.label for t in targets)}", rule="CD [13]", unit=firer.id)
    if moving:
        ctx.trail.note(f"Op Fire at {', '.join(t.label for t in targets)} as it moves (the reaction window): "
                       f"{OP_FIRE_NOW}", rule="CD [13.1.2]")
    if op_fire:
        for target in (t for t in targets if t.moved_turn == ctx.turn):
            ctx.trail.note(f"Op Fire at {target.label}, which moved this turn", rule="CD [13.1.2]", unit=target.id)
    dice = rate_of_fire(ctx, firer, targets, order, op_fire)
    numbers = {t.id: to_hit(ctx, firer, t, order, base) for t in targets}
    hits, naturals = roll_to_hit(ctx, targets, dice, numbers)
    last = bool(ctx.game.options.get("cd_depletion_after_hits"))  # games created since: dice in the order shown
    if not last:
        check_depletion(ctx, firer, naturals)
    results = hit_results(ctx, firer, targets, hits, order, ap_penetration)
    if last:
        check_depletion(ctx, firer, naturals)
    if firer.weapon_class in tables.modifiers().suppression.classes and ctx.game.phase != "GeneralFire":
        suppress(ctx, targets, tables.modifiers().suppression.rule)
    text = headline(firer, targets, dice, hits, results)
    if deferred(ctx) and any(r != "no effect" for found in results.values() for r in found):
        text += " (takes effect at the end of the phase)"
        ctx.trail.note("Both sides fire in this phase: its results take effect at the end of the phase, so a stand "
                       "hit now still fires in it", rule=tables.turn().simultaneous.rule)
    return ctx.outcome("fire", text, firer.side)


# --- who may fire at whom ---


def participants(ctx: CdContext, order: CdFire) -> tuple[CdStand, list[CdStand]]:
    firer = ctx.stand(order.firer, field="firer")
    targets = [ctx.stand(t, field="targets") for t in order.targets]
    if len({t.id for t in targets}) != len(targets):
        raise InvalidOrder("a stand is named twice in 'targets'", field="targets")
    check_targets(firer, targets)
    return firer, targets


def check_targets(firer: CdStand, targets: list[CdStand]) -> None:
    for target in targets:
        if target.side == firer.side:
            raise IllegalOrder(f"{firer.label} and {target.label} are on the same side: fire only at "
                               f"enemy stands (CD [13])", rule="CD [13]")
        if target.eliminated:
            raise IllegalOrder(f"{target.label} is already eliminated", rule="CD [19.1]")


OP_FIRE_PHASE = "OpFire"
OP_FIRE_NOW = ("resolved at once, the stand's fire of the Opportunity Fire phase (assumed: the card resolves Op Fire "
               "in its own phase; played by post, the table fires at the stand where it stands on its way)")


def as_it_moves(game: Game, firer: CdStand, targets: list[CdStand]) -> bool:
    """Op Fire at stands as they move: a reaction window is open (bot/core/reactions.py) for the
    firer's side, and every target is one of its movers."""
    window = game.reaction
    return (window is not None and game.phase == "Movement" and window.side == firer.side
            and all(t.id in window.ids for t in targets))


def may_op_fire(game: Game, stand: CdStand) -> bool:
    """Whether ``stand`` could Op Fire now, as far as its own state says (CD [13.1.2], [21.3], [27.1], [7.1.3])."""
    if stand.eliminated or stand.location is None or stand.demoralized or stand.ammo_depleted or stand.acts_pinned:
        return False
    if stand.weapon_class == "none" or not stand.to_hit or stand.fired_phase == f"{game.turn}:{OP_FIRE_PHASE}":
        return False
    chosen = tables.orders().orders.get(stand.order or "")
    return chosen is None or chosen.prep_op_fire


def check_may_fire(ctx: CdContext, firer: CdStand, order: CdFire, op_fire: bool, *, moving: bool = False) -> None:
    """The firer's state, the phase and the order it is under [13.1, 21.3, 21.4, 27.1]."""
    if firer.eliminated:
        raise IllegalOrder(f"{firer.label} is eliminated and cannot fire", rule="CD [19.1]")
    if firer.demoralized:
        raise IllegalOrder(f"{firer.label} is demoralized and may not fire (CD [21.3.4])", rule="CD [21.3.4]")
    if firer.ammo_depleted:
        raise IllegalOrder(f"{firer.label} is out of ammunition until resupplied (CD [27.1])", rule="CD [27.1]")
    if firer.weapon_class == "none" or not firer.to_hit:
        raise IllegalOrder(f"{firer.label} has no direct-fire weapon (CD [14])", rule="CD [14]")
    if order.human_wave and not order.close_assault:
        raise InvalidOrder("Human Wave adds a die only in close assault (CD [13.5])", field="human_wave")
    check_fire_kind(ctx, firer, order, op_fire, moving=moving)


def check_fire_kind(ctx: CdContext, firer: CdStand, order: CdFire, op_fire: bool, *, moving: bool = False) -> None:
    # Op Fire at stands as they move is the Opportunity Fire phase's fire, given in the Movement Phase
    phase = OP_FIRE_PHASE if moving else ctx.game.phase
    if op_fire and phase != "OpFire":
        raise IllegalOrder(f"Op Fire is resolved in the OpFire phase, not the {phase} phase (CD [13.1.2])",
                           rule="CD [13.1.2]")
    if phase == "Movement" and (firer.weapon_class not in PREP_FIRE_CLASSES or firer.acts_pinned):
        raise IllegalOrder(f"{firer.label} may not Prep Fire: only unpinned H/HC class stands do "
                           f"(CD [13.1.1])", rule="CD [13.1.1]")
    if firer.acts_pinned and op_fire:
        raise IllegalOrder(f"{firer.label} is pinned and may not Op Fire (CD [21.3.2])", rule="CD [21.3.2]")
    if firer.rallied_turn == ctx.turn and (phase != "GeneralFire" or not order.in_contact):
        raise IllegalOrder(f"{firer.label} is under a Rally/Regroup order: it fires only in the General "
                           f"Fire phase and only in contact (CD [21.4])", rule="CD [21.4]")
    if not refereed(ctx.game):
        return  # a game logged before the sequence of play was refereed plays on as it did
    check_revealed(ctx, [firer], "fire")
    check_stand_order(ctx, firer, order)
    if firer.fired_phase == f"{ctx.turn}:{phase}":
        raise IllegalOrder(f"{firer.label} has fired in this phase already: a stand fires once a fire phase "
                           f"({ONCE_RULE})", rule=ONCE_RULE)


def check_stand_order(ctx: CdContext, firer: CdStand, order: CdFire) -> None:
    """The Orders Summary: the order a stand is under says whether it may Prep or Op Fire, and how
    it fires in the General Fire phase [7.1.3]. A stand with no order yet is not limited (assumed)."""
    table = tables.orders()
    chosen = table.orders.get(firer.order or "")
    if chosen is None:
        return
    if ctx.game.phase in ("Movement", "OpFire") and not chosen.prep_op_fire:
        raise IllegalOrder(f"{firer.label} is under a {chosen.name} order: no Prep or Op Fire ({table.rule})",
                           rule=table.rule)
    if ctx.game.phase == "GeneralFire" and chosen.contact_only and not order.in_contact:
        raise IllegalOrder(f"{firer.label} is under a {chosen.name} order: it fires only in contact "
                           f"(in_contact=yes) ({table.rule})", rule=table.rule)


def base_to_hit(firer: CdStand, band: str) -> int:
    if band not in firer.to_hit:
        raise InvalidOrder(f"{firer.label} has no to-hit number at range '{band}' "
                           f"(its bands: {', '.join(firer.to_hit)})", field="range_band")
    return firer.to_hit[band]


def penetration(firer: CdStand, targets: list[CdStand], band: str) -> int | None:
    """The AP weapon's penetration at ``band``, when an A class weapon fires at an AFV."""
    if firer.weapon_class != "A" or not any(t.is_afv for t in targets):
        return None
    if band not in firer.penetration:
        raise InvalidOrder(f"{firer.label} has no penetration at range '{band}' "
                           f"(its bands: {', '.join(firer.penetration) or 'none'})", field="range_band")
    return firer.penetration[band]


# --- rate of fire [13.5] ---


def rate_of_fire(ctx: CdContext, firer: CdStand, targets: list[CdStand], order: CdFire, op_fire: bool) -> int:
    rof = tables.modifiers().rof
    ctx.trail.section("Rate of fire", rule=rof.rule, unit=firer.id)
    dice = ctx.trail.add("base", f"ROF of {firer.label}", firer.rof, total=firer.rof, rule=rof.rule).total
    for mod, applies in rof_modifiers(firer, targets, order, op_fire, quality(ctx, firer)):
        if applies:
            dice = ctx.modifier(mod, rof.rule, dice)
    if op_fire and order.passenger:
        ctx.trail.note("Passengers get no Op Fire bonus", rule=rof.rule)
    if len(targets) > 1 and order.in_contact:
        ctx.trail.note("Multiple targets in contact: no ROF penalty", rule="CD [16.3]")
    return cap_rof(ctx, firer, targets, order, dice)


def rof_modifiers(firer: CdStand, targets: list[CdStand], order: CdFire, op_fire: bool,
                  firer_quality: str | None = None) -> list:
    rof = tables.modifiers().rof
    firer_quality = firer_quality or firer.quality
    return [
        (rof.elite, firer_quality == "elite" or firer.elite_rof),
        (rof.op_fire, op_fire and not order.passenger),
        (rof.human_wave, order.human_wave and order.close_assault),
        (rof.passenger, order.passenger),
        (rof.multiple_targets, len(targets) > 1 and not order.in_contact),
    ]


def cap_rof(ctx: CdContext, firer: CdStand, targets: list[CdStand], order: CdFire, dice: int) -> int:
    rof = tables.modifiers().rof
    if dice < rof.minimum:
        dice = ctx.trail.add("check", f"At least {rof.minimum} die", rof.minimum, total=rof.minimum,
                             rule=rof.rule).total
    caps = [(rof.close_assault_vs_afv_max, "Personnel in close assault vs AFV",
             order.close_assault and firer.is_personnel and any(t.is_afv for t in targets)),
            (rof.battalion_gun_max, "Battalion gun", firer.battalion_gun)]
    for cap, label, applies in caps:
        if applies and dice > cap:
            dice = ctx.trail.add("check", f"{label}: at most {cap} die", cap, total=cap, rule=rof.rule).total
    ctx.trail.put("check", "ROF dice", dice, total=dice, rule=rof.rule, unit=firer.id)
    return dice


# --- to-hit [14.2.1] ---


def to_hit(ctx: CdContext, firer: CdStand, target: CdStand, order: CdFire, base: int) -> int:
    rule = tables.modifiers().to_hit.rule
    ctx.trail.section(f"To hit {target.label}", rule=rule, unit=target.id)
    number = ctx.trail.add("base", f"To-hit of {firer.label} at {order.range_band}", base, total=base,
                           rule=rule).total
    number = target_modifiers(ctx, firer, target, order, number)
    number = firer_modifiers(ctx, firer, target, order, number)
    ctx.trail.put("check", f"Hits {target.label} on {number} or less", number, total=number, rule=rule,
                  unit=target.id)
    return number


def target_modifiers(ctx: CdContext, firer: CdStand, target: CdStand, order: CdFire, number: int) -> int:
    table = tables.modifiers().to_hit
    if order.close_assault or order.flame or firer.weapon_class == "F":
        ctx.trail.note("Close assault and flame ignore the target modifiers", rule=table.rule)
        return number
    he = firer.weapon_class in table.he_classes
    for key, applies in target_conditions(target, order, cover(ctx, target, order.cover)):
        if not applies:
            continue
        mod = getattr(table.target, key)
        if he and mod.starred:
            ctx.trail.note(f"HE ({firer.weapon_class} class) ignores: {mod.label}", rule=table.rule)
            continue
        number = ctx.modifier(mod, table.rule, number, unit=target.id)
    return number


def target_conditions(target: CdStand, order: CdFire, covered: str | None = None) -> list[tuple[str, bool]]:
    # Personnel cover is for everything that is not a vehicle; hull down is for AFVs only.
    vehicle = target.kind in ("vehicle", "afv")
    covered = order.cover or "none" if covered is None else covered
    return [
        ("patrol", order.target_patrol),
        ("pinned_personnel", target.is_personnel and target.acts_pinned),
        ("light_cover", covered == "light"),
        ("afv_hull_down", order.hull_down and target.is_afv),
        *[(key, covered == name and not vehicle) for name, key in PERSONNEL_COVER.items()],
    ]


def firer_modifiers(ctx: CdContext, firer: CdStand, target: CdStand, order: CdFire, number: int) -> int:
    table = tables.modifiers().to_hit
    for key, applies in firer_conditions(ctx, firer, target, order):
        if applies:
            number = ctx.modifier(getattr(table.firer, key), table.rule, number, unit=firer.id)
    chosen = tables.orders().orders.get(firer.order or "")
    if (chosen is not None and chosen.general_fire_modifier and firer.order != "hasty_advance"
            and firer.rallied_turn != ctx.turn and ctx.game.phase == "GeneralFire"):
        number = ctx.modifier(tables.Mod(value=chosen.general_fire_modifier, label=f"Firer under a {chosen.name} order"),
                              tables.orders().rule, number, unit=firer.id)
    if firer.weapon_class == "H" and target.is_afv and target.weight:
        mod = table.firer.h_vs_afv_per_weight
        number = ctx.modifier(mod, table.rule, number, value=mod.value * target.weight,
                              label=f"H class vs AFV of weight class {target.weight}", unit=firer.id)
    return number


def firer_conditions(ctx: CdContext, firer: CdStand, target: CdStand, order: CdFire) -> list[tuple[str, bool]]:
    afv = tables.modifiers().afv
    rated = quality(ctx, firer)
    return [
        ("h_vs_weak_afv", firer.weapon_class == "H" and afv.weak(target)),
        ("veteran_elite", rated in ("veteran", "elite")),
        ("trained_green", rated in ("trained", "green")),
        ("suppressed", firer.suppressed),
        ("hasty_advance", order.hasty_advance or firer.order == "hasty_advance"),
        ("pinned", firer.acts_pinned),
        ("a_vs_strong_afv", firer.weapon_class == "A" and afv.strong(target)),
        ("w_vs_weak_afv", firer.weapon_class == "W" and afv.weak(target)),
        ("rallying", firer.rallied_turn == ctx.turn),
    ]


# --- dice and results ---


def roll_to_hit(ctx: CdContext, targets: list[CdStand], dice: int,
                numbers: dict[str, int]) -> tuple[Counter[str], list[int]]:
    rule = tables.modifiers().to_hit.rule
    hits: Counter[str] = Counter()
    naturals = []
    for i in range(dice):
        target = targets[i % len(targets)]  # round-robin (assumed, data/cd/modifiers.yaml)
        natural = ctx.roller.d10(f"to hit {target.label}").dice[0]
        naturals.append(natural)
        hit = natural <= numbers[target.id]
        hits[target.id] += hit
        ctx.trail.put("dice", f"ROF die {i + 1} at {target.label}", natural, rule=rule, unit=target.id)
        ctx.trail.put("check", f"{natural} vs {numbers[target.id]} or less: {'hit' if hit else 'miss'}",
                      natural, total=numbers[target.id], rule=rule, unit=target.id)
    return hits, naturals


def hit_results(ctx: CdContext, firer: CdStand, targets: list[CdStand], hits: Counter[str], order: CdFire,
                pen: int | None) -> dict[str, list[str]]:
    results: dict[str, list[str]] = {}
    for target in targets:
        if not hits[target.id]:
            continue
        ctx.trail.section(f"Hit results on {target.label}: {hits[target.id]} hit(s)", rule="CD [19.1]",
                          unit=target.id)
        ap = ApHit(target.armour, pen, order.range_band, order.close_range) \
            if pen is not None and target.is_afv else None
        for _ in range(hits[target.id]):
            if doomed(target):
                ctx.trail.note(f"{target.label} is already eliminated" + ("" if target.eliminated else
                               " at the end of the phase") + ": the hit is spent", rule="CD [19.1]")
                continue
            results.setdefault(target.id, []).append(resolve_hit(ctx, target, ap))
    return results


def headline(firer: CdStand, targets: list[CdStand], dice: int, hits: Counter[str],
             results: dict[str, list[str]]) -> str:
    # stands named by type and id: two stands of one type must not read alike (issue 15)
    total = sum(hits.values())
    text = f"{firer.label} fires {dice} ROF at {', '.join(t.label for t in targets)}: "
    if not total:
        return text + "no hits"
    text += f"{total} hit{'s' if total > 1 else ''} -> "
    if len(targets) == 1:
        return text + ", ".join(results.get(targets[0].id, []))
    return text + "; ".join(f"{t.label}: {', '.join(results[t.id])}" for t in targets if t.id in results)
