"""The audit trail: every number the referee applied, in order, with its reason and rule."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

StepKind = Literal[
    "section",  # a heading: "Fire group", "Morale check: 4-6-7 A"
    "base",  # a starting value: a unit's FP, a morale rating
    "multiplier",  # x2, x1/2
    "modifier",  # +1, -2 (DRM, drm, FP modifier, to-hit modifier)
    "dice",  # the dice as rolled
    "table",  # a table cell read
    "check",  # a comparison: Final DR 8 vs morale 7: fails
    "effect",  # what happened to a unit or a weapon
    "marker",  # a marker placed or removed
    "note",  # anything else the players should read
]

Number = int | float


class Step(BaseModel):
    """One line of the audit trail."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: StepKind
    label: str
    value: Number | str | None = None
    total: Number | None = None
    rule: str | None = None
    unit: str | None = None


class Trail:
    """Builder for the ordered list of steps; the core appends, the Outcome freezes it."""

    def __init__(self) -> None:
        self.steps: list[Step] = []

    def add(
        self,
        kind: StepKind,
        label: str,
        value: Number | str | None = None,
        *,
        total: Number | None = None,
        rule: str | None = None,
        unit: str | None = None,
    ) -> Step:
        step = Step(kind=kind, label=label, value=value, total=total, rule=rule, unit=unit)
        self.steps.append(step)
        return step

    def section(self, label: str, *, rule: str | None = None, unit: str | None = None) -> Step:
        return self.add("section", label, rule=rule, unit=unit)

    def note(self, label: str, *, rule: str | None = None, unit: str | None = None) -> Step:
        return self.add("note", label, rule=rule, unit=unit)

    def freeze(self) -> tuple[Step, ...]:
        return tuple(self.steps)
