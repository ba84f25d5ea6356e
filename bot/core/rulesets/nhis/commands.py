"""How No Honor in Surrender orders are given in a chat: the slash commands, as plain data."""

from __future__ import annotations

from ...commands import Command, Option, Suggest
from .orders import NhisActivate, NhisFire, NhisMorale, NhisMove, NhisRally

UNIT = Suggest("unit")

COMMANDS = (
    Command("fire", "Fire at a target: the referee checks, rolls and applies the result", NhisFire, (
        Option("target", "id", "the target hex", required=True, suggest=Suggest("location")),
        Option("firers", "ids", "firing units, a fire group: 'A1 A2 MG1'", required=True, suggest=UNIT),
        Option("range", "integer", "range in hexes (left out: counted on the map; 0 = same Location, 1 = adjacent)",
               min=0, max=200),
    ), extras="charging=U1 from_lower=yes", odds_button=True),
    Command("morale", "Take a morale check: the referee rolls and applies the result", NhisMorale, (
        Option("unit", "id", "the unit that checks", required=True, suggest=UNIT),
        Option("hit", "integer", "the n of a Hit-n result (its modifier to the check)", min=0, max=6),
    ), extras="flamethrower=yes"),
    Command("move", "Move units into a Location, as the phase and the rules allow", NhisMove, (
        Option("units", "ids", "the unit or the stack that moves: 'A1 A2 L1'", required=True, suggest=UNIT),
        Option("to", "id", "the Location it enters", required=True, suggest=Suggest("location")),
        Option("kind", "text", "move, crawl or charge (its marker)",
               choices=(("move", "move"), ("crawl", "crawl"), ("charge", "charge"))),
    )),
    Command("activate", "Activate a leader's command for this impulse: his hex and the adjacent units you name",
            NhisActivate, (
        Option("leader", "id", "the Prepared leader who activates", required=True, suggest=UNIT),
        Option("units", "ids", "units in hexes adjacent to his that he activates too: 'M3 T1'", suggest=UNIT),
    )),
    Command("rally", "Try to rally a shaken unit", NhisRally, (
        Option("unit", "id", "the unit that tries to rally", required=True, suggest=UNIT),
    )),
)
