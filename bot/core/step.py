"""A line of the audit trail: the pydantic model (bot/core/trail.py builds the lines and imports it back)."""

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

    # no NaN nor infinity: a trail line is a number a player reads, and the log's canonical JSON
    # (bot/record/chain.py) can then take an Outcome's dump as it is
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    kind: StepKind
    label: str
    value: Number | str | None = None
    total: Number | None = None
    rule: str | None = None
    unit: str | None = None
