"""ASL morale: Morale Checks, task checks, IFT results on units and Leader Loss (A7.3, A10, A19).

``apply_ift_result`` turns an IFT cell into what happens to each unit attacked (the fire rules
call it); ``morale_check`` is one check on one unit; ``resolve_morale`` is a check taken on its
own (the /morale command). The numbers come from ``data/asl/morale.yaml`` (see effects.rules).

Leader Loss checks caused during an attack wait until every unit attacked has taken its own
check, then run in the order the leaders were lost; a leader lost in a Leader Loss check adds
his own to the queue.
"""

from __future__ import annotations

import re
from typing import NamedTuple, cast

from ...dice import Roll, Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game
from ...outcome import Outcome
from . import heat
from .context import AslContext
from .effects import (break_unit, casualty_reduction, eliminate, elr_replacement, give_dm, pin, rules, wound,
                      wounds_refereed)
from .models import ASL_UNITS, AslUnit, AslUnits
from .orders import AslMorale
from .selection import random_selection

MC_KINDS = ("MC", "NMC", "LLMC")
TASK_KINDS = ("PTC", "TC", "LLTC")
CHECK_NAMES = {
    "MC": "Morale Check", "NMC": "Normal Morale Check", "PTC": "Pin Task Check", "TC": "Task Check",
    "LLMC": "Leader Loss Morale Check", "LLTC": "Leader Loss Task Check",
}
CHECK_RULES = {"MC": "A10.1", "NMC": "A10.1", "PTC": "A7.8", "TC": "A10.1", "LLMC": "A10.2", "LLTC": "A10.2"}
IFT_RESULT = re.compile(r"^(-|PTC|NMC|([1-7])MC|K/([1-4])|([1-7])KIA)$")
RULE_ORIGINAL_12 = "A10.31"
RULE_PIN = "A7.8"
RULE_LEADER_LOSS = "A10.2"
RULE_LEADERSHIP = "A10.7"


# A NamedTuple: as immutable as a frozen dataclass, and built in half the time (a frozen
# dataclass sets each field through object.__setattr__); several are made per resolution.
class LeaderLoss(NamedTuple):
    """A leader broken (Leader Loss Task Check) or eliminated (Leader Loss MC) for the others."""

    leader: str
    eliminated: bool


class CheckResult(NamedTuple):
    passed: bool
    final: int
    morale: int
    roll: Roll


def title(kind: str, n: int) -> str:
    if kind in ("MC", "LLMC") and n:
        short = f"{n:+d}".lstrip("+") + ("MC" if kind == "MC" else " LLMC")
        return f"{short} ({CHECK_NAMES[kind]})"
    return CHECK_NAMES["NMC"] if kind == "MC" else CHECK_NAMES[kind]


# --------------------------------------------------------------------------- leaders

def _leader_rank(leader: AslUnit) -> tuple[int, int]:
    """Best leader first: the lowest leadership DRM, then the highest morale (A10.7)."""
    return leader.leadership, -leader.morale


def good_order_leaders(ctx: AslContext, unit: AslUnit) -> list[AslUnit]:
    """Good Order leaders of the unit's side in its Location, other than the unit, best first."""
    location, side, own = unit.location, unit.side, unit.id
    if location is None:
        return []
    # asked before every check: one pass over the units (Game.units_at's conditions included),
    # and no sort for the usual none or one
    # (the units as the game holds them, read only: in a working game only the leaders found are made
    # working objects, bot/core/working.py)
    units = cast(AslUnits, ctx.game.units)
    found = [units[u.id] for u in dict.values(units)
             if u.location == location and isinstance(u, ASL_UNITS) and not u.eliminated and u.kind == "leader"
             and u.side == side and u.id != own and not u.broken]
    return sorted(found, key=_leader_rank) if len(found) > 1 else found


def leaders_first(units: list[AslUnit]) -> list[AslUnit]:
    """Leaders check first, best leader first (A10.7); the others keep their order."""
    leaders = sorted((u for u in units if u.kind == "leader"), key=_leader_rank)
    return leaders + [u for u in units if u.kind != "leader"]


# --------------------------------------------------------------------------- one check

def morale_check(ctx: AslContext, unit: AslUnit, *, kind: str, n: int = 0, rule: str,
                 roll: Roll | None = None, leader_drm: int | None = None, after_ift: bool = False,
                 drm: int = 0, drm_reason: str | None = None) -> bool:
    """One MC or task check on ``unit``, Leader Loss checks it causes included. ``roll``: use that
    DR (FPF uses the attack's Original DR); ``leader_drm`` None: the best Good Order leader in the
    Location gives his DRM. Returns True if the check is passed."""
    losses: list[LeaderLoss] = []
    leader = _leader_for(ctx, unit, leader_drm)
    result = check(ctx, unit, kind=kind, n=n, rule=rule, roll=roll, leader=leader, after_ift=after_ift,
                   drm=drm, drm_reason=drm_reason, losses=losses)
    resolve_leader_losses(ctx, losses)
    return result.passed


