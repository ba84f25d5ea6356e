"""CD tables as data: hit results [19.1], fire modifiers [13.5, 14.2.1, 17.6, 27.1], morale [21]
and the counter library.

Each file in ``data/cd`` is read once and validated by a pydantic model that forbids unknown
keys, so a typo in a data file fails loudly at start-up instead of changing a result. The code
names each modifier by its field here, so a missing modifier is a validation error too.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...data import data_path
from .models import CdStand, TroopQuality

DATA_DIR = data_path("cd")
QUALITIES: tuple[TroopQuality, ...] = ("green", "trained", "regular", "experienced", "veteran", "elite")
HitResult = Literal["no effect", "forced back", "eliminated"]
Direction = Literal["at_most", "at_least"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Mod(_Frozen):
    """One modifier: its value, what players read, and the rule when not the table's own."""

    value: int
    label: str
    rule: str | None = None
    starred: bool = False  # [14.2.1]: ignored by HE (H and W class) fire


# --- hit results [19.1] ---


class HitColumn(_Frozen):
    no_effect_max: int = Field(ge=0, le=10)
    forced_back_max: int = Field(ge=0, le=10)


class HitResults(_Frozen):
    rule: str
    table: str
    columns: dict[TroopQuality, HitColumn]
    soft_column: TroopQuality
    soft_kinds: tuple[str, ...]
    ap_rule: str
    natural_penetration: int = Field(ge=1, le=10)
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _every_quality(self) -> "HitResults":
        if set(self.columns) != set(QUALITIES):
            raise ValueError(f"the hit results chart has one column per quality: {QUALITIES}")
        for quality, col in self.columns.items():
            if not col.no_effect_max < col.forced_back_max:
                raise ValueError(f"{quality}: forced back starts above no effect")
        return self

    def read(self, quality: TroopQuality, roll: int) -> HitResult:
        column = self.columns[quality]
        if roll <= column.no_effect_max:
            return "no effect"
        if roll <= column.forced_back_max:
            return "forced back"
        return "eliminated"


# --- fire modifiers ---


class RofMods(_Frozen):
    rule: str
    elite: Mod
    op_fire: Mod
    human_wave: Mod
    passenger: Mod
    multiple_targets: Mod
    minimum: int = Field(ge=1)
    close_assault_vs_afv_max: int = Field(ge=1)
    battalion_gun_max: int = Field(ge=1)


class ToHitTargetMods(_Frozen):
    patrol: Mod
    pinned_personnel: Mod
    light_cover: Mod
    afv_hull_down: Mod
    medium_cover: Mod
    hard_cover: Mod
    fortification: Mod


class ToHitFirerMods(_Frozen):
    h_vs_weak_afv: Mod
    veteran_elite: Mod
    trained_green: Mod
    suppressed: Mod
    hasty_advance: Mod
    pinned: Mod
    a_vs_strong_afv: Mod
    w_vs_weak_afv: Mod
    h_vs_afv_per_weight: Mod
    rallying: Mod


class ToHitMods(_Frozen):
    rule: str
    target: ToHitTargetMods
    firer: ToHitFirerMods
    he_classes: tuple[str, ...]


class IdfTargetMods(_Frozen):
    medium_cover: Mod
    hard_cover: Mod
    fortification: Mod
    weak_afv: Mod
    afv_per_weight: Mod


class IdfFirerMods(_Frozen):
    pinned: Mod
    dedicated_battery: Mod
    veteran_elite: Mod
    trained_green: Mod
    suppressed: Mod


class IdfMods(_Frozen):
    rule: str
    target: IdfTargetMods
    firer: IdfFirerMods


class AfvClasses(_Frozen):
    weak_max_armour: int
    strong_min_armour: int

    def weak(self, stand: CdStand) -> bool:
        return stand.is_afv and stand.armour <= self.weak_max_armour

    def strong(self, stand: CdStand) -> bool:
        return stand.is_afv and stand.armour >= self.strong_min_armour


class Suppression(_Frozen):
    rule: str
    classes: tuple[str, ...]


class AmmoDepletion(_Frozen):
    rule: str
    min_caliber_mm: int
    natural: int = Field(ge=1, le=10)
    armoured_car: int
    tank: int


class ArtilleryResponse(_Frozen):
    rule: str
    organic: int = Field(ge=0, le=10)
    supporting: int = Field(ge=0, le=10)
    h_and_i: int = Field(ge=0, le=10)


class Modifiers(_Frozen):
    rof: RofMods
    to_hit: ToHitMods
    idf: IdfMods
    afv: AfvClasses
    suppression: Suppression
    ammo: AmmoDepletion
    artillery_response: ArtilleryResponse
    assumed: tuple[str, ...] = ()


