"""The result of one action: an immutable tree that the renderer and the log both read.

Nothing downstream recomputes an Outcome: the embed, the log entry, the exports and the
replays all read this object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from .dice import Roll
from .trail import Step

if TYPE_CHECKING:
    from .game import Game


class TableCell(BaseModel):
    """A cell read from a table: which table, which column and row, what it said."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: str
    column: str
    row: str
    result: str
    rule: str | None = None


class UnitEffect(BaseModel):
    """What an action did to one unit (or weapon)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: str  # the unit's id in the game
    name: str  # what players call it, e.g. "4-6-7 A"
    side: int | None = None
    before: str = ""  # status before, e.g. "Good Order"
    after: str = ""  # status after, e.g. "broken, DM"
    effects: tuple[str, ...] = ()  # e.g. ("pinned",), ("reduced", "shaken"), ("eliminated",)


class Outcome(BaseModel):
    """Dice, the ordered trail, table cells read, and effects on each unit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ruleset: str
    action: str
    headline: str  # one line: "8 FP (IFT 8 column) vs A5: DR 6 -> 1MC"
    actor_side: int | None = None
    rolls: tuple[Roll, ...] = ()
    trail: tuple[Step, ...] = ()
    cells: tuple[TableCell, ...] = ()
    effects: tuple[UnitEffect, ...] = ()
    manual_dice: bool = False
    unused_dice: tuple[int, ...] = ()  # manual dice given but not needed: shown, never hidden


@dataclass(frozen=True)
class Resolution:
    """An Outcome and the game state after it; the store saves both in one transaction."""

    outcome: Outcome
    game: "Game"
