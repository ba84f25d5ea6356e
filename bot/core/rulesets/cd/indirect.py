"""Indirect fire [17.6] and the artillery response roll [17.4].

Each stand under the template takes one to-hit d10 against the firer's IDF number, modified by
the card's target and firing-unit boxes; a hit reads the Hit Results chart with no modifiers
(HE is not AP) [19.1]. Every targeted stand that still stands is suppressed [17.5, 20].
"""

from __future__ import annotations

from ...errors import IllegalOrder, InvalidOrder
from ...outcome import Outcome
from . import tables
from .context import CdContext
from .fire import PERSONNEL_COVER, check_targets
from .hits import check_depletion, resolve_hit, suppress
from .models import CdStand
from .orders import CdArtilleryResponse, CdIndirectFire
from .turn import cover, fired_upon, quality, turn_rules


def resolve_indirect(ctx: CdContext, order: CdIndirectFire) -> Outcome:
    firer = ctx.stand(order.firer, field="firer")
    targets = [ctx.stand(t, field="targets") for t in order.targets]
    if len({t.id for t in targets}) != len(targets):
        raise InvalidOrder("a stand is named twice in 'targets'", field="targets")
    check_idf_firer(ctx, firer)
    check_targets(firer, targets)
    check_mission(ctx, firer, order)
    ctx.trail.section(f"{firer.label} fires IDF at {', '.join(t.label for t in targets)}", rule="CD [17.6]",
                      unit=firer.id)
    count_mission(ctx, firer)
    fired_upon(ctx, targets)
    hits: list[CdStand] = []
    naturals: list[int] = []
    for target in targets:
        number = idf_to_hit(ctx, firer, target, order)
        natural = ctx.roller.d10(f"IDF to hit {target.label}").dice[0]
        naturals.append(natural)
        hit = natural <= number
        ctx.trail.put("dice", f"IDF to hit {target.label}", natural, rule="CD [17.6]", unit=target.id)
        ctx.trail.put("check", f"{natural} vs {number} or less: {'hit' if hit else 'miss'}", natural,
                      total=number, rule="CD [17.6]", unit=target.id)
        if hit:
            hits.append(target)
    if order.h_and_i:
        ctx.trail.note("H&I fire does not deplete ammunition", rule=tables.modifiers().ammo.rule)
    else:  # several stands in a template: only the first (the card's different-colour) die depletes
        check_depletion(ctx, firer, naturals[:1])
    # its own section: the hit results are not part of the last target's to-hit roll
    ctx.trail.section(f"Hit results: {len(hits)} hit(s)", rule="CD [19.1]")
    results = {t.id: resolve_hit(ctx, t, None) for t in hits}
    suppress(ctx, targets, "CD [17.5, 20]")
    return ctx.outcome("indirect_fire", idf_headline(firer, targets, results), firer.side)


def check_idf_firer(ctx: CdContext, firer: CdStand) -> None:
    if firer.eliminated:
        raise IllegalOrder(f"{firer.label} is eliminated and cannot fire", rule="CD [19.1]")
    if firer.idf_to_hit is None:
        raise IllegalOrder(f"{firer.label} has no indirect-fire number (CD [17.6])", rule="CD [17.6]")
    if firer.demoralized:
        raise IllegalOrder(f"{firer.label} is demoralized and may not fire (CD [21.3.4])", rule="CD [21.3.4]")
    if firer.ammo_depleted:
        raise IllegalOrder(f"{firer.label} is out of ammunition until resupplied (CD [27.1])", rule="CD [27.1]")


# --- the call for fire [17.4] and the missions of a phase [13.5, 17.6] ---

SUPPORT_NAMES = {"organic": "Organic artillery", "supporting": "Supporting artillery", "h_and_i": "H&I"}


def check_mission(ctx: CdContext, firer: CdStand, order: CdIndirectFire) -> None:
    """A battery fires a mission only after a successful response roll this turn [17.4], the kind
    it rolled for (H&I or not), and at most its rate of fire in missions in a phase [13.5]."""
    if not turn_rules(ctx.game):
        return
    data = tables.turn().artillery
    need = tables.modifiers().artillery_response
    if firer.response_turn != ctx.turn:
        raise IllegalOrder(f"{firer.label} has not answered a call for fire this turn: roll its response first "
                           f"(/artillery response firer:{firer.id}; organic artillery answers on 1-{need.organic}, "
                           f"supporting on 1-{need.supporting}, {data.response_rule})", rule=data.response_rule)
    if not firer.response_ok:
        raise IllegalOrder(f"{firer.label}'s response roll this turn failed (no response): it fires no mission "
                           f"until next turn's Artillery & Air Phase ({data.response_rule})", rule=data.response_rule)
    h_and_i = firer.response_support == "h_and_i"
    if order.h_and_i != h_and_i:
        said = "an H&I mission (h_and_i:yes)" if h_and_i else "a fire mission, not H&I"
        raise IllegalOrder(f"{firer.label} answered for {said} this turn: it fires that mission ({data.one_roll_rule})",
                           rule=data.response_rule)
    fired = firer.idf_fires if firer.idf_phase == f"{ctx.turn}:{ctx.game.phase}" else 0
    if fired >= max(firer.rof, 1):
        raise IllegalOrder(f"{firer.label} has fired {fired} mission{'s' * (fired != 1)} this phase, its rate of fire "
                           f"(ROF {firer.rof}): it fires again in a later phase ({data.rof_rule})",
                           rule=data.rof_rule)


