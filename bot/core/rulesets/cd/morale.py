"""Company morale [21] and the Rally/Regroup order [21.4].

A company is every stand whose ``company`` matches. It checks once a turn with one d10 and the
card's modifiers; how the d10 meets the rating (``at_most`` / ``at_least``) and the ratings are
data (``assumed``), overridable per game with ``options["cd_morale_direction"]`` and
``options["cd_morale_ratings"]``.
"""

from __future__ import annotations

from typing import Any

from ...errors import IllegalOrder, InvalidOrder
from ...outcome import Outcome, TableCell
from . import tables
from .context import CdContext, eliminate, force_back
from .models import CdStand
from .orders import MORALE_DUE_RULE, CdCompanyNear, CdCompanyWaive, CdMorale, CdRally
from .turn import due_text, morale_due, quality, turn_rules

STATES = ("demoralized", "shaken", "pinned")  # worst first
RESULT_TEXT = {"pinned": "pinned", "forced_back_shaken": "forced back + shaken",
               "forced_back_demoralized": "forced back + demoralized", "eliminated": "eliminated"}


def company(ctx: CdContext, name: str) -> tuple[list[CdStand], list[CdStand]]:
    """(stands still in play, every stand) of the company named ``name``."""
    stands: list[CdStand] = [u for u in ctx.game.units.values()  # type: ignore[misc]
                             if getattr(u, "company", "") and u.company.casefold() == name.casefold()]
    if not stands:
        known = sorted({u.company for u in ctx.game.units.values() if getattr(u, "company", "")})
        raise InvalidOrder(f"no company '{name}' in this game (companies: {', '.join(known) or 'none yet'})",
                           field="company")
    live = [s for s in stands if not s.eliminated]
    if not live:
        raise IllegalOrder(f"company {name} has no stand left in play", rule="CD [21]")
    return live, stands


def worst_state(stands: list[CdStand]) -> str | None:
    return next((state for state in STATES if any(getattr(s, state) for s in stands)), None)


# --- the rating and the direction ---


def direction(ctx: CdContext) -> str:
    chosen = ctx.game.options.get("cd_morale_direction", tables.morale().direction)
    if chosen not in ("at_most", "at_least"):
        raise InvalidOrder(f"options.cd_morale_direction is 'at_most' or 'at_least', not {chosen!r}",
                           field="options")
    return chosen


def ratings(ctx: CdContext, way: str) -> dict[str, int]:
    table: dict[str, Any] = dict(tables.morale().ratings[way])  # type: ignore[index]
    override = ctx.game.options.get("cd_morale_ratings") or {}
    if not isinstance(override, dict) or any(k not in table or not isinstance(v, int) for k, v in override.items()):
        raise InvalidOrder(f"options.cd_morale_ratings maps troop qualities ({', '.join(table)}) to numbers",
                           field="options")
    return {**table, **override}


def company_rating(ctx: CdContext, live: list[CdStand], way: str) -> tuple[int, CdStand]:
    """The worst rating among the stands (assumed): the lowest to roll under, the highest to reach."""
    table = ratings(ctx, way)
    rated = [(s.morale if s.morale is not None else table[quality(ctx, s)], s) for s in live]
    pick = min if way == "at_most" else max
    return pick(rated, key=lambda pair: pair[0])


# --- the check ---


def resolve_morale(ctx: CdContext, order: CdMorale) -> Outcome:
    live, stands = company(ctx, order.company)
    if any(s.morale_checked_turn == ctx.turn for s in live):
        raise IllegalOrder(f"company {order.company} has already checked morale this turn (CD [21])",
                           rule="CD [21]")
    data = tables.morale()
    way = direction(ctx)
    ctx.trail.section(f"Morale check: company {order.company} ({len(live)} stands)", rule=data.rule)
    rating, by = company_rating(ctx, live, way)
    ctx.trail.put("base", f"Morale rating {rating} ({by.label}, {quality(ctx, by)})", rating, total=rating,
                  rule=data.rule)
    mods = morale_modifiers(ctx, order, live, stands)
    roll = ctx.roller.d10(f"morale of company {order.company}").dice[0]
    ctx.trail.put("dice", f"Morale roll, company {order.company}", roll, rule=data.rule)
    missed_by = judge(ctx, way, rating, mods, roll)
    for stand in live:
        stand.morale_checked_turn = ctx.turn
    result = apply_result(ctx, live, missed_by)
    if order.in_contact and not all(s.eliminated for s in live) and any(s.demoralized for s in live):
        for stand in live:
            eliminate(ctx, stand, "demoralized in contact", data.demoralized_in_contact_rule)
        result = "eliminated (demoralized in contact)"
    return ctx.outcome("morale", f"Company {order.company} morale: d10 {roll} -> {result}", live[0].side)


