"""ASL orders: fire, morale/task checks, rally, support-weapon transfer and recovery, movement, phase."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...orders import (ActingUnit, ActingUnitOrNone, ActingUnits, ActingWeapon, LocationId, LocationIdOrNone,
                       OrderBase, PhaseOrder, Phases, TargetUnitsOrNone, TextOrNone)

FireKind = Literal["prep", "advancing", "dff", "sff", "fpf", "residual", "dfph"]
CheckKind = Literal["MC", "NMC", "PTC", "TC", "LLMC", "LLTC"]


class AslFire(OrderBase):
    """A fire attack by one unit or a fire group (A7)."""

    rolls = True
    previewable = True
    phases = Phases(("PFPh", "MPh", "DFPh", "AFPh"), "seed 003", "fire attacks are made")

    action: Literal["fire"] = "fire"
    # None: inferred from the phase and the firers' markers (PFPh -> prep, AFPh -> advancing,
    # DFPh -> dfph, MPh -> dff, or sff for firers marked First Fire)
    kind: FireKind | None = None
    firers: ActingUnits = Field(default_factory=list)  # unit and SW ids; empty only for residual
    target: LocationId  # the target Location
    # hexes from firer to target; 0 = same Location. Counted on the map where the grid places both
    # Locations (bot/core/grid.py), else required for every attack with firers (and in every game
    # logged before the map counted ranges); Residual Fire has no firer and so no range (A8.2).
    range: int | None = Field(default=None, ge=0, le=200)
    # +1 hindrance hexes along the LOS; None: read on the map (game option los), else none
    hindrance: int | None = Field(default=None, ge=0, le=20)
    los_confirmed: bool = False  # fire although the bot reads the line of sight as blocked (los=advise)
    target_units: TargetUnitsOrNone = None  # MPh: the moving units fired on (default: the moving ones)
    leader: ActingUnitOrNone = None  # directing leader; default: the best Good Order leader firing
    drm: int = Field(default=0, ge=-10, le=10)  # any other DRM the players agree, with a reason
    drm_reason: TextOrNone = None


class AslMorale(OrderBase):
    """A Morale Check, Pin Task Check or Task Check taken on its own (A10, A7.8)."""

    rolls = True
    previewable = True
    # a fire's checks are rolled by /fire itself: one on its own is what an attack the table resolves
    # calls for, in the phases attacks are made (seed 003); allowed in any phase, offered in those
    hinted = ("PFPh", "MPh", "DFPh", "AFPh")

    action: Literal["morale"] = "morale"
    unit: ActingUnit
    check: CheckKind = "NMC"
    n: int = Field(default=0, ge=0, le=7)  # the +n of an nMC
    drm: int = Field(default=0, ge=-10, le=10)
    drm_reason: TextOrNone = None


class AslRally(OrderBase):
    """A rally attempt in the Rally Phase (A10.6): with a leader, or Self-Rally."""

    rolls = True
    previewable = True
    phases = Phases(("RPh",), "A10.6", "units rally")

    action: Literal["rally"] = "rally"
    unit: ActingUnit
    leader: ActingUnitOrNone = None  # None: the best Good Order leader in the Location, else Self-Rally
    self_rally: bool = False


class AslTransfer(OrderBase):
    """Support weapon transfer between units in one Location (A4.43, seed 002 Table 7)."""

    rolls = True  # a dr when the receiving unit is not the holder's stack-mate in Good Order (Table 7)

    action: Literal["transfer"] = "transfer"
    weapon: ActingWeapon
    to: ActingUnit  # the unit that takes it


class AslRecover(OrderBase):
    """Recovery of an unpossessed SW, or of one held by a friendly broken unit (A4.44)."""

    rolls = True

    action: Literal["recover"] = "recover"
    weapon: ActingWeapon  # unpossessed: the recovering unit acts; held: through its holder
    unit: ActingUnit




class AslMove(OrderBase):
    """Infantry moving (MPh, A4.1), routing (RtPh, A10.5) or advancing (APh, A4.7): a unit or a stack
    into one Location. Movement Factors and terrain costs are the players'; the referee checks who
    may move, where they may not go, and marks the movers as the fire that may follow needs."""

    phases = Phases(("MPh", "RtPh", "APh"), "A4.1, A10.5, A4.7", "units move")

    action: Literal["move"] = "move"
    units: ActingUnits = Field(min_length=1, max_length=40)
    to: LocationId
    kind: Literal["normal", "assault"] = "normal"  # Assault Movement (A4.61): no FFNAM against it
    cx: bool = False  # Double Time (A4.5): the movers become CX


class AslCloseCombat(OrderBase):
    """One side's Close Combat declaration in a Location (A11): its attack groups, each against one
    target group, or its units withdrawing from Melee (A11.2). The ATTACKER declares first and his
    declaration is kept; the DEFENDER's declaration then resolves every attack in the Location at
    once (close_combat.py)."""

    rolls = True  # the DEFENDER's declaration resolves the Close Combat
    previewable = True
    phases = Phases(("CCPh",), "A11", "Close Combat is fought")

    action: Literal["close_combat"] = "close_combat"
    # the side's units in one Location; '|' separates attack groups: 'A1 A2 | A3'
    attackers: ActingUnits = Field(min_length=1, max_length=40)
    # the enemy target group of each attack group, '|' between them in the same order: 'G1 | G2';
    # None: every enemy unit in the Location
    targets: TargetUnitsOrNone = None
    hold: bool = False  # the named units make no attack: the side's declaration is complete
    withdraw: LocationIdOrNone = None  # the named units withdraw from Melee to this Location (A11.2)
    ambush: bool = False  # this side ambushed the enemy in this Location (A11.4)


AslOrder = AslFire | AslMorale | AslRally | AslTransfer | AslRecover | AslMove | AslCloseCombat | PhaseOrder
