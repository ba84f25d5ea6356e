"""What one ASL resolution carries around: the working game, the dice, the trail, the effects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from ...context import ResolutionContext
from .models import AslUnit, FireMarker

# "Prep Fire", "First Fire", "Final Fire": each marker's words, spelled once
_FIRE_MARKER_WORDS = {marker: f"{marker.title()} Fire" for marker in get_args(FireMarker)}


def status_text(unit: AslUnit) -> str:
    """A unit's state in words, for the before/after columns of the effects."""
    if unit.eliminated:
        return "eliminated"
    if unit.kind == "sw":  # unit.is_sw
        first = "malfunctioned" if unit.malfunctioned else "working"
    else:
        first = "broken" if unit.broken else "Good Order"
    # taken once per unit before and after every action: most units carry no marker at all
    if not (unit.pinned or unit.dm or unit.cx or unit.berserk or unit.heroic or unit.wounded or unit.fire_marker
            or unit.in_melee):
        return first
    parts = [first]
    if unit.pinned:
        parts.append("pinned")
    if unit.dm:
        parts.append("DM")
    if unit.cx:
        parts.append("CX")
    if unit.berserk:
        parts.append("berserk")
    if unit.heroic:
        parts.append("heroic")
    if unit.wounded:
        parts.append("wounded")
    if unit.in_melee:
        parts.append("Melee")
    if unit.fire_marker:
        marker = unit.fire_marker
        parts.append(_FIRE_MARKER_WORDS.get(marker) or f"{marker.title()} Fire")
    return ", ".join(parts)


@dataclass(slots=True)
class AslContext(ResolutionContext):
    status_text = staticmethod(status_text)

    @property
    def full(self) -> bool:
        """Full ASL rather than the Starter Kit (Heat of Battle etc. are full only)."""
        return (self.game.variant or "full") == "full"

    def unit(self, unit_id: str, *, field: str = "unit") -> AslUnit:
        return self.game.unit(unit_id, field=field)  # type: ignore[return-value]