def morale_modifiers(ctx: CdContext, order: CdMorale, live: list[CdStand], stands: list[CdStand]) -> int:
    mods = tables.morale().modifiers
    total = 0
    for key in ("in_cover", "enemy_personnel_near", "afv_near", "air_attack_near", "road_march", "targeted_by_tot"):
        if getattr(order, key):
            total = ctx.modifier(getattr(mods, key), tables.morale().rule, total)
    forced = sum(s.forced_back for s in live)
    lost = sum(s.eliminated_turn == ctx.turn for s in stands if s.eliminated)
    for mod, count in ((mods.forced_back_each, forced), (mods.eliminated_each, lost)):
        if count:
            total = ctx.modifier(mod, tables.morale().rule, total, value=mod.value * count,
                                 label=f"{mod.label} x{count}")
    state = worst_state(live)
    if state:
        total = ctx.modifier(getattr(mods, state), tables.morale().rule, total)
    return total


def judge(ctx: CdContext, way: str, rating: int, mods: int, roll: int) -> int:
    """How far the check is missed (0 or less: passed), in the game's direction."""
    rule = tables.morale().rule
    if way == "at_most":
        need = rating + mods
        missed_by = roll - need
        ctx.trail.put("check", f"d10 {roll} vs {need} or less (rating {rating} {mods:+d}): "
                      + ("passed" if missed_by <= 0 else f"missed by {missed_by}"), roll, total=need, rule=rule)
    else:
        score = roll + mods
        missed_by = rating - score
        ctx.trail.put("check", f"d10 {roll} {mods:+d} = {score} vs {rating} or more: "
                      + ("passed" if missed_by <= 0 else f"missed by {missed_by}"), score, total=rating, rule=rule)
    return missed_by


def apply_result(ctx: CdContext, live: list[CdStand], missed_by: int) -> str:
    data = tables.morale()
    if missed_by <= 0:
        remove_old_pins(ctx, live)
        return "passed"
    band = data.band(missed_by)
    text = RESULT_TEXT[band.result]
    ctx.cells.append(TableCell(table="CD Morale Results [21.3]", column="missed by", row=str(missed_by),
                               result=text, rule=band.rule))
    ctx.trail.put("table", f"Morale results, missed by {missed_by}: {text}", text, rule=band.rule)
    for stand in live:
        STEP[band.result](ctx, stand, band.rule)
    return f"missed by {missed_by}: {text}"


def remove_old_pins(ctx: CdContext, live: list[CdStand]) -> None:
    """A pin from an earlier turn comes off when the company passes this turn's check [21.3.2]."""
    for stand in live:
        if stand.pinned and (stand.pinned_turn or 0) < ctx.turn:
            ctx.touch(stand)
            stand.pinned = False
            ctx.effect(stand, "pin removed (passed)", rule=tables.morale().pin_removal_rule)


def _pin(ctx: CdContext, stand: CdStand, rule: str) -> None:
    if stand.shaken or stand.demoralized:  # already worse than pinned: it stays as it is
        return
    ctx.touch(stand)
    stand.pinned, stand.pinned_turn = True, ctx.turn
    ctx.effect(stand, "pinned", rule=rule)


def _shake(ctx: CdContext, stand: CdStand, rule: str) -> None:
    force_back(ctx, stand, rule)
    if not stand.demoralized:
        stand.pinned, stand.shaken = False, True
        ctx.effect(stand, "shaken", rule=rule)


def _demoralize(ctx: CdContext, stand: CdStand, rule: str) -> None:
    force_back(ctx, stand, rule)
    stand.pinned, stand.shaken, stand.demoralized = False, False, True
    ctx.effect(stand, "demoralized", rule=rule)


