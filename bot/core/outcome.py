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


def fire_outcome(ruleset: str, action: str, headline: str, actor_side: int | None, trail: tuple[Step, ...],
                 cells: tuple[TableCell, ...], effects: tuple[UnitEffect, ...]) -> Outcome:
    """``Outcome(ruleset=..., ..., effects=...)``, the other fields left to their defaults."""
    return Outcome(ruleset=ruleset, action=action, headline=headline, actor_side=actor_side, trail=trail,
                   cells=cells, effects=effects)


def table_cell(table: str, column: str, row: str, result: str, rule: str | None) -> TableCell:
    """``TableCell(...)`` with every field given."""
    return TableCell(table=table, column=column, row=row, result=result, rule=rule)


def with_dice(outcome: Outcome, rolls: tuple[Roll, ...], manual_dice: bool, unused_dice: tuple[int, ...]) -> Outcome:
    """The outcome with the dice the order used (api.resolve, once per order): its copy with the
    three fields updated (added to its fields-set, nothing validated)."""
    return outcome.model_copy(update={"rolls": rolls, "manual_dice": manual_dice, "unused_dice": unused_dice})
