"""Command Decision: Test of Battle stands and their state (seed 004)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...orders import Refers
from ..base import Condition, UnitBase

TroopQuality = Literal["green", "trained", "regular", "experienced", "veteran", "elite"]
WeaponClass = Literal["A", "H", "HC", "W", "S", "F", "none"]


class CdStand(UnitBase):
    company_field = "company"  # morale is checked by company [21]

    system: Literal["cd"] = "cd"
    kind: Literal["personnel", "gun", "vehicle", "afv", "artillery"] = "personnel"
    # morale is checked by company [21]; one side's, spelled as its first stand has it (bot/core/setup.py)
    company: Annotated[str, Refers("company")] = ""
    quality: TroopQuality = "regular"
    rof: int = 1
    weapon_class: WeaponClass = "none"
    # to-hit numbers by range band, from the players' equipment chart: {"short": 6, ...}
    to_hit: dict[str, int] = Field(default_factory=dict)
    penetration: dict[str, int] = Field(default_factory=dict)  # by range band, AP weapons
    armour: int = 0  # armour value (AFVs)
    weight: int = 0  # AFV weight class
    caliber_mm: int = 0  # ammo depletion [27.1]
    idf_to_hit: int | None = None  # indirect fire number
    morale: int | None = None  # None: from the quality table in data (assumed)
    elite_rof: bool = False
    vehicle_type: Literal["none", "tank", "armoured_car", "other"] = "none"  # ammo depletion [27.1]
    battalion_gun: bool = False  # fires at most 1 ROF die [13.5]
    # a battery's place in the order of battle, for its response roll [17.4] (a scenario's stat): organic
    # answers on 1-5, supporting on 1-3; None: the players say which at /artillery response
    support: Literal["organic", "supporting"] | None = Field(default=None, exclude_if=lambda v: v is None,
                                                              repr=False)

    pinned: bool = False
    shaken: bool = False
    demoralized: bool = False
    suppressed: bool = False
    forced_back: bool = False  # this turn; counts against the company's morale [21.1.1]
    ammo_depleted: bool = False

    # Turn stamps: the per-turn morale rules read them, so no counter needs resetting.
    pinned_turn: int | None = None  # the turn the pin was placed [21.3.2]
    eliminated_turn: int | None = None  # "each stand eliminated this turn" [21.1.1]
    morale_checked_turn: int | None = None  # a company checks once a turn (5B)
    rallied_turn: int | None = None  # fire only in contact while rallying [21.4]
    # a refereed sequence of play (absent from the states of games logged before it)
    order: str | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # data/cd/orders.yaml
    fired_phase: str | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # "turn:phase"
    moved_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    # the turn its sealed order was revealed (the game option sealed_orders, bot/core/sealed.py)
    revealed_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    # games created since issue 25 (the internal option cd_turn_rules): the artillery response of this
    # turn [17.4] and the missions fired in a phase (at most the ROF), the fire a stand took this turn
    # (its company must check morale, 5B), results of a simultaneous fire phase waiting for its end,
    # and a company's check declared due (within 12" of the enemy) or waived by the game master
    response_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    response_ok: bool = Field(default=False, exclude_if=lambda v: not v, repr=False)
    response_support: str | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    idf_phase: str | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # "turn:phase"
    idf_fires: int = Field(default=0, exclude_if=lambda v: v == 0, repr=False)  # missions fired in idf_phase
    fired_on_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    pending: list[str] = Field(default_factory=list, exclude_if=lambda v: not v, repr=False)
    near_enemy_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    check_waived_turn: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)

    @property
    def is_afv(self) -> bool:
        return self.kind == "afv"

    @property
    def is_personnel(self) -> bool:
        return self.kind == "personnel"

    @property
    def acts_pinned(self) -> bool:
        """Pinned, or Shaken, which the card says acts 'as pinned' [21.3.3]."""
        return self.pinned or self.shaken

    @property
    def condition(self) -> Condition:
        return Condition(broken=self.shaken or self.demoralized, pinned=self.pinned, forced_back=self.forced_back)
