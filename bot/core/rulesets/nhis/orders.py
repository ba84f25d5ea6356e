"""No Honor in Surrender orders: fire, morale check, rally, phase."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...orders import OrderBase, PhaseOrder


class NhisFire(OrderBase):
    action: Literal["fire"] = "fire"
    firers: list[str] = Field(min_length=1)
    target: str  # the target hex
    range: int = Field(ge=0, le=200)  # hexes; 1 = adjacent
    charging: list[str] = Field(default_factory=list)  # firers using Charge movement (-2 each)
    beyond_visibility: list[str] = Field(default_factory=list)  # night rules (-2 each)
    from_lower: bool = False  # the target is on a hill and the firers are lower (+1 cover)
    flamethrower: bool = False  # the attack is a flamethrower's (Banzai exception)


class NhisMorale(OrderBase):
    action: Literal["morale"] = "morale"
    unit: str
    hit: int = Field(default=0, ge=0, le=6)  # the n of Hit-n
    flamethrower: bool = False  # the check was caused by a flamethrower (Banzai exception)


class NhisRally(OrderBase):
    action: Literal["rally"] = "rally"
    unit: str


NhisOrder = NhisFire | NhisMorale | NhisRally | PhaseOrder
