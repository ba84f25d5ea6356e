"""The sides an order acts for, read from the order model's own declarations.

An order acts with the units (weapons, companies, a side) its fields declare ``Refers(...,
acting=True)`` (bot/core/orders.py): no field name is listed here, so a new field an order acts
with cannot be missed. The bot's permission check asks it (may this player give the order?), and
the sequence of play asks it (may that side give this order in this step?).
"""

from __future__ import annotations

from typing import Any

from .game import Game
from .orders import acting_refs


def _ids(value: Any) -> list[str]:
    """The ids an order field holds: one, or a list (anything else names no unit)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def acting_sides(game: Game, model: Any, order: Any) -> dict[int, str]:
    """The sides ``order`` (a dict or a model of order model ``model``) acts for, each with what in
    the order made it so (a unit's label). Unknown ids are skipped: resolving the order refuses
    them with the list of known ones."""
    sides: dict[int, str] = {}
    read = order.get if isinstance(order, dict) else (lambda name: getattr(order, name, None))
    for field, ref in acting_refs(model) if model is not None else ():
        value = read(field)
        if ref.to == "side":
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(game.sides):
                sides.setdefault(value, ref.label or f"side {value + 1}")
            continue
        for name in _ids(value):
            if ref.to == "company":  # the side of the company's units
                for unit in game.units.values():
                    if unit.company_name.casefold() == name.casefold():
                        sides.setdefault(unit.side, f"company {name}")
                continue
            unit = game.find_unit(name)
            if unit is not None and ref.to == "weapon":
                unit = game.find_unit(unit.holder_id or "")  # acts through its holder
            if unit is not None:  # an unpossessed weapon: whoever recovers it acts through their unit
                sides.setdefault(unit.side, unit.label)
    return sides
