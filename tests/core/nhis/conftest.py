"""Shared NHiS fixtures: a small game builder and one-line order runners.

    g = nhis_game().hex("B1", "trees").squad("U1", 0, "A1").squad("J1", 1, "B1").game
    res = fire(g, [3, 4], firers=["U1"], target="B1", range=2)

Units are built straight into the Game (no set-up orders) so the tests stay fast; the orders
under test go through ``api.resolve`` and its working copy. Side 0 is "US", side 1 "Japan".
"""

from __future__ import annotations

from typing import Any

from bot.core.rulesets import get_ruleset
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.game import Game
from bot.core.outcome import Resolution
from bot.core.rulesets.nhis.models import NhisUnit


class NhisBuilder:
    def __init__(self, *, phase: str = "Operations"):
        self.game: Game = new_game("nhis", sides=["US", "Japan"], scenario="Test")
        self.game.phase = phase

    def hex(self, loc: str, terrain: str = "open", *features: str) -> "NhisBuilder":
        self.game.locations[loc] = get_ruleset(self.game.ruleset).new_location(id=loc, terrain=terrain, features=list(features))
        return self

    def unit(self, uid: str, side: int, loc: str | None, kind: str, **stats: Any) -> "NhisBuilder":
        if loc is not None and loc not in self.game.locations:
            self.hex(loc)
        stats.setdefault("name", kind)
        self.game.units[uid] = NhisUnit(id=uid, type="custom", side=side, location=loc, kind=kind, **stats)
        return self

    def squad(self, uid: str, side: int, loc: str | None, *, fp: int = 4, range: int = 5, morale: int = 5,
              **stats: Any) -> "NhisBuilder":
        return self.unit(uid, side, loc, "squad", fp=fp, range=range, morale=morale, **stats)

    def leader(self, uid: str, side: int, loc: str | None, *, morale: int = 5, leadership: int = 1,
               **stats: Any) -> "NhisBuilder":
        return self.unit(uid, side, loc, "leader", morale=morale, leadership=leadership, **stats)

    def tank(self, uid: str, side: int, loc: str | None, *, fp: int = 4, range: int = 8, morale: int = 5,
             **stats: Any) -> "NhisBuilder":
        return self.unit(uid, side, loc, "tank", fp=fp, range=range, morale=morale, shakeable=False, **stats)


def nhis_game(**kwargs: Any) -> NhisBuilder:
    return NhisBuilder(**kwargs)


def act(game: Game, dice: list[int], order: dict[str, Any]) -> Resolution:
    return resolve(game, order, ScriptedDice(dice))


def fire(game: Game, dice: list[int], **order: Any) -> Resolution:
    return act(game, dice, {"action": "fire", **order})


def labels(res: Resolution, kind: str | None = None) -> list[str]:
    return [s.label for s in res.outcome.trail if kind is None or s.kind == kind]


def step(res: Resolution, label_start: str):
    """The one trail step whose label starts with ``label_start``."""
    found = [s for s in res.outcome.trail if s.label.startswith(label_start)]
    assert len(found) == 1, f"{label_start!r}: {[s.label for s in res.outcome.trail]}"
    return found[0]


def effects(res: Resolution) -> dict[str, tuple[str, ...]]:
    return {e.unit: e.effects for e in res.outcome.effects}