def _leader_for(ctx: AslContext, unit: AslUnit, leader_drm: int | None) -> tuple[str, int] | None:
    if leader_drm is not None:
        return ("leadership", leader_drm)
    leaders = good_order_leaders(ctx, unit)
    return (f"leadership of {leaders[0].label}", leaders[0].leadership) if leaders else None


_TITLES: dict[tuple[str, int], str] = {}  # (kind, n) -> title(kind, n), spelled once


def check(ctx: AslContext, unit: AslUnit, *, kind: str, n: int, rule: str, roll: Roll | None,
          leader: tuple[str, int] | None, after_ift: bool, losses: list[LeaderLoss],
          drm: int = 0, drm_reason: str | None = None) -> CheckResult:
    """The check itself: base morale, DRMs, the DR, then what the result does to the unit.

    Three of these run in a standard fire (a third of its time, docs/performance.md): the title,
    the unit's current morale and the modifiers are taken here in one straight line."""
    # the trail's lines as (kind, label, value, total, rule, unit), made Steps by Trail.freeze
    add, uid, label = ctx.trail.steps.append, unit.id, unit.label
    heading = _TITLES.get((kind, n))
    if heading is None:
        heading = _TITLES[(kind, n)] = title(kind, n)
    add(("section", f"{heading}: {label}", None, None, rule, uid))
    broken = unit.broken
    # unit.current_morale and the word for it
    morale = unit.broken_morale if broken and unit.broken_morale is not None else unit.morale
    word = "broken-side morale" if broken else "morale"
    add(("base", word, morale, None, "A10.1", uid))
    total = 0
    if n and kind in ("MC", "LLMC"):
        add(("modifier", "the lost leader's modifier reversed" if kind == "LLMC" else f"{n}MC", n, None, rule, uid))
        total += n
    if leader is not None:
        add(("modifier", leader[0], leader[1], None, RULE_LEADERSHIP, uid))
        total += leader[1]
    if drm:
        add(("modifier", f"agreed: {drm_reason or 'no reason given'}", drm, None, None, uid))
        total += drm
    if roll is None:
        roll = ctx.roller.DR(f"{kind} {label}")
        white, colored = roll.dice  # a DR: (white, colored)
        original = white + colored
        add(("dice", f"DR: white {white}, colored {colored}", original, None, rule, uid))
    else:
        original = roll.total
        add(("dice", f"the attack's Original DR: white {roll.white}, colored {roll.colored}", original, None, rule,
             uid))
    final = original + total
    result = CheckResult(passed=final <= morale, final=final, morale=morale, roll=roll)
    return _outcome_of(ctx, unit, kind, rule, result, after_ift, losses, word, original)


def _outcome_of(ctx: AslContext, unit: AslUnit, kind: str, rule: str, result: CheckResult,
                after_ift: bool, losses: list[LeaderLoss], word: str, original: int) -> CheckResult:
    data = rules()
    hob = data.heat_of_battle
    if original == hob.original and kind in hob.kinds and ctx.full:
        ctx.trail.put("check", f"Final DR {result.final} vs {word} {result.morale}", "Heat of Battle",
                      total=result.final, rule=hob.rule, unit=unit.id)
        heat.heat_of_battle(ctx, unit, was_broken=unit.broken,
                            mark_note=f"Original {original}: Heat of Battle (A15): the check passes; the players "
                                      "resolve the HoB table (game option heat_of_battle: mark, "
                                      "data/asl/heat_of_battle.yaml)")
        return CheckResult(True, result.final, result.morale, result.roll)
    passed = result.passed
    ctx.trail.put("check", f"Final DR {result.final} vs {word} {result.morale}",
                  "passes" if passed else "fails", total=result.final, rule=rule, unit=unit.id)
    if original == data.check.casualty_original and kind in data.check.casualty_kinds:
        _original_12(ctx, unit, losses)
        return CheckResult(False, result.final, result.morale, result.roll)
    if passed:
        if after_ift and result.final == result.morale and kind in MC_KINDS and not unit.broken:
            ctx.trail.note("Final DR equals morale after an IFT attack: pinned", rule=RULE_PIN, unit=unit.id)
            pin(ctx, unit, rule=RULE_PIN)
        return result
    if kind in TASK_KINDS:
        pin(ctx, unit, rule=rule)
    else:
        _failed_mc(ctx, unit, result, losses)
    return result


