"""The standard games the benchmarks use, built with the same set-up orders players give
(``unit_add`` from the counter libraries, ``location_set``, ``phase``), and the rolling order
each benchmark repeats. One place, so the rules, store and end-to-end figures measure the
same situation.

ASL: a fire group of three 4-6-7 squads, a 9-1 leader and an LMG in a stone building, Prep
Firing at 2 hexes on a 4-4-7, a 4-4-7 and an 8-0 in woods (15 FP, the 12 column; the morale
checks the result causes are part of every resolution).
NHiS: two Japanese rifle squads, a Type 92 HMG team and a leader firing at 2 hexes on two US
rifle squads and a US leader in the open (the Hit results' morale checks included).
CD: a German MG42 platoon (ROF 3) firing at short range on two US rifle platoons: ROF dice,
to-hit, and one hit-result roll per hit.
"""

from __future__ import annotations

from typing import Any

from bench import common  # noqa: F401  (puts the checkout on sys.path)
from bot.core.api import new_game, resolve
from bot.core.game import Game

Order = dict[str, Any]


def _unit(uid: str, type_name: str, side: int, location: str, **stats: Any) -> Order:
    order: Order = {"action": "unit_add", "id": uid, "type": type_name, "side": side, "location": location}
    if stats:
        order["stats"] = stats
    return order


def asl_setup(prefix: str = "", firers_at: str = "A1", target_at: str = "B3") -> list[Order]:
    """One ASL fire group and its target stack; ``prefix`` names a second, third ... group."""
    p = prefix
    return [
        {"action": "location_set", "location": firers_at, "terrain": "stone building"},
        {"action": "location_set", "location": target_at, "terrain": "woods"},
        _unit(f"{p}G1", "ger-467", 0, firers_at), _unit(f"{p}G2", "ger-467", 0, firers_at),
        _unit(f"{p}G3", "ger-467", 0, firers_at), _unit(f"{p}GL", "ger-9-1", 0, firers_at),
        _unit(f"{p}MG", "ger-lmg", 0, firers_at),
        {"action": "unit_edit", "unit": f"{p}MG", "changes": {"owner": f"{p}G1"}},
        _unit(f"{p}R1", "rus-447", 1, target_at), _unit(f"{p}R2", "rus-447", 1, target_at),
        _unit(f"{p}RL", "rus-8-0", 1, target_at),
        {"action": "phase", "to": "PFPh"},  # the ATTACKER's Prep Fire Phase, turn 1 (A3.3)
    ]


def asl_fire(prefix: str = "", target_at: str = "B3") -> Order:
    p = prefix
    return {"action": "fire", "firers": [f"{p}G1", f"{p}G2", f"{p}G3", f"{p}MG"], "leader": f"{p}GL",
            "target": target_at, "range": 2}


def asl_morale() -> Order:
    """A Normal Morale Check of one squad with its leader in the Location (A10.1, A10.7)."""
    return {"action": "morale", "unit": "G2", "check": "NMC"}


def nhis_setup() -> list[Order]:
    return [
        _unit("J1", "jp-rifle-squad", 0, "A4"), _unit("J2", "jp-rifle-squad", 0, "A4"),
        _unit("JM", "jp-type92-hmg", 0, "A4"), _unit("JL", "jp-leader", 0, "A4"),
        _unit("U1", "us-rifle-squad", 1, "C4"), _unit("U2", "us-rifle-squad", 1, "C4"),
        _unit("UL", "us-leader", 1, "C4"),
        {"action": "phase", "to": "Operations"},
    ]


def nhis_fire() -> Order:
    return {"action": "fire", "firers": ["J1", "J2", "JM"], "target": "C4", "range": 2}


def cd_setup() -> list[Order]:
    return [
        _unit("MG", "ger-mg42", 1, "W1"),
        _unit("P1", "us-rifle", 0, "E1", company="Able"), _unit("P2", "us-rifle", 0, "E1", company="Able"),
        {"action": "phase", "to": "GeneralFire"},
    ]


def cd_fire() -> Order:
    return {"action": "fire", "firer": "MG", "targets": ["P1", "P2"], "range_band": "short"}


RULESETS = {
    "asl": (["Germans", "Russians"], asl_setup, asl_fire),
    "nhis": (["Japan", "US"], nhis_setup, nhis_fire),
    "cd": (["Americans", "Germans"], cd_setup, cd_fire),
}


def game_options(ruleset: str) -> dict[str, Any] | None:
    """The scenario's options: ASL ELR 3 for both sides (A19.1)."""
    return {"elr": [3, 3]} if ruleset == "asl" else None


def bot_game_options(ruleset: str) -> dict[str, Any] | None:
    """The options of the standard game created through the bot (a game the bot creates reads its map:
    bot/core/grid.py): its ranges are typed as above and trusted (A1 to B3 is three hexes on an ASL board,
    the standard fire is at 2), its line of sight not read, so every benchmark measures the same fire."""
    if ruleset != "asl":
        return game_options(ruleset)
    return {**(game_options(ruleset) or {}), "typed_range": "trust", "los": "off"}


def build(ruleset: str, orders: list[Order] | None = None) -> Game:
    """The standard game of ``ruleset`` (or one made of ``orders``), through ``api.resolve``."""
    sides, setup, _ = RULESETS[ruleset]
    game = new_game(ruleset, sides=sides, scenario="benchmark", options=game_options(ruleset))
    for order in orders if orders is not None else setup():
        game = resolve(game, order).game
    return game
