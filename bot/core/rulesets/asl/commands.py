"""How ASL orders are given in a chat: the slash commands, as plain data (bound by cogs/orders.py)."""

from __future__ import annotations

from typing import Any

from ...commands import Command, Option, Suggest
from ...errors import InvalidOrder
from ...game import Game
from .orders import AslCloseCombat, AslFire, AslMorale, AslMove, AslRally, AslRecover, AslTransfer

FIRE_KINDS = (
    ("Prep Fire (PFPh)", "prep"), ("Advancing Fire (AFPh)", "advancing"), ("Defensive First Fire (MPh)", "dff"),
    ("Subsequent First Fire (MPh)", "sff"), ("Final Protective Fire (MPh)", "fpf"), ("Residual Fire (MPh)", "residual"),
    ("Final Fire (DFPh)", "dfph"),
)
CHECKS = (
    ("MC: Morale Check (n from the 'n' option)", "MC"), ("NMC: Normal Morale Check", "NMC"),
    ("PTC: Pin Task Check", "PTC"), ("TC: Task Check", "TC"), ("LLMC: Leader Loss Morale Check", "LLMC"),
    ("LLTC: Leader Loss Task Check", "LLTC"),
)
UNIT = Suggest("unit")
DRM = Option("drm", "integer", "any other DRM the players agree on (give a reason)", min=-10, max=10)
REASON = Option("reason", "text", "why the extra DRM applies (shown in the trail)", field="drm_reason")


def agreed_drm(game: Game, order: dict[str, Any]) -> dict[str, Any]:
    """An extra DRM the players agree on is logged with its reason, so the trail explains it."""
    drm, reason = order.pop("drm", None), order.pop("drm_reason", None)
    if reason is not None and not drm:
        raise InvalidOrder("'reason' explains an extra 'drm': give the drm too", field="reason")
    if drm and not reason:
        raise InvalidOrder("an extra 'drm' needs a 'reason' (it is shown in the trail)", field="reason")
    return order | ({"drm": drm, "drm_reason": reason} if drm and reason else {})


COMMANDS = (
    Command("fire", "Fire at a target: the referee checks, rolls and applies the result", AslFire, (
        Option("target", "id", "the target hex", required=True, suggest=Suggest("location")),
        Option("firers", "ids", "firing units, a fire group: 'A1 A2 MG1'", suggest=UNIT),
        Option("range", "integer", "range in hexes (left out: counted on the map; 0 = same Location, 1 = adjacent)",
               min=0, max=200),
        Option("kind", "text", "the kind of fire (default: inferred from the phase and the markers)",
               choices=FIRE_KINDS),
        Option("hindrance", "integer", "+1 hindrance hexes along the line of sight", min=0, max=20),
        Option("leader", "id", "the leader directing the fire (default: the best Good Order one)", suggest=UNIT),
        DRM, REASON,
    ), extras="target_units=R1", finish=agreed_drm, odds_button=True),
    Command("morale", "Take a morale check: the referee rolls and applies the result", AslMorale, (
        Option("unit", "id", "the unit that checks", required=True, suggest=UNIT),
        Option("check", "text", "the kind of check (default: NMC)", choices=CHECKS),
        Option("n", "integer", "the +n of an nMC, e.g. 1 for a 1MC", min=0, max=7),
        DRM, REASON,
    ), finish=agreed_drm),
    Command("rally", "Try to rally a broken unit", AslRally, (
        Option("unit", "id", "the unit that tries to rally", required=True, suggest=UNIT),
        Option("leader", "id", "the leader who rallies it (default: the best Good Order one there)", suggest=UNIT),
        Option("self_rally", "boolean", "rally without a leader (Self-Rally, +1 DRM)"),
    )),
    Command("move", "Move units into a Location, as the phase and the rules allow", AslMove, (
        Option("units", "ids", "the unit or the stack that moves: 'A1 A2 L1'", required=True, suggest=UNIT),
        Option("to", "id", "the Location it enters", required=True, suggest=Suggest("location")),
        Option("kind", "text", "normal or Assault Movement (A4.61)", choices=(("normal", "normal"),
                                                                            ("Assault Movement", "assault"))),
        Option("cx", "boolean", "Double Time: the movers become CX (A4.5)"),
    )),
    Command("close-combat", "Declare Close Combat in a Location (A11): the DEFENDER's declaration resolves it",
            AslCloseCombat, (
        Option("attackers", "ids", "your units there: 'A1 A2', or attack groups 'A1 A2 | A3'", required=True,
               suggest=UNIT),
        Option("targets", "ids", "the enemy units each group attacks, '|' between groups (default: all there)",
               suggest=Suggest("enemy_unit")),
        Option("hold", "boolean", "the named units make no attack (your declaration there is complete)"),
        Option("withdraw", "id", "withdraw the named units from Melee to this adjacent Location (A11.2)",
               suggest=Suggest("location")),
        Option("ambush", "boolean", "your side ambushed the enemy there (A11.4, by the players' ambush drs)"),
    ), odds_button=True),
    Command("transfer", "Pass a support weapon to another unit in the same Location (A4.43)", AslTransfer, (
        Option("weapon", "id", "the support weapon (its id, e.g. MG1)", required=True, suggest=Suggest("weapon")),
        Option("to", "id", "the unit that takes it", required=True, suggest=UNIT),
    )),
    Command("recover", "Recover an unpossessed support weapon (recovery dr, A4.44)", AslRecover, (
        Option("weapon", "id", "the support weapon to recover (its id)", required=True, suggest=Suggest("weapon")),
        Option("unit", "id", "the unit that recovers it", required=True, suggest=UNIT),
    )),
)
