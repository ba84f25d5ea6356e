"""What every ruleset's move order shares: the units named (a unit or a stack), their side, the
Location they enter (created with the ruleset's default terrain when new), the weapons they carry
going with them. Each ruleset adds who may move when, where it may not go, and the markers the
move leaves (``asl/movement.py``, ``nhis/movement.py``, ``cd/movement.py``)."""

from __future__ import annotations

from typing import Any

from .context import ResolutionContext
from .errors import IllegalOrder, InvalidOrder
from .ruleset import Ruleset


def movers(ctx: ResolutionContext, ids: list[str], *, field: str = "units") -> list[Any]:
    """The units an order moves, checked to be one side's, in play, and not carried weapons."""
    units = []
    for unit_id in ids:
        unit = ctx.game.unit(unit_id, field=field)
        if unit.id in {u.id for u in units}:
            raise InvalidOrder(f"{unit.label} is named twice in '{field}'", field=field)
        if unit.eliminated:
            raise IllegalOrder(f"{unit.label} is eliminated and cannot move")
        if unit.location is None:
            raise IllegalOrder(f"{unit.label} is off board: the game master brings it on with /unit move")
        if unit.holder_id:
            raise IllegalOrder(f"{unit.label} is carried by {unit.holder_id}: a weapon moves with the unit holding it")
        units.append(unit)
    if len({u.side for u in units}) > 1:
        raise IllegalOrder("the units named belong to both sides: one side moves at a time")
    return units


def enemies_in(ctx: ResolutionContext, location: str, side: int) -> list[Any]:
    return [u for u in ctx.game.units_at(location) if u.side != side]


def move_to(ctx: ResolutionContext, ruleset: Ruleset, units: list[Any], to: str, what: str, *,
            rule: str | None) -> str:
    """Put the units (and the weapons they hold) in ``to``; one effect line each. Returns the
    Location's id as the game spells it."""
    from .setup import ensure_location  # here, not above: setup imports the game model, which loads
    # the rulesets, whose movement modules import this one

    where = ensure_location(ctx.game, ruleset, to, ctx.trail) or to
    for unit in units:
        ctx.touch(unit)
        before = unit.location
        unit.location = where
        for carried in ctx.game.units.values():
            if carried.holder_id == unit.id:
                carried.location = where
        ctx.effect(unit, f"{what} {before} -> {where}", rule=rule)
    return where