def _eliminate(ctx: CdContext, stand: CdStand, rule: str) -> None:
    eliminate(ctx, stand, "morale", rule)


STEP = {"pinned": _pin, "forced_back_shaken": _shake, "forced_back_demoralized": _demoralize,
        "eliminated": _eliminate}


# --- Rally/Regroup [21.4] ---


def resolve_rally(ctx: CdContext, order: CdRally) -> Outcome:
    live, _ = company(ctx, order.company)
    rally = tables.morale().rally
    if worst_state(live) is None:
        raise IllegalOrder(f"company {order.company} is not pinned, shaken or demoralized: there is nothing "
                           f"to rally from (CD [21.4])", rule=rally.rule)
    ctx.trail.section(f"Rally/Regroup: company {order.company}", rule=rally.rule)
    for stand in live:
        rally_stand(ctx, stand)
    ctx.trail.note("Rallying: no move, and fire only in contact this turn", rule=rally.rule)
    states = sorted({(worst_state([s]) or "good order") for s in live})
    return ctx.outcome("rally", f"Company {order.company} rallies: now {', '.join(states)}", live[0].side)


def rally_stand(ctx: CdContext, stand: CdStand) -> None:
    rally = tables.morale().rally
    stand.rallied_turn = ctx.turn
    state = worst_state([stand])
    if state is None:
        return
    after = rally.steps[state]  # type: ignore[index]
    ctx.touch(stand)
    stand.pinned = after == "pinned"
    stand.shaken = after == "shaken"
    stand.demoralized = False
    ctx.effect(stand, f"{state} -> {after.replace('_', ' ')}", rule=rally.rule)


# --- the companies that must check (5B) ---


def _checked(ctx: CdContext, name: str, live: list[CdStand]) -> None:
    if any(s.morale_checked_turn == ctx.turn for s in live):
        raise IllegalOrder(f"company {name} has checked morale this turn already ({MORALE_DUE_RULE})",
                           rule=MORALE_DUE_RULE)


def resolve_near(ctx: CdContext, order: CdCompanyNear) -> Outcome:
    """The players declare a company within 12" of the enemy: its check is due this turn (5B)."""
    if not turn_rules(ctx.game):
        raise IllegalOrder("this game was started before the bot kept the companies that must check morale: "
                           "/morale the company as the card says (CD 5B)", rule=MORALE_DUE_RULE)
    live, _ = company(ctx, order.company)
    _checked(ctx, order.company, live)
    ctx.trail.section(f"Company {order.company} is within 12\" of the enemy", rule=MORALE_DUE_RULE)
    for stand in live:
        stand.near_enemy_turn = ctx.turn
    ctx.trail.note(f"Company {order.company} must check morale this turn: /morale company:{order.company}",
                   rule=MORALE_DUE_RULE)
    return ctx.outcome("company_near", f"Company {order.company} is within 12\" of the enemy: it checks morale "
                       "this turn", live[0].side)


def resolve_waive(ctx: CdContext, order: CdCompanyWaive) -> Outcome:
    """The game master waives a company's required check: logged; its old pins come off at the turn's
    end as for a company that made no check [21.3.2]."""
    rule = tables.turn().morale_due.waiver_rule
    live, _ = company(ctx, order.company)
    _checked(ctx, order.company, live)
    side = live[0].side
    due = morale_due(ctx.game, side)
    name = next((n for n in due if n.casefold() == order.company.casefold()), None)
    if name is None:
        raise IllegalOrder(f"company {order.company} has no morale check due this turn: nothing to waive "
                           f"({MORALE_DUE_RULE})", rule=MORALE_DUE_RULE)
    ctx.trail.section(f"Company {name}: the required morale check is waived", rule=rule)
    ctx.trail.note(f"Due: {due_text({name: due[name]})}", rule=MORALE_DUE_RULE)
    if order.reason:
        ctx.trail.note(f"The game master's reason: {order.reason}", rule=rule)
    for stand in live:
        stand.check_waived_turn = ctx.turn
    if any(s.pinned and (s.pinned_turn or 0) < ctx.turn for s in live):
        ctx.trail.note("No check this turn: its old pins come off at the end of the turn",
                       rule=tables.morale().pin_removal_rule)
    return ctx.outcome("company_waive", f"Company {name}: morale check waived by the game master", side)
