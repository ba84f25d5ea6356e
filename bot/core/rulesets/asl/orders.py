"""ASL orders: fire, morale/task checks, rally, support-weapon transfer and recovery, phase."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...orders import OrderBase, PhaseOrder

FireKind = Literal["prep", "advancing", "dff", "sff", "fpf", "residual", "dfph"]
CheckKind = Literal["MC", "NMC", "PTC", "TC", "LLMC", "LLTC"]


class AslFire(OrderBase):
    """A fire attack by one unit or a fire group (A7)."""

    action: Literal["fire"] = "fire"
    # None: inferred from the phase and the firers' markers (PFPh -> prep, AFPh -> advancing,
    # DFPh -> dfph, MPh -> dff, or sff for firers marked First Fire)
    kind: FireKind | None = None
    firers: list[str] = Field(default_factory=list)  # unit and SW ids; empty only for residual
    target: str  # the target Location
    # hexes from firer to target; 0 = same Location. Required for every attack with firers;
    # Residual Fire has no firer and so no range (A8.2).
    range: int | None = Field(default=None, ge=0, le=200)
    hindrance: int = Field(default=0, ge=0, le=20)  # +1 hindrance hexes along the LOS
    target_units: list[str] | None = None  # MPh: the moving units fired on (default: the moving ones)
    leader: str | None = None  # directing leader; default: the best Good Order leader firing
    drm: int = Field(default=0, ge=-10, le=10)  # any other DRM the players agree, with a reason
    drm_reason: str | None = None


class AslMorale(OrderBase):
    """A Morale Check, Pin Task Check or Task Check taken on its own (A10, A7.8)."""

    action: Literal["morale"] = "morale"
    unit: str
    check: CheckKind = "NMC"
    n: int = Field(default=0, ge=0, le=7)  # the +n of an nMC
    drm: int = Field(default=0, ge=-10, le=10)
    drm_reason: str | None = None


class AslRally(OrderBase):
    """A rally attempt in the Rally Phase (A10.6): with a leader, or Self-Rally."""

    action: Literal["rally"] = "rally"
    unit: str
    leader: str | None = None  # None: the best Good Order leader in the Location, else Self-Rally
    self_rally: bool = False


class AslTransfer(OrderBase):
    """Support weapon transfer between units in one Location (A4.43, seed 002 Table 7)."""

    action: Literal["transfer"] = "transfer"
    weapon: str
    to: str


class AslRecover(OrderBase):
    """Recovery of an unpossessed SW, or of one held by a friendly broken unit (A4.44)."""

    action: Literal["recover"] = "recover"
    weapon: str
    unit: str


AslOrder = AslFire | AslMorale | AslRally | AslTransfer | AslRecover | PhaseOrder
