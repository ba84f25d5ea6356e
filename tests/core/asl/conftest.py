"""Shared ASL fixtures: a small builder for games with units, and a one-line order runner.

    g = asl_game(phase="PFPh").hex("B5", "woods").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    res = fire(g, [3, 4], firers=["A1"], target="B5", range=1)

Units are built straight into the Game (no set-up orders), so the tests stay fast; the orders
under test still go through ``api.resolve`` and its working copy.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.rulesets import get_ruleset
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.game import Game
from bot.core.outcome import Resolution
from bot.core.rulesets.asl.models import AslUnit


class AslBuilder:
    """Builds an ASL game: side 0 "Germans" (the ATTACKER unless told), side 1 "Russians"."""

    def __init__(self, *, phase: str = "PFPh", active_side: int = 0, variant: str = "full",
                 elr: tuple[int | None, int | None] = (3, 3), nationalities: tuple[str, str] = ("german", "russian")):
        self.game: Game = new_game("asl", sides=["Germans", "Russians"], scenario="Test", variant=variant,
                                   options={"elr": list(elr)})
        self.game.phase = phase
        self.game.active_side = active_side
        for side, nation in zip(self.game.sides, nationalities):
            side.nationality = nation

    def hex(self, loc: str, terrain: str = "open", **fields: Any) -> "AslBuilder":
        self.game.locations[loc] = get_ruleset(self.game.ruleset).new_location(id=loc, terrain=terrain, **fields)
        return self

    def unit(self, uid: str, side: int, loc: str | None, **stats: Any) -> "AslBuilder":
        if loc is not None and loc not in self.game.locations:
            self.hex(loc)
        stats.setdefault("name", uid)
        stats.setdefault("type", "custom")
        self.game.units[uid] = AslUnit(id=uid, side=side, location=loc, **stats)
        return self

    def squad(self, uid: str, side: int, loc: str | None, *, fp: int = 4, range: int = 6, morale: int = 7,
              name: str = "4-6-7", **stats: Any) -> "AslBuilder":
        stats.setdefault("broken_morale", morale + 1)
        stats.setdefault("quality", "first_line")
        return self.unit(uid, side, loc, kind="squad", name=name, fp=fp, range=range, morale=morale, **stats)

    def leader(self, uid: str, side: int, loc: str | None, *, morale: int = 8, leadership: int = -1,
               **stats: Any) -> "AslBuilder":
        name = stats.pop("name", f"{morale}{leadership:+d}".replace("+0", "-0"))
        return self.unit(uid, side, loc, kind="leader", name=name, morale=morale, leadership=leadership, **stats)

    def mg(self, uid: str, owner: str, *, sw_type: str = "LMG", fp: int = 2, range: int = 6, rof: int = 2,
           **stats: Any) -> "AslBuilder":
        holder = self.game.units[owner]
        return self.unit(uid, holder.side, holder.location, kind="sw", name=sw_type, sw_type=sw_type, fp=fp,
                         range=range, rof=rof, owner=owner, **stats)

    def set(self, uid: str, **fields: Any) -> "AslBuilder":
        for key, value in fields.items():
            setattr(self.game.units[uid], key, value)
        return self


@pytest.fixture
def asl_game():
    """Factory: ``asl_game(phase="MPh")`` -> an AslBuilder."""
    return AslBuilder


def run(game: Game, dice: list[int], **order: Any) -> Resolution:
    """Resolve one ASL order with scripted dice through the whole api path."""
    order.setdefault("action", "fire")
    return resolve(game, order, ScriptedDice(dice))


@pytest.fixture
def fire():
    """``fire(game, dice, **order)``: an ASL fire order resolved with scripted dice."""
    return run


def steps(outcome, kind: str | None = None) -> list[tuple]:
    """(label, value, total, rule) of each trail step (of one kind), for exact assertions."""
    return [(s.label, s.value, s.total, s.rule) for s in outcome.trail if kind is None or s.kind == kind]


def labels(outcome, kind: str | None = None) -> list[str]:
    return [s.label for s in outcome.trail if kind is None or s.kind == kind]
