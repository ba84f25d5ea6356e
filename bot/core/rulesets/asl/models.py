"""ASL counters and their state (A1, A4, A7-A10)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...orders import Refers
from ...working import work_class
from ..base import Condition, UnitBase

AslKind = Literal["squad", "half-squad", "crew", "leader", "hero", "sw"]
Quality = Literal["elite", "first_line", "second_line", "green", "conscript"]
FireMarker = Literal["prep", "first", "final"]
LATE_FIELDS = ("berserk", "heroic", "wounded")  # Heat of Battle (A15), wounds (A17): omitted from a saved state while False


def _unset(value: bool) -> bool:
    return value is False


class AslUnit(UnitBase):
    holder_field = "owner"  # a support weapon is where its possessor is (A9.1)

    system: Literal["asl"] = "asl"
    kind: AslKind
    nationality: str = ""

    # Multi-Man and Single-Man Counters (A1.1-A1.2)
    fp: int = 0
    range: int = 0
    morale: int = 0
    broken_morale: int | None = None  # None: same as morale (leaders, some units)
    quality: Quality | None = None  # elite/first line/second line/green/conscript (A1.25)
    fp_underlined: bool = False  # Assault Fire capable (A7.36)
    morale_underlined: bool = False  # ELR 5 and half-squad on ELR failure (A19.13)
    leadership: int = 0  # leaders: the DRM they give (negative is good, A10.7)
    reduces_to: str | None = None  # counter type after Casualty Reduction (squad -> HS)
    replaced_by: str | None = None  # counter type after ELR failure (A19.13)

    # Support weapons (A9): MGs, DC, FT ...
    sw_type: str | None = None  # "LMG", "MMG", "HMG", "DC", "FT"
    rof: int = 0
    breakdown: int | None = None  # B#; None = B12 for MGs (A.11)
    removal: int | None = None  # X#
    portage: int = 0
    # id of the unit possessing this SW: it must be in the game when given (bot/core/setup.py given_order)
    owner: Annotated[str | None, Refers("unit", label="the unit holding it")] = None
    captured: bool = False
    malfunctioned: bool = False
    recovered_phase: str | None = None  # "turn:phase" it was recovered in (no transfer then)

    # State and markers
    broken: bool = False
    pinned: bool = False
    dm: bool = False  # Desperation Morale (A10.62)
    cx: bool = False  # Counter-eXhausted (A4.51)
    fire_marker: FireMarker | None = None
    in_melee: bool = False
    moving: bool = False  # expended MF this MPh (target of DFF/SFF/FPF)
    assault_moving: bool = False
    rallied_turn: int | None = None  # the player turn it last attempted to rally
    rph_action_turn: int | None = None  # the player turn it spent its sole RPh action (transfer, recovery)
    recovery_attempts: list[str] = Field(default_factory=list)  # "turn:side:SW" tried this MPh (A4.44)
    led_group: str | None = None  # the fire group a leader directed this phase
    # Fields added after games were first logged are written only when set, so a saved game state
    # (and the hash chained to it, bot/record/chain.py) stays what it was before they existed. A
    # per-field predicate, as Game's own late fields: pydantic's serializer stays in Rust (a wrap
    # serializer called back into Python for every unit: 3.7x slower dumps, issue 14).
    berserk: bool = Field(default=False, exclude_if=_unset)  # Heat of Battle result (A15.4): Good Order, never cowers
    heroic: bool = Field(default=False, exclude_if=_unset)  # a leader made heroic by Heat of Battle (A15.21)
    # a single-man counter wounded (A17). A wound taken in play lowers the morale and leadership above
    # itself (effects.wound); a counter set up or edited wounded keeps the numbers it is given
    wounded: bool = Field(default=False, exclude_if=_unset)

    @property
    def is_leader(self) -> bool:
        return self.kind in ("leader", "hero")

    @property
    def is_sw(self) -> bool:
        return self.kind == "sw"

    @property
    def current_morale(self) -> int:
        if self.broken and self.broken_morale is not None:
            return self.broken_morale
        return self.morale

    @property
    def is_weapon(self) -> bool:
        return self.kind == "sw"

    @property
    def counter_values(self) -> str | None:
        """A leader's morale and leadership ("8-1"), else FP, range and morale ("4-6-7"); a SW none."""
        if self.is_leader and self.morale:
            return f"{self.current_morale}{self.leadership:+d}"
        if self.is_sw or not any((self.fp, self.range, self.current_morale)):
            return None
        return f"{self.fp}-{self.range}-{self.current_morale}"

    @property
    def condition(self) -> Condition:
        # Casualty Reduction or a failed ELR test leaves a half-squad (A7.302, A19.13): reduced
        return Condition(broken=self.broken, pinned=self.pinned, reduced=self.kind == "half-squad")


# An AslUnit inside a resolution (bot/core/working.py): a plain slotted object with the same fields
# and properties (typed as the model it stands in for: the rules read either the same way)
AslUnitWork: type[AslUnit] = work_class(AslUnit)
# what an ASL unit is, as a model or inside a resolution (isinstance checks of the rules)
ASL_UNITS = (AslUnit, AslUnitWork)
# An ASL game's units as the rules read them (typing only: Game declares dict[str, UnitBase]; an ASL
# game holds ASL units, or inside a resolution their working objects)
AslUnits = dict[str, AslUnit]


class AslSide(BaseModel):
    """What each side of an ASL game carries beyond the shared fields (``Ruleset.side_fields``)."""

    model_config = ConfigDict(extra="forbid")

    elr: int | None = None  # the Experience Level Rating the scenario gives the side (A19.1); None: not given


class AslLocation(BaseModel):
    """The markers an ASL Location carries beyond the shared fields (``Ruleset.location_fields``)."""

    model_config = ConfigDict(extra="forbid")

    residual_fp: int = Field(default=0, ge=0, le=36)  # the Residual FP marker (A8.2), 0 for none
    smoke: bool = False  # a SMOKE marker (A24): the bot names it, the players give its hindrance
