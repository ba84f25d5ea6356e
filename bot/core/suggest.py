"""What autocomplete offers, computed from the game alone (the cogs only turn it into Discord's
choices). Each answer is a list of (label, value): the label players read in the list, the value
that goes into the option."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the game model loads the rulesets, which import this module
    from .game import Game


def unit_label(game: Game, unit: Any) -> str:
    """"A1 (4-6-7, Germans, B3)": a unit as a suggestion reads."""
    return f"{unit.id} ({unit.name}, {game.side_name(unit.side)}, {unit.location or 'off board'})"


def first_named(game: Game, named: dict[str, list[str]], option: str | None) -> Any:
    """The unit named first in another option of the command (the firer), or None."""
    ids = named.get(option or "", [])
    return game.find_unit(ids[0]) if ids else None


def common_suggestions(kind: str, game: Game, named: dict[str, list[str]], *,
                       of: str | None = None) -> list[tuple[str, str]]:
    """The suggestions every ruleset has: its units, its Locations, its companies (the units'
    ``company``), and the enemies of the unit named in option ``of``."""
    if kind == "unit":
        return [(unit_label(game, u), u.id) for u in game.units.values() if not u.eliminated]
    if kind == "enemy_unit":
        firer = first_named(game, named, of)
        return [(unit_label(game, u), u.id) for u in game.units.values()
                if not u.eliminated and (firer is None or u.side != firer.side)]
    if kind == "location":
        return [(f"{loc.id} ({loc.terrain})", loc.id) for loc in game.locations.values()]
    if kind == "company":
        companies: dict[str, list[Any]] = {}
        for unit in game.units.values():
            name = unit.company_name
            if name and not unit.eliminated:
                companies.setdefault(name, []).append(unit)
        return [(f"{name} ({game.side_name(units[0].side)}, {len(units)} stand{'s' if len(units) != 1 else ''})",
                 name) for name, units in sorted(companies.items())]
    return []
