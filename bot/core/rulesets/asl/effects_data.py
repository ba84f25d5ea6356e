"""The models of ``data/asl/morale.yaml`` (the numbers the morale, rally and transfer rules read);
bot/core/rulesets/asl/effects.py applies them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckRules(_Strict):
    rule: str
    casualty_original: int = Field(ge=2, le=12)
    casualty_kinds: tuple[str, ...]
    assumed: tuple[str, ...] = ()


class ElrRules(_Strict):
    rule: str
    underlined_morale_elr: int = Field(ge=0, le=5)
    assumed: tuple[str, ...] = ()


class HeatOfBattle(_Strict):
    rule: str
    original: int = Field(ge=2, le=12)
    kinds: tuple[str, ...]
    assumed: str


class RallyRules(_Strict):
    rule: str
    terrain_drm: int
    dm_drm: int
    self_rally_drm: int
    casualty_original: int = Field(ge=2, le=12)
    assumed: tuple[str, ...] = ()


class CasualtyRules(_Strict):
    rule: str
    custom_fp_divisor: int = Field(ge=2)
    assumed: str


class WoundRules(_Strict):
    rule: str
    option: str  # the internal game option of the games whose single-man counters are wounded
    kinds: tuple[str, ...]
    instead_of_breaking: tuple[str, ...]  # the kinds an MC failed while unwounded wounds instead of breaking
    severity_rule: str
    mortal_from: int = Field(ge=1, le=7)
    again_drm: int
    effects_rule: str
    morale_drm: int
    leadership_drm: int
    movement_rule: str
    mf: int = Field(ge=0)
    assumed: str


class RecoveryRules(_Strict):
    rule: str
    max_final_dr: int = Field(ge=1, le=6)
    cx_drm: int
    night_drm: int
    jungle_drm: int


class PortageRules(_Strict):
    rule: str
    capacity: dict[str, int]
    assumed: str


class MoraleData(_Strict):
    check: CheckRules
    elr: ElrRules
    heat_of_battle: HeatOfBattle
    rally: RallyRules
    casualty_reduction: CasualtyRules
    wounds: WoundRules
    recovery: RecoveryRules
    portage: PortageRules
