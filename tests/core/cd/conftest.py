"""Shared CD fixtures: a small game builder and a one-line order runner.

    g = cd_game().stand("S1", 0, kind="afv", ...).stand("P1", 1).game
    res = run(g, [3, 7], firer="S1", targets=["P1"], range_band="short")

Stands are built straight into the Game (no set-up orders) to keep the tests fast; the orders
under test go through ``api.resolve`` and its working copy.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.game import Game
from bot.core.outcome import Resolution
from bot.core.rulesets.cd.models import CdStand


class CdBuilder:
    """Side 0 "Americans", side 1 "Germans"; the General Fire phase of turn 1 unless told."""

    def __init__(self, *, phase: str = "GeneralFire", turn: int = 1, **options: Any):
        self.game: Game = new_game("cd", sides=["Americans", "Germans"], scenario="Test", options=options)
        self.game.phase = phase
        self.game.turn = turn

    def stand(self, uid: str, side: int, **stats: Any) -> "CdBuilder":
        stats.setdefault("name", uid)
        stats.setdefault("type", "custom")
        stats.setdefault("weapon_class", "S")
        stats.setdefault("to_hit", {"short": 6, "medium": 4})
        self.game.units[uid] = CdStand(id=uid, side=side, location="X", **stats)
        return self

    def set(self, uid: str, **fields: Any) -> "CdBuilder":
        for key, value in fields.items():
            setattr(self.game.units[uid], key, value)
        return self


@pytest.fixture
def cd_game():
    return CdBuilder


def run(game: Game, dice: list[int], **order: Any) -> Resolution:
    """Resolve one CD order with scripted dice through the whole api path (fire unless told)."""
    order.setdefault("action", "fire")
    if order["action"] == "fire":
        order.setdefault("range_band", "short")
    return resolve(game, order, ScriptedDice(dice))


def steps(outcome, kind: str | None = None) -> list[tuple]:
    """(label, value, total, rule) of each trail step (of one kind), for exact assertions."""
    return [(s.label, s.value, s.total, s.rule) for s in outcome.trail if kind is None or s.kind == kind]


def labels(outcome, kind: str | None = None) -> list[str]:
    return [s.label for s in outcome.trail if kind is None or s.kind == kind]


def modifiers(outcome) -> list[tuple]:
    """(label, value, rule) of each modifier step."""
    return [(s.label, s.value, s.rule) for s in outcome.trail if s.kind == "modifier"]
