"""How Command Decision orders are given in a chat: the slash commands, as plain data."""

from __future__ import annotations

from typing import Any

from ...commands import Command, Option, Suggest
from ...errors import InvalidOrder
from ...game import Game
from .orders import (CdArtilleryResponse, CdCompanyNear, CdCompanyWaive, CdFire, CdGiveOrders, CdIndirectFire,
                     CdMorale, CdMove, CdRally)

COVER = tuple((name, name) for name in ("none", "light", "medium", "hard", "fortification"))
SUPPORT = (("organic artillery", "organic"), ("supporting artillery", "supporting"),
           ("harassment & interdiction (H&I)", "h_and_i"))
ARTILLERY = "Command Decision artillery: indirect fire and the response roll"
COMPANY = "Command Decision companies: the morale checks due this turn (5B)"
ORDERS = (("Cautious Advance", "cautious_advance"), ("Hasty Advance", "hasty_advance"), ("Disengage", "disengage"),
          ("Hold", "hold"), ("Take Command", "take_command"), ("Rally/Regroup", "rally_regroup"))


def one_firer(game: Game, order: dict[str, Any]) -> dict[str, Any]:
    """Direct fire: one stand fires per order [13]; the option names it like a fire group's."""
    firers = order.get("firer", [])
    if len(firers) != 1:
        raise InvalidOrder("in Command Decision one stand fires per order: name exactly one in 'firers'",
                           field="firers")
    return order | {"firer": firers[0]}


COMMANDS = (
    Command("fire", "Fire at a target: the referee checks, rolls and applies the result", CdFire, (
        Option("target", "ids", "the target stands, e.g. 'G1 G2'", field="targets", required=True,
               suggest=Suggest("enemy_unit", of="firers")),
        Option("firers", "ids", "the one firing stand", field="firer", required=True, suggest=Suggest("unit")),
        Option("band", "text", "the range band of the firer's to-hit numbers, e.g. short", field="range_band",
               required=True, suggest=Suggest("range_band", of="firers")),
    ), extras="cover=hard op_fire=yes", finish=one_firer, odds_button=True),
    Command("artillery fire", "Indirect fire by a battery that answered the call this turn, at the stands under "
            "its template", CdIndirectFire, (
        Option("firer", "id", "the firing battery (a stand with an indirect-fire number)", required=True,
               suggest=Suggest("unit")),
        Option("targets", "ids", "the stands under the template: 'G1 G2'", required=True,
               suggest=Suggest("enemy_unit", of="firer")),
        Option("cover", "text", "the targets' cover (default: each target's Location's)", choices=COVER),
        Option("dedicated_battery", "boolean", "a dedicated battery fires (its to-hit modifier applies)"),
        Option("h_and_i", "boolean", "harassment & interdiction fire: no ammunition depletion"),
    ), group_description=ARTILLERY),
    Command("artillery response", "Does a battery answer the call for fire? One roll a turn, before it fires",
            CdArtilleryResponse, (
        Option("firer", "id", "the battery called on (a stand with an indirect-fire number)", required=True,
               suggest=Suggest("unit")),
        Option("support", "text", "whose guns answer (default: the battery's own, else organic)", choices=SUPPORT),
    ), group_description=ARTILLERY),
    Command("company near", "Declare a company within 12\" of the enemy: it must check morale this turn",
            CdCompanyNear, (
        Option("company", "id", "the company within 12\" of the enemy", required=True, suggest=Suggest("company")),
    ), group_description=COMPANY),
    Command("company waive", "Game master: waive a company's morale check due this turn (logged)", CdCompanyWaive, (
        Option("company", "id", "the company whose check is waived", required=True, suggest=Suggest("company")),
        Option("reason", "text", "why, for the log (e.g. out of sight of the eliminated company)"),
    ), group_description=COMPANY),
    Command("morale", "Take a morale check: the referee rolls and applies the result", CdMorale, (
        Option("company", "id", "the company that checks", required=True, suggest=Suggest("company")),
    ), extras="in_cover=yes afv_near=yes"),
    Command("move", "Move units into a Location, as the phase and the rules allow", CdMove, (
        Option("units", "ids", "the unit or the stack that moves: 'A1 A2 L1'", field="stands", required=True,
               suggest=Suggest("unit")),
        Option("to", "id", "the Location it enters", required=True, suggest=Suggest("location")),
    )),
    Command("orders", "Place an order on a company or stands (Command & Morale Phase)", CdGiveOrders, (
        Option("order", "text", "the order (Orders Summary)", required=True, choices=ORDERS),
        Option("company", "id", "the company it is placed on", suggest=Suggest("company")),
        Option("units", "ids", "or the stands it is placed on: 'S1 P1'", field="stands", suggest=Suggest("unit")),
    )),
    Command("rally", "A company's Rally/Regroup", CdRally, (
        Option("company", "id", "the company under a Rally/Regroup order", required=True,
               suggest=Suggest("company")),
    )),
)
