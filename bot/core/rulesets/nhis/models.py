"""No Honor in Surrender counters and their state (seed 001)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..base import Condition, UnitBase

NhisKind = Literal["squad", "leader", "weapon_team", "tank"]
MoveMarker = Literal["move", "fire", "charge"]
INFANTRY: frozenset[str] = frozenset({"squad", "leader", "weapon_team"})  # seed 001's "infantry"


class NhisUnit(UnitBase):
    system: Literal["nhis"] = "nhis"
    kind: NhisKind
    nationality: str = ""
    fp: int = 0
    range: int = 0
    morale: int = 0
    leadership: int = 0  # leaders only
    shakeable: bool = True  # False: Unshakable (rule 8.2)
    # the reduced side's printed numbers (None: same as the full side)
    reduced_fp: int | None = None
    reduced_range: int | None = None
    reduced_morale: int | None = None
    reduced_leadership: int | None = None

    shaken: bool = False
    reduced: bool = False
    marker: MoveMarker | None = None  # Move / Fire / Charge marker
    moving: bool = False
    crawling: bool = False
    banzai: bool = False  # Banzai Charging
    rally_tried: bool = False  # has tried to rally in this Rally Phase
    # the impulse it last moved and fired in (a refereed sequence of play; absent from older states)
    moved_impulse: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    fired_impulse: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    # the impulse whose activation it belongs to (activation.py; absent from older states)
    activated_impulse: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)

    @property
    def current_fp(self) -> int:
        return self.reduced_fp if self.reduced and self.reduced_fp is not None else self.fp

    @property
    def current_range(self) -> int:
        return self.reduced_range if self.reduced and self.reduced_range is not None else self.range

    @property
    def current_morale(self) -> int:
        if self.reduced and self.reduced_morale is not None:
            return self.reduced_morale
        return self.morale

    @property
    def current_leadership(self) -> int:
        if self.reduced and self.reduced_leadership is not None:
            return self.reduced_leadership
        return self.leadership

    @property
    def infantry(self) -> bool:
        return self.kind in INFANTRY

    @property
    def prepared(self) -> bool:
        """Not Shaken and still in play: a leader in this state lends his leadership."""
        return not self.shaken and not self.eliminated

    @property
    def counter_values(self) -> str | None:
        """A leader's or hero's morale and leadership ("8+1"), else FP, range and morale."""
        if self.kind in ("leader", "hero") and self.morale:
            return f"{self.current_morale}{self.current_leadership:+d}"
        if not any((self.current_fp, self.current_range, self.current_morale)):
            return None
        return f"{self.current_fp}-{self.current_range}-{self.current_morale}"

    @property
    def condition(self) -> Condition:
        return Condition(broken=self.shaken, reduced=self.reduced)
