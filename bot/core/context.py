"""What one resolution carries around, whatever the ruleset: the working game, the dice, the
trail, and the effects on each unit (its state before the first change and what happened)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .dice import Roller
from .game import Game
from .outcome import UnitEffect
from .trail import Trail


@dataclass
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

    def effect(self, unit: Any, what: str, *, rule: str | None = None) -> None:
        """Record that ``what`` happened to ``unit`` (call ``touch`` before changing it)."""
        self.touch(unit)
        self._touched[unit.id][1].append(what)
        self.trail.add("effect", f"{unit.label}: {what}", rule=rule, unit=unit.id)

    def effects(self) -> tuple[UnitEffect, ...]:
        out = []
        for unit_id, (before, what) in self._touched.items():
            unit = self.game.units.get(unit_id)
            if unit is None:  # removed by the action itself
                out.append(UnitEffect(unit=unit_id, name=unit_id, side=None, before=before, after="removed",
                                      effects=tuple(what)))
                continue
            out.append(UnitEffect(unit=unit_id, name=unit.name, side=unit.side, before=before,
                                  after=type(self).status_text(unit), effects=tuple(what)))
        return tuple(out)
