"""What one resolution carries around, whatever the ruleset: the working game, the dice, the
trail, and the effects on each unit (its state before the first change and what happened)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .dice import Roller
from .outcome import Outcome, UnitEffect
from .trail import Trail

if TYPE_CHECKING:  # annotations only: the game model loads the rulesets, which import this module
    from .game import Game


def plain_strs(values: tuple[Any, ...]) -> bool:
    """Every item a plain ``str`` (what a ``tuple[str, ...]`` field keeps as it is: a UnitEffect's
    effects that may key its cache)."""
    for value in values:
        if type(value) is not str:
            return False
    return True


@dataclass(slots=True)
class ResolutionContext:
    game: Game
    roller: Roller
    trail: Trail = field(default_factory=Trail)
    # unit id -> (status before, list of effects); in the order units were first touched
    _touched: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    # the ruleset's "state in words" of a unit, for the before/after columns of the effects
    status_text: ClassVar[Callable[[Any], str]]

    def touch(self, unit: Any) -> None:
        """Remember a unit's state before the first change this action makes to it."""
        if unit.id not in self._touched:
            self._touched[unit.id] = (type(self).status_text(unit), [])

    def put_unit(self, unit: Any) -> Any:
        """Put a new or replacement unit model into the game; returns the object the game now holds
        for it, which the ruleset goes on changing (inside a working game, bot/core/working.py, a
        working object made from the model; in a plain game the model itself)."""
        self.game.units[unit.id] = unit
        return self.game.units[unit.id]

    def effect(self, unit: Any, what: str, *, rule: str | None = None) -> None:
        """Record that ``what`` happened to ``unit`` (call ``touch`` before changing it)."""
        touched = self._touched.get(unit.id)
        if touched is None:  # touch(unit), inlined: every effect of a resolution comes here
            touched = self._touched[unit.id] = (type(self).status_text(unit), [])
        touched[1].append(what)
        self.trail.put("effect", f"{unit.label}: {what}", rule=rule, unit=unit.id)

    def outcome_of(self, action: str, headline: str, actor_side: int | None) -> Outcome:
        """The action's Outcome: its trail and the effects on each unit touched."""
        return Outcome(ruleset=self.game.ruleset, action=action, headline=headline, actor_side=actor_side,
                       trail=self.trail.freeze(), effects=self.effects())

    def effects(self) -> tuple[UnitEffect, ...]:
        out = []
        append = out.append
        units = self.game.units
        status_text = type(self).status_text
        found = _EFFECTS.get
        for unit_id, (before, what) in self._touched.items():
            unit = units.get(unit_id)
            if unit is None:  # removed by the action itself
                append(_unit_effect(unit_id, unit_id, None, before, "removed", tuple(what)))
                continue
            # _unit_effect's lookup first, inlined (one call less per unit touched): a key found was
            # built from values that passed its exactness check
            key = (unit_id, unit.name, unit.side, before, status_text(unit), tuple(what))
            try:
                effect = found(key)
            except TypeError:  # something unhashable: _unit_effect hands it to validation
                effect = None
            append(effect if effect is not None else _unit_effect(*key))
        return tuple(out)


# UnitEffects already built, by their values (all plain str and int: equal keys, equal values of the
# same types); bounded like the trail's Steps (trail.py): emptied when full
EFFECT_CACHE_SIZE = 20_000
_EFFECTS: dict[tuple[object, ...], UnitEffect] = {}


def _unit_effect(unit: str, name: str, side: int | None, before: str, after: str,
                 effects: tuple[str, ...]) -> UnitEffect:
    """``UnitEffect(...)``, validated once when validation keeps every value as it is: a frozen
    UnitEffect is a value, so equal values give the same object. It is looked up
    before the exactness check (only what passed it is kept; an equal key holds values validation
    turns into the same UnitEffect: False becomes side 0, a str subclass its plain str)."""
    key = (unit, name, side, before, after, effects)
    try:
        found = _EFFECTS.get(key)
    except TypeError:  # something unhashable: validation refuses it
        found, key = None, None
    if found is not None:
        return found
    if (key is not None and type(unit) is str and type(name) is str and (side is None or type(side) is int)
            and type(before) is str and type(after) is str and type(effects) is tuple and plain_strs(effects)):
        found = UnitEffect(unit=unit, name=name, side=side, before=before, after=after, effects=effects)
        if len(_EFFECTS) >= EFFECT_CACHE_SIZE:
            _EFFECTS.clear()
        _EFFECTS[key] = found
        return found
    return UnitEffect(unit=unit, name=name, side=side, before=before, after=after, effects=effects)
