"""What one NHiS resolution carries around: the working game, the dice, the trail, the effects."""

from __future__ import annotations

from dataclasses import dataclass

from ...context import ResolutionContext
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
class NhisContext(ResolutionContext):
    status_text = staticmethod(status_text)

    def unit(self, unit_id: str, *, field: str = "unit") -> NhisUnit:
        return self.game.unit(unit_id, field=field)  # type: ignore[return-value]