def _original_12(ctx: AslContext, unit: AslUnit, losses: list[LeaderLoss]) -> None:
    """Original 12 on an MC: Casualty Reduction and broken; eliminated if already broken."""
    ctx.trail.note("Original 12: Casualty Reduction and broken (eliminated if already broken)",
                   rule=RULE_ORIGINAL_12, unit=unit.id)
    if unit.broken:
        eliminate(ctx, unit, rule=RULE_ORIGINAL_12, why="Original 12 while broken")
        _lost(unit, losses, eliminated=True)
        return
    survivor = casualty_reduction(ctx, unit, rule=RULE_ORIGINAL_12)
    if survivor is None:
        _lost(unit, losses, eliminated=True)
        return
    break_unit(ctx, survivor, rule=RULE_ORIGINAL_12)
    _lost(survivor, losses, eliminated=False)


def _failed_mc(ctx: AslContext, unit: AslUnit, result: CheckResult, losses: list[LeaderLoss]) -> None:
    if unit.broken:  # a broken unit failing an MC suffers Casualty Reduction
        survivor = casualty_reduction(ctx, unit, rule="A10.3")
        if survivor is None:
            _lost(unit, losses, eliminated=True)
        return
    wounds = rules().wounds
    if unit.kind in wounds.instead_of_breaking and not unit.wounded and wounds_refereed(ctx.game):
        wound(ctx, unit, why="a failed MC (an unwounded hero is wounded instead of broken)")
        return
    for now in _elr(ctx, unit, result):
        break_unit(ctx, now, rule="A10.3")
    _lost(unit, losses, eliminated=False)


def _elr(ctx: AslContext, unit: AslUnit, result: CheckResult) -> list[AslUnit]:
    """Failing an MC by more than the ELR replaces a Good Order squad or half-squad (A19.13)."""
    data = rules().elr
    if unit.kind not in ("squad", "half-squad"):
        return [unit]  # crews, leaders and heroes are exempt
    elr = data.underlined_morale_elr if unit.morale_underlined else ctx.game.sides[unit.side].elr
    if elr is None:
        return [unit]
    margin = result.final - result.morale
    if margin <= elr:
        ctx.trail.note(f"failed by {margin}, not more than ELR {elr}: no replacement", rule=data.rule, unit=unit.id)
        return [unit]
    ctx.trail.note(f"failed by {margin}, more than ELR {elr}" + (" (underlined morale)" if unit.morale_underlined
                                                               else ""), rule=data.rule, unit=unit.id)
    return elr_replacement(ctx, unit, rule=data.rule)


def _lost(unit: AslUnit, losses: list[LeaderLoss], *, eliminated: bool) -> None:
    if unit.kind == "leader":
        losses.append(LeaderLoss(unit.id, eliminated))


# --------------------------------------------------------------------------- Leader Loss

def resolve_leader_losses(ctx: AslContext, losses: list[LeaderLoss]) -> None:
    """Each leader lost: LLMC (eliminated; his modifier reversed) or LLTC (broken) for the other
    units of his side in his Location with lower morale (A10.2). A leader counts once, as
    eliminated if he was eliminated at any point."""
    done: set[str] = set()
    while losses:
        loss = losses.pop(0)
        if loss.leader in done:
            continue
        done.add(loss.leader)
        eliminated = loss.eliminated or any(x.eliminated for x in losses if x.leader == loss.leader)
        _leader_loss(ctx, cast(AslUnits, ctx.game.units)[loss.leader], eliminated, losses)


def _leader_loss(ctx: AslContext, leader: AslUnit, eliminated: bool, losses: list[LeaderLoss]) -> None:
    kind = "LLMC" if eliminated else "LLTC"
    takers = [u for u in ctx.game.units_at(leader.location) if isinstance(u, ASL_UNITS) and not u.is_sw
              and u.side == leader.side and u.id != leader.id and u.morale < leader.morale
              and (eliminated or not u.broken)] if leader.location else []
    if not takers:
        return
    ctx.trail.section(f"Leader loss: {leader.label} {'eliminated' if eliminated else 'broken'} -> {kind} "
                      f"for units of lower morale", rule=RULE_LEADER_LOSS, unit=leader.id)
    n = -leader.leadership if eliminated else 0
    units = cast(AslUnits, ctx.game.units)
    for unit in leaders_first(takers):
        unit = units[unit.id]
        if unit.eliminated:
            continue
        check(ctx, unit, kind=kind, n=n, rule=RULE_LEADER_LOSS, roll=None,
              leader=_leader_for(ctx, unit, None), after_ift=False, losses=losses)


# --------------------------------------------------------------------------- IFT results

