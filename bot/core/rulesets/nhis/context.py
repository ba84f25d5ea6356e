"""What one NHiS resolution carries around: the working game, the dice, the trail, the effects."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dice import Roller
from ...game import Game
from ...outcome import UnitEffect
from ...trail import Trail
from .models import NhisUnit


def status_text(unit: NhisUnit) -> str:
    """A unit's state in words, for the before/after columns of the effects."""
    if unit.eliminated:
        return "eliminated"
    parts = ["Shaken" if unit.shaken else "Prepared"]
    if unit.reduced:
        parts.append("reduced")
    if unit.marker:
        parts.append(f"{unit.marker.title()} marker")
    if unit.moving:
        parts.append("crawling" if unit.crawling else "moving")
    if unit.banzai:
        parts.append("Banzai")
    return ", ".join(parts)


@dataclass
class NhisContext:
    game: Game
    roller: Roller
    trail: Trail = field(default_factory=Trail)
    # unit id -> (status before, list of effects); in the order units were first touched
    _touched: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    def unit(self, unit_id: str, *, field: str = "unit") -> NhisUnit:
        return self.game.unit(unit_id, field=field)  # type: ignore[return-value]

    def touch(self, unit: NhisUnit) -> None:
        """Remember a unit's state before the first change this action makes to it."""
        if unit.id not in self._touched:
            self._touched[unit.id] = (status_text(unit), [])

    def effect(self, unit: NhisUnit, what: str, *, rule: str | None = None) -> None:
        """Record that ``what`` happened to ``unit`` (call ``touch`` before changing it)."""
        self.touch(unit)
        self._touched[unit.id][1].append(what)
        self.trail.add("effect", f"{unit.label}: {what}", rule=rule, unit=unit.id)

    def effects(self) -> tuple[UnitEffect, ...]:
        out = []
        for unit_id, (before, what) in self._touched.items():
            unit = self.game.units[unit_id]
            out.append(UnitEffect(unit=unit_id, name=unit.name, side=unit.side, before=before,
                                  after=status_text(unit), effects=tuple(what)))
        return tuple(out)
