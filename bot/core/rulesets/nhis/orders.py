"""No Honor in Surrender orders: fire, morale check, rally, phase."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...orders import ActingUnit, ActingUnits, LocationId, OrderBase, PhaseOrder, Phases
from . import tables

# The phases that allow fire and rally come from data/nhis/rules.yaml, as the ruleset's phases do
_TURN = tables.rules().turn
_RALLY = tables.rules().rally
_ACTIVATION = tables.rules().activation


class NhisFire(OrderBase):
    rolls = True
    previewable = True
    phases = Phases((_TURN.fire_phase,), _TURN.rule, "units fire")

    action: Literal["fire"] = "fire"
    firers: ActingUnits = Field(min_length=1)
    target: LocationId  # the target hex
    # hexes; 1 = adjacent. Counted on the map where the grid places both hexes (bot/core/grid.py), else
    # required (and in every game logged before the map counted ranges)
    range: int | None = Field(default=None, ge=0, le=200)
    charging: ActingUnits = Field(default_factory=list)  # firers using Charge movement (-2 each)
    beyond_visibility: ActingUnits = Field(default_factory=list)  # firers beyond visibility, night rules (-2 each)
    from_lower: bool = False  # the target is on a hill and the firers are lower (+1 cover)
    flamethrower: bool = False  # the attack is a flamethrower's (Banzai exception)
    los_confirmed: bool = False  # fire although the bot reads the line of sight as blocked (los=advise)


class NhisMorale(OrderBase):
    rolls = True
    previewable = True
    # a fire's checks are rolled by /fire itself: one on its own follows a Hit the table resolves (a
    # melee, left to the table) in the impulses; allowed in any phase, offered there
    hinted = ("Operations",)

    action: Literal["morale"] = "morale"
    unit: ActingUnit
    hit: int = Field(default=0, ge=0, le=6)  # the n of Hit-n
    flamethrower: bool = False  # the check was caused by a flamethrower (Banzai exception)


class NhisRally(OrderBase):
    rolls = True
    previewable = True
    phases = Phases((_RALLY.phase,), _RALLY.rule, "units rally")

    action: Literal["rally"] = "rally"
    unit: ActingUnit


class NhisMove(OrderBase):
    """Units of the side with the impulse move into a hex: a Move marker, or a Charge marker, or
    crawling (no marker: a crawling target gets no moving-target bonus)."""

    phases = Phases((_TURN.fire_phase,), _TURN.rule, "units move")

    action: Literal["move"] = "move"
    units: ActingUnits = Field(min_length=1, max_length=40)
    to: LocationId
    kind: Literal["move", "crawl", "charge"] = "move"


class NhisActivate(OrderBase):
    """A Prepared leader activates his command for the impulse: himself, the units of his hex, and
    the units named in the hexes adjacent to it (the players' declaration: the referee does not pick them)."""

    phases = Phases((_ACTIVATION.phase or _TURN.fire_phase,), _ACTIVATION.rule, "a leader activates his command")

    action: Literal["activate"] = "activate"
    leader: ActingUnit
    units: ActingUnits = Field(default_factory=list, max_length=40)  # units in the adjacent hexes


NhisOrder = NhisFire | NhisMorale | NhisRally | NhisMove | NhisActivate | PhaseOrder