def apply_ift_result(ctx: AslContext, result: str, targets: list[AslUnit], *, rule: str = "A7.3") -> None:
    """What an IFT result does to the units attacked (A7.3): SWs are not targets."""
    match = IFT_RESULT.match(result)
    if match is None:
        raise InvalidOrder(f"'{result}' is not an IFT result", field="result")
    units = [t for t in targets if not t.is_sw and not t.eliminated]
    if result == "-" or not units:
        ctx.trail.note("no effect", rule=rule)
        return
    losses: list[LeaderLoss] = []
    if result != "PTC":
        for unit in units:
            if unit.broken:  # a broken unit attacked with at least an NMC
                give_dm(ctx, unit, rule="A10.62")
    if match.group(4):
        _kia(ctx, int(match.group(4)), units, losses)
    elif match.group(3):
        _k(ctx, int(match.group(3)), units, rule, losses)
    elif result == "PTC":
        _checks(ctx, "PTC", 0, [u for u in units if not u.broken], RULE_PIN, losses)
    else:
        n = int(match.group(2) or 0)
        _checks(ctx, "MC" if n else "NMC", n, units, rule, losses)
    resolve_leader_losses(ctx, losses)


def _kia(ctx: AslContext, n: int, units: list[AslUnit], losses: list[LeaderLoss]) -> None:
    """nKIA (A7.301): n units by Random Selection (ties included) eliminated; the others break."""
    chosen = {u.id for u in random_selection(ctx, units, n, purpose=f"{n}KIA Random Selection")}
    for unit in units:
        if unit.id in chosen:
            eliminate(ctx, unit, rule="A7.301", why=f"{n}KIA")
            _lost(unit, losses, eliminated=True)
        elif not unit.broken:
            break_unit(ctx, unit, rule="A7.301")
            _lost(unit, losses, eliminated=False)


def _k(ctx: AslContext, n: int, units: list[AslUnit], rule: str, losses: list[LeaderLoss]) -> None:
    """K/n (A7.302): Casualty Reduction by Random Selection, then an nMC for all, the reduced too."""
    for unit in random_selection(ctx, units, 1, purpose=f"K/{n} Random Selection", rule="A7.302"):
        if casualty_reduction(ctx, unit, rule="A7.302") is None:
            _lost(unit, losses, eliminated=True)
    held = cast(AslUnits, ctx.game.units)
    survivors = [held[u.id] for u in units if not held[u.id].eliminated]
    _checks(ctx, "MC", n, survivors, rule, losses)


def _checks(ctx: AslContext, kind: str, n: int, units: list[AslUnit], rule: str, losses: list[LeaderLoss]) -> None:
    """Every unit checks, leaders first; a leader gives his DRM to the others only once he has
    passed his own check (one who broke gives none: he causes a Leader Loss check instead)."""
    attacked = {u.id for u in units}
    checking = leaders_first(units)
    order = [u.id for u in checking]  # the leaders-first order, taken once (the sort keys never change)
    held = cast(AslUnits, ctx.game.units)
    for unit in checking:
        unit = held[unit.id]
        if unit.eliminated:
            continue
        helpers = [u for u in good_order_leaders(ctx, unit)
                   if u.id not in attacked or order.index(u.id) < order.index(unit.id)]
        leader = (f"leadership of {helpers[0].label}", helpers[0].leadership) if helpers else None
        check(ctx, unit, kind=kind, n=n, rule=rule, roll=None, leader=leader, after_ift=True, losses=losses)


# --------------------------------------------------------------------------- /morale

def resolve_morale(game: Game, order: AslMorale, roller: Roller) -> Outcome:
    ctx = AslContext(game, roller)
    unit = ctx.unit(order.unit)
    _validate(unit, order)
    kind = order.check
    rule = CHECK_RULES[kind]
    leader = _leader_for(ctx, unit, None)
    losses: list[LeaderLoss] = []
    result = check(ctx, unit, kind=kind, n=order.n, rule=rule, roll=None, leader=leader, after_ift=False,
                   losses=losses, drm=order.drm, drm_reason=order.drm_reason)
    resolve_leader_losses(ctx, losses)
    verdict = "passes" if result.passed else "fails"
    headline = (f"{unit.label}: {title(kind, order.n)}, Final DR {result.final} vs {result.morale} -> {verdict}")
    return Outcome(ruleset="asl", action="morale", headline=headline, actor_side=unit.side,
                   trail=ctx.trail.freeze(), effects=ctx.effects())


def _validate(unit: AslUnit, order: AslMorale) -> None:
    if unit.is_sw:
        raise InvalidOrder(f"{unit.label} is a support weapon: only personnel take checks", field="unit")
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated")
    if order.n and order.check not in ("MC", "LLMC"):
        raise InvalidOrder(f"'n' is the +n of an MC or LLMC; a {order.check} has none (use 'drm')", field="n")
    if unit.broken and order.check in TASK_KINDS:
        raise IllegalOrder(f"{unit.label} is broken: a broken unit takes no {CHECK_NAMES[order.check]} "
                           f"({CHECK_RULES[order.check]})")
