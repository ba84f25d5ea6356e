"""Rally (rule 8.2, assumed from the digest; see data/nhis/rules.yaml): a Shaken unit rallies in
the Rally Phase on 1d6 <= its morale plus one Prepared leader's leadership."""

from __future__ import annotations

from ...dice import Roller
from ...errors import IllegalOrder, RulesError
from ...game import Game
from ...outcome import Outcome
from ...required import RequiredRoll
from . import tables
from .context import NhisContext
from .models import NhisUnit
from .morale import target_number
from .orders import NhisRally


def _refuse_unless_allowed(game: Game, unit: NhisUnit) -> None:
    rally = tables.rules().rally
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated")
    if not unit.shaken:
        raise IllegalOrder(f"{unit.label} is not Shaken: there is nothing to rally ({rally.rule})")
    if unit.rally_tried:
        raise IllegalOrder(f"{unit.label} has already tried to rally in this Rally Phase ({rally.rule})")


def may_rally_now(game: Game, side: int) -> list[tuple[str, str]]:
    """The side's Shaken units that have not tried to rally in this Rally Phase."""
    found = []
    for unit in game.units.values():
        if not isinstance(unit, NhisUnit) or unit.side != side:
            continue
        try:
            _refuse_unless_allowed(game, unit)
        except RulesError:
            continue
        found.append((unit.id, unit.label))
    return found


# the Rally Phase's attempts, offered as buttons to the side rallying (bot/core/required.py)
RALLY_ATTEMPTS = RequiredRoll(action="rally", command="rally", option="unit", verb="Rally",
                              rule=tables.rules().rally.rule, due=may_rally_now)


def resolve_rally(game: Game, order: NhisRally, roller: Roller) -> Outcome:
    rule = tables.rules().rally.rule
    ctx = NhisContext(game, roller)
    unit = ctx.unit(order.unit)
    _refuse_unless_allowed(game, unit)
    ctx.trail.section(f"Rally: {unit.label}", rule=rule, unit=unit.id)
    needed = target_number(ctx, unit, rule)
    roll = ctx.roller.d6(f"rally {unit.label}").total
    ctx.trail.put("dice", "1d6", roll, total=roll, rule=rule, unit=unit.id)
    passed = roll <= needed
    ctx.trail.put("check", f"{roll} vs {needed}: {'rallies' if passed else 'stays Shaken'}",
                  "pass" if passed else "fail", rule=rule, unit=unit.id)
    ctx.touch(unit)
    unit.rally_tried = True
    if passed:
        unit.shaken = False
    ctx.effect(unit, "rallies: Prepared" if passed else "fails to rally: stays Shaken", rule=rule)
    return Outcome(ruleset="nhis", action="rally", actor_side=unit.side,
                   headline=f"{unit.label} rally: 1d6 {roll} vs {needed} -> "
                            f"{'rallies' if passed else 'stays Shaken'}",
                   trail=ctx.trail.freeze(), effects=ctx.effects())