# --- morale [21] ---


class MoraleMods(_Frozen):
    in_cover: Mod
    enemy_personnel_near: Mod
    afv_near: Mod
    air_attack_near: Mod
    road_march: Mod
    targeted_by_tot: Mod
    forced_back_each: Mod
    eliminated_each: Mod
    pinned: Mod
    shaken: Mod
    demoralized: Mod


MoraleResult = Literal["pinned", "forced_back_shaken", "forced_back_demoralized", "eliminated"]


class MoraleBand(_Frozen):
    min: int = Field(ge=1)
    max: int | None
    result: MoraleResult
    rule: str


class Rally(_Frozen):
    rule: str
    steps: dict[Literal["pinned", "shaken", "demoralized"], Literal["good_order", "pinned", "shaken"]]


class Morale(_Frozen):
    rule: str
    direction: Direction
    ratings: dict[Direction, dict[TroopQuality, int]]
    modifiers: MoraleMods
    results: tuple[MoraleBand, ...]
    demoralized_in_contact_rule: str
    pin_removal_rule: str
    rally: Rally
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _complete(self) -> "Morale":
        for direction, table in self.ratings.items():
            if set(table) != set(QUALITIES):
                raise ValueError(f"ratings.{direction} needs one rating per quality: {QUALITIES}")
        expected = 1
        for band in self.results:
            if band.min != expected:
                raise ValueError(f"morale result bands must run on from {expected}")
            expected = (band.max or 0) + 1
        if not self.results or self.results[-1].max is not None:
            raise ValueError("the last morale result band is open-ended (max: null)")
        return self

    def band(self, missed_by: int) -> MoraleBand:
        return next(b for b in self.results if b.min <= missed_by and (b.max is None or missed_by <= b.max))


# --- the counter library ---


class Counters(_Frozen):
    rule: str
    counters: dict[str, dict[str, Any]]
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _stands(self) -> "Counters":
        for key, fields in self.counters.items():
            if key != key.casefold():
                raise ValueError(f"counter type keys are lowercase: {key}")
            CdStand.model_validate({**fields, "id": "check", "side": 0, "type": key})
        return self


class StandOrder(_Frozen):
    name: str
    move: str
    moves: bool
    prep_op_fire: bool
    general_fire: bool
    contact_only: bool = False
    general_fire_modifier: int = 0


class Orders(_Frozen):
    rule: str
    orders: dict[str, StandOrder]
    assumed: tuple[str, ...] = ()


# --- cover of a Location [14.2.1, 17.6] and the turn between the rolls (data/cd/turn.yaml) ---

CoverClass = Literal["none", "light", "medium", "hard", "fortification"]


class Cover(_Frozen):
    rule: str
    classes: tuple[CoverClass, ...]
    cover: dict[str, CoverClass]
    assumed: tuple[str, ...] = ()

    def best(self, names: list[str]) -> tuple[CoverClass, str | None]:
        """The best cover among a Location's terrain and features, and the name giving it."""
        found: tuple[CoverClass, str | None] = ("none", None)
        for name in names:
            cover = self.cover.get(name.casefold())
            if cover is not None and self.classes.index(cover) > self.classes.index(found[0]):
                found = (cover, name)
        return found


class ArtilleryTurn(_Frozen):
    response_rule: str
    rof_rule: str
    one_roll_rule: str


class Simultaneous(_Frozen):
    rule: str
    phases: dict[str, tuple[str, ...]]
    default: str


class MoraleDue(_Frozen):
    rule: str
    waiver_rule: str


class Turn(_Frozen):
    artillery: ArtilleryTurn
    simultaneous: Simultaneous
    morale_due: MoraleDue
    assumed: tuple[str, ...] = ()


def _load(name: str) -> object:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@lru_cache(maxsize=1)
def hit_results() -> HitResults:
    return HitResults.model_validate(_load("hit_results.yaml"))


@lru_cache(maxsize=1)
def modifiers() -> Modifiers:
    return Modifiers.model_validate(_load("modifiers.yaml"))


@lru_cache(maxsize=1)
def morale() -> Morale:
    return Morale.model_validate(_load("morale.yaml"))


@lru_cache(maxsize=1)
def orders() -> Orders:
    return Orders.model_validate(_load("orders.yaml"))


@lru_cache(maxsize=1)
def counters() -> Counters:
    return Counters.model_validate(_load("counters.yaml"))


@lru_cache(maxsize=1)
def cover() -> Cover:
    return Cover.model_validate(_load("cover.yaml"))


@lru_cache(maxsize=1)
def turn() -> Turn:
    return Turn.model_validate(_load("turn.yaml"))
