"""What one ASL resolution carries around: the working game, the dice, the trail, the effects."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dice import Roller
from ...game import Game
from ...outcome import UnitEffect
from ...trail import Trail
from .models import AslUnit


def status_text(unit: AslUnit) -> str:
    """A unit's state in words, for the before/after columns of the effects."""
    if unit.eliminated:
        return "eliminated"
    parts: list[str] = []
    if unit.is_sw:
        parts.append("malfunctioned" if unit.malfunctioned else "working")
    else:
        parts.append("broken" if unit.broken else "Good Order")
    for flag, word in ((unit.pinned, "pinned"), (unit.dm, "DM"), (unit.cx, "CX")):
        if flag:
            parts.append(word)
    if unit.fire_marker:
        parts.append(f"{unit.fire_marker.title()} Fire")
    return ", ".join(parts)


@dataclass
class AslContext:
    game: Game
    roller: Roller
    trail: Trail = field(default_factory=Trail)
    # unit id -> (status before, list of effects); in the order units were first touched
    _touched: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    @property
    def full(self) -> bool:
        """Full ASL rather than the Starter Kit (Heat of Battle etc. are full only)."""
        return (self.game.variant or "full") == "full"

    def unit(self, unit_id: str, *, field: str = "unit") -> AslUnit:
        return self.game.unit(unit_id, field=field)  # type: ignore[return-value]

    def touch(self, unit: AslUnit) -> None:
        """Remember a unit's state before the first change this action makes to it."""
        if unit.id not in self._touched:
            self._touched[unit.id] = (status_text(unit), [])

    def effect(self, unit: AslUnit, what: str, *, rule: str | None = None) -> None:
        """Record that ``what`` happened to ``unit`` (call ``touch`` before changing it)."""
        self.touch(unit)
        self._touched[unit.id][1].append(what)
        self.trail.add("effect", f"{unit.label}: {what}", rule=rule, unit=unit.id)

    def effects(self) -> tuple[UnitEffect, ...]:
        out = []
        for unit_id, (before, what) in self._touched.items():
            unit = self.game.units.get(unit_id)
            after = status_text(unit) if unit is not None else "removed"
            name = unit.name if unit is not None else unit_id
            side = unit.side if unit is not None else None
            out.append(UnitEffect(unit=unit_id, name=name, side=side, before=before, after=after,
                                  effects=tuple(what)))
        return tuple(out)