def count_mission(ctx: CdContext, firer: CdStand) -> None:
    if not turn_rules(ctx.game):
        return
    data = tables.turn().artillery
    here = f"{ctx.turn}:{ctx.game.phase}"
    fired = (firer.idf_fires if firer.idf_phase == here else 0) + 1
    kind = SUPPORT_NAMES.get(firer.response_support or "organic", "Organic artillery")
    ctx.trail.note(f"{kind} answered this turn; mission {fired} of its ROF {max(firer.rof, 1)} this phase",
                   rule=data.rof_rule, unit=firer.id)
    firer.idf_phase, firer.idf_fires = here, fired


def idf_to_hit(ctx: CdContext, firer: CdStand, target: CdStand, order: CdIndirectFire) -> int:
    table = tables.modifiers().idf
    ctx.trail.section(f"IDF to hit {target.label}", rule=table.rule, unit=target.id)
    number = ctx.trail.add("base", f"IDF number of {firer.label}", firer.idf_to_hit, total=firer.idf_to_hit,
                           rule=table.rule).total
    for mod, applies in idf_conditions(firer, target, order, cover(ctx, target, order.cover), quality(ctx, firer)):
        if applies:
            number = ctx.modifier(mod, table.rule, number)
    if target.is_afv and target.weight:
        mod = table.target.afv_per_weight
        number = ctx.modifier(mod, table.rule, number, value=mod.value * target.weight,
                              label=f"vs AFV of weight class {target.weight}", unit=target.id)
    ctx.trail.put("check", f"Hits {target.label} on {number} or less", number, total=number, rule=table.rule,
                  unit=target.id)
    return number


def idf_conditions(firer: CdStand, target: CdStand, order: CdIndirectFire, covered: str, rated: str) -> list:
    mods = tables.modifiers()
    t, f = mods.idf.target, mods.idf.firer
    personnel = target.kind not in ("vehicle", "afv")
    return [
        *[(getattr(t, key), personnel and covered == name) for name, key in PERSONNEL_COVER.items()],
        (t.weak_afv, mods.afv.weak(target)),
        (f.pinned, firer.acts_pinned),
        (f.dedicated_battery, order.dedicated_battery),
        (f.veteran_elite, rated in ("veteran", "elite")),
        (f.trained_green, rated in ("trained", "green")),
        (f.suppressed, firer.suppressed),
    ]


def idf_headline(firer: CdStand, targets: list[CdStand], results: dict[str, str]) -> str:
    text = f"{firer.label} fires IDF at {', '.join(t.label for t in targets)}: "
    if not results:
        return text + "no hits"
    n = len(results)
    if len(targets) == 1:
        return text + f"1 hit -> {results[targets[0].id]}"
    by_id = {t.id: t.label for t in targets}
    return text + f"{n} hit{'s' if n > 1 else ''} -> " + "; ".join(f"{by_id[i]}: {r}" for i, r in results.items())


def resolve_response(ctx: CdContext, order: CdArtilleryResponse) -> Outcome:
    firer = ctx.stand(order.firer, field="firer")
    if firer.eliminated:
        raise IllegalOrder(f"{firer.label} is eliminated and cannot fire", rule="CD [19.1]")
    table = tables.modifiers().artillery_response
    support = check_response(ctx, firer, order.support)
    need = getattr(table, support)
    kind = SUPPORT_NAMES[support]
    ctx.trail.section(f"Artillery response: {firer.label}", rule=table.rule, unit=firer.id)
    ctx.trail.put("base", f"{kind} responds on", need, total=need, rule=table.rule)
    roll = ctx.roller.d10(f"artillery response of {firer.label}").dice[0]
    ok = roll <= need
    ctx.trail.put("dice", f"Response roll for {firer.label}", roll, rule=table.rule, unit=firer.id)
    ctx.trail.put("check", f"{roll} vs {need} or less: {'responds' if ok else 'no response'}", roll,
                  total=need, rule=table.rule, unit=firer.id)
    if ok:
        ctx.trail.put("marker", f"{firer.label}: place the IDF template", rule=table.rule, unit=firer.id)
    if turn_rules(ctx.game):
        firer.response_turn, firer.response_ok, firer.response_support = ctx.turn, ok, support
        fires = "its mission this turn (/artillery fire)" if ok else "no mission this turn"
        ctx.trail.note(f"{firer.label} fires {fires}", rule=table.rule, unit=firer.id)
    verdict = "responds, place the template" if ok else "no response this turn"
    return ctx.outcome("artillery_response", f"{kind} response for {firer.name}: d10 {roll} -> {verdict}",
                       firer.side)


def check_response(ctx: CdContext, firer: CdStand, asked: str | None) -> str:
    """Only artillery answers a call for fire (a stand with an indirect-fire number), once a turn, as
    the battery it is (a scenario's organic or supporting battery); returns whose guns answer."""
    if not turn_rules(ctx.game):
        return asked or "organic"
    data = tables.turn().artillery
    if firer.idf_to_hit is None:
        raise IllegalOrder(f"{firer.label} is not artillery (it has no indirect-fire number): only a battery "
                           f"answers a call for fire ({data.response_rule})", rule=data.response_rule)
    if firer.response_turn == ctx.turn:
        said = "it answered" if firer.response_ok else "no response"
        raise IllegalOrder(f"{firer.label} has rolled its response this turn already ({said}): one roll a battery "
                           f"a turn ({data.one_roll_rule})", rule=data.response_rule)
    if firer.support is not None and asked not in (None, "h_and_i", firer.support):
        need = getattr(tables.modifiers().artillery_response, firer.support)
        raise IllegalOrder(f"{firer.label} is {firer.support} artillery: it answers on 1-{need} "
                           f"(support:{firer.support}, or h_and_i for an H&I mission) ({data.response_rule})",
                           rule=data.response_rule)
    return asked or firer.support or "organic"
