"""Helpers for the odds tests: the standard worst case, and brute force through the real resolver.

``brute_force`` runs ``bot.core.api.resolve`` with ``ScriptedDice`` over every dice sequence,
one die at a time: a sequence that runs out is extended by each face of the die asked for, so
every leaf is a complete resolution with probability 1/6 (or 1/10) per die.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from bot.core.rulesets import get_ruleset
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.core.odds.enumerate import Leaf, tally
from bot.core.odds.generic import snapshot
from bot.core.rulesets.asl.ruleset import RULESET

NEXT_DIE = re.compile(r"the next one is a d(\d+)")


def brute_force(game: Game, order: dict[str, Any]) -> list[Leaf]:
    found: list[Leaf] = []
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        dice, p = stack.pop()
        try:
            res = resolve(game, order, ScriptedDice(dice))
        except InvalidOrder as exc:
            match = NEXT_DIE.search(exc.message)
            if exc.field != "dice" or match is None:
                raise
            sides = int(match.group(1))
            stack += [(dice + [v], p / sides) for v in range(1, sides + 1)]
            continue
        found.append(Leaf(p, res.outcome, res.game))
    return found


def tallied(game: Game, found: list[Leaf], subjects: list[str]) -> tuple[dict, dict, Fraction]:
    """unit -> end-state distribution, unit -> P(breaks), P(at least one breaks), over leaves
    found by brute force through the real resolver (the enumerator's own tally classifies them)."""
    _, states, broke, any_breaks, _ = tally(game, iter(found), subjects, snapshot, lambda leaf: "")
    return states, broke, any_breaks


def report_states(report) -> tuple[dict, dict, Fraction]:
    states = {u.unit: {k: c.p for k, c in u.states.items()} for u in report.units}
    broke = {u.unit: u.breaks.p for u in report.units}
    return states, broke, report.at_least_one_breaks.p


def add(game: Game, type_name: str, uid: str, side: int, location: str, **fields: Any) -> None:
    unit = RULESET.make_unit(type_name, id=uid, side=side, location=location)
    for key, value in fields.items():
        setattr(unit, key, value)
    game.units[uid] = unit


def standard_game(*, elr: tuple[int, int] = (3, 2)) -> tuple[Game, dict[str, Any]]:
    """The worst standard case of issue 5: three 5-4-8s, a 9-2 and an MMG (40 FP at point blank,
    the IFT 36+ column) against three 4-4-7s with an 8-1 in a stone building."""
    game = new_game("asl", sides=["Germans", "Russians"], variant="full", options={"elr": list(elr)})
    game.phase = "PFPh"
    game.sides[0].nationality, game.sides[1].nationality = "german", "russian"
    game.locations["A1"] = get_ruleset(game.ruleset).new_location(id="A1", terrain="open")
    game.locations["B1"] = get_ruleset(game.ruleset).new_location(id="B1", terrain="stone building")
    for i in range(3):
        add(game, "ger-548", f"G{i}", 0, "A1")
    add(game, "ger-9-2", "GL", 0, "A1")
    add(game, "ger-mmg", "MG", 0, "A1", owner="G0")
    for i in range(3):
        add(game, "rus-447", f"R{i}", 1, "B1")
    add(game, "rus-8-1", "RL", 1, "B1")
    order = {"action": "fire", "firers": ["G0", "G1", "G2", "MG", "GL"], "target": "B1", "range": 1}
    return game, order
