"""Command Decision orders: direct fire, indirect fire, artillery response, morale, rally, phase."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...orders import (ActingCompany, ActingUnit, ActingUnits, LocationId, OrderBase, PhaseOrder, Phases, Refers,
                       Sealing, TargetUnits, Text)
from . import tables

# orders placed in the Command & Morale Phase (5A) are revealed as each side moves (2D, then 2E)
SEALING = Sealing(seal_phase="CommandMorale", reveal_phase="Movement", rule="CD 5A, 2D-2E",
                  when="in the Movement Phase, Side A first, as each side moves", option="sealed_orders")

Cover = Literal["none", "light", "medium", "hard", "fortification"]

FIRE_PHASES = ("Movement", "OpFire", "GeneralFire")  # Prep Fire in 2, Op Fire in 3A, General Fire in 4
IDF_PHASES = ("Artillery", "OpFire")  # IDF resolves in 1C, and as Op Fire in 3A
RESPONSE_PHASES = ("Artillery",)  # 1A
# orders placed in the Command & Morale Phase (5A) are revealed as each side moves (2D, then 2E)
SEALING = Sealing(seal_phase="CommandMorale", reveal_phase="Movement", rule="CD 5A, 2D-2E",
                  when="in the Movement Phase, Side A first, as each side moves", option="sealed_orders")


class CdFire(OrderBase):
    """Direct fire [13, 14]: ROF dice, to-hit, one hit-result roll per hit [19.1]."""

    rolls = True
    previewable = True
    phases = Phases(FIRE_PHASES, "CD [13.1]", "direct fire is resolved")

    action: Literal["fire"] = "fire"
    firer: ActingUnit  # one stand
    targets: TargetUnits = Field(min_length=1, max_length=12)  # more than one: -1 ROF [13.5]
    range_band: Text  # a key of the firer's to_hit numbers, e.g. "short", "medium", "long"
    cover: Cover | None = None  # the target's cover [14.2.1]; left out: its Location's (data/cd/cover.yaml)
    op_fire: bool = False  # Op Fire (+1 ROF); any fire in the Opportunity Fire Phase is Op Fire
    in_contact: bool = False
    close_assault: bool = False
    flame: bool = False
    human_wave: bool = False
    passenger: bool = False
    target_patrol: bool = False
    hull_down: bool = False  # target AFV hull down or in BUA
    hasty_advance: bool = False
    close_range: bool = False  # AP natural 10 eliminates at close range [19.1]


class CdIndirectFire(OrderBase):
    """Indirect fire to-hit [17.6] and hit results."""

    rolls = True
    phases = Phases(IDF_PHASES, "CD [17.6]", "indirect fire is resolved")

    action: Literal["indirect_fire"] = "indirect_fire"
    firer: ActingUnit
    targets: TargetUnits = Field(min_length=1, max_length=12)
    cover: Cover | None = None  # left out: each target's Location's (data/cd/cover.yaml)
    dedicated_battery: bool = False
    h_and_i: bool = False  # harassment & interdiction fire: no ammo depletion [27.1]


class CdArtilleryResponse(OrderBase):
    """Artillery/air response roll for a spotted target [17.4]."""

    rolls = True
    phases = Phases(RESPONSE_PHASES, "CD [17.4]", "the artillery response is rolled")

    action: Literal["artillery_response"] = "artillery_response"
    firer: ActingUnit
    support: Literal["organic", "supporting", "h_and_i"] | None = None  # None: the battery's own, else organic


class CdMorale(OrderBase):
    """A company morale check [21] with the card's modifiers."""

    rolls = True
    previewable = True
    phases = Phases(("CommandMorale",), "CD [21]", "a company checks morale")

    action: Literal["morale"] = "morale"
    company: ActingCompany
    in_cover: bool = False
    enemy_personnel_near: bool = False  # enemy personnel within 12" and LOS
    afv_near: bool = False  # enemy AFV within 12" and LOS
    air_attack_near: bool = False
    road_march: bool = False
    targeted_by_tot: bool = False
    in_contact: bool = False  # with unpinned enemy personnel or AFV (Demoralized -> eliminated)


class CdRally(OrderBase):
    """The Rally/Regroup order taking effect [21.4]."""

    rolls = True
    previewable = True
    phases = Phases(("Movement",), tables.morale().rally.rule, "a Rally/Regroup order takes effect")

    action: Literal["rally"] = "rally"
    company: ActingCompany


StandOrderName = Literal["cautious_advance", "hasty_advance", "disengage", "hold", "take_command", "rally_regroup"]


class CdGiveOrders(OrderBase):
    """Orders placed in the Command & Morale Phase (5A) for a company or some stands [6.1, 7]: they
    say how each stand moves and fires next turn (Orders Summary, data/cd/orders.yaml)."""

    phases = Phases(("CommandMorale",), "CD [6.1, 7]", "orders are placed")
    sealable = True  # the game option sealed_orders: sealed now, revealed in the Movement Phase (2D/2E)

    action: Literal["give_orders"] = "give_orders"
    order: StandOrderName
    company: Annotated[str | None, Refers("company", acting=True)] = None
    stands: Annotated[list[str], Refers("unit", acting=True)] = Field(default_factory=list, max_length=40)


class CdMove(OrderBase):
    """Stands of the side moving now (Movement Phase, 2D/2E) move to a position, within their order."""

    phases = Phases(("Movement",), "CD [7, 8]", "stands move")

    action: Literal["move"] = "move"
    stands: ActingUnits = Field(min_length=1, max_length=40)
    to: LocationId


MORALE_DUE_RULE = "CD 5B [21]"


class CdCompanyNear(OrderBase):
    """A company the players declare within 12" of the enemy this turn: it must check morale (5B);
    the bot knows the other two reasons itself (fired upon, a friendly company eliminated)."""

    phases = Phases(("CommandMorale",), MORALE_DUE_RULE, "the companies that must check morale are named")

    action: Literal["company_near"] = "company_near"
    company: ActingCompany


class CdCompanyWaive(OrderBase):
    """The game master waives a company's required morale check this turn (logged, with a reason)."""

    gm_only = "waive a company's required morale check"
    phases = Phases(("CommandMorale",), MORALE_DUE_RULE, "a required morale check is waived")

    action: Literal["company_waive"] = "company_waive"
    company: Annotated[str, Refers("company")]
    reason: Annotated[str | None, Refers("nothing")] = Field(default=None, max_length=200)


CdOrder = (CdFire | CdIndirectFire | CdArtilleryResponse | CdMorale | CdRally | CdGiveOrders | CdMove | CdCompanyNear
           | CdCompanyWaive | PhaseOrder)
