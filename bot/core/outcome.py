"""The result of one action: an immutable tree that the renderer and the log both read.

Nothing downstream recomputes an Outcome: the embed, the log entry, the exports and the
replays all read this object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from .built import all_of, built, plain_strs
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


_OUTCOME_GIVEN = ("ruleset", "action", "headline", "actor_side", "trail", "cells", "effects")


def fire_outcome(ruleset: str, action: str, headline: str, actor_side: int | None, trail: tuple[Step, ...],
                 cells: tuple[TableCell, ...], effects: tuple[UnitEffect, ...]) -> Outcome:
    """``Outcome(ruleset=..., ..., effects=...)``, the other fields left to their defaults; built
    directly (built.py) when validation would keep every value as it is: the trail, cells and
    effects tuples of exactly those models (frozen, built or validated already), plain strings."""
    if (type(ruleset) is str and type(action) is str and type(headline) is str
            and (actor_side is None or type(actor_side) is int)
            and type(trail) is tuple and all_of(trail, Step)
            and type(cells) is tuple and all_of(cells, TableCell)
            and type(effects) is tuple and all_of(effects, UnitEffect)):
        return built(Outcome, {"ruleset": ruleset, "action": action, "headline": headline,
                               "actor_side": actor_side, "rolls": (), "trail": trail, "cells": cells,
                               "effects": effects, "manual_dice": False, "unused_dice": ()}, _OUTCOME_GIVEN)
    return Outcome(ruleset=ruleset, action=action, headline=headline, actor_side=actor_side, trail=trail,
                   cells=cells, effects=effects)


def table_cell(table: str, column: str, row: str, result: str, rule: str | None) -> TableCell:
    """``TableCell(...)`` with every field given, built directly when the values are plain strings."""
    if plain_strs((table, column, row, result)) and (rule is None or type(rule) is str):
        return built(TableCell, {"table": table, "column": column, "row": row, "result": result, "rule": rule})
    return TableCell(table=table, column=column, row=row, result=result, rule=rule)


_DICE_FIELDS = ("rolls", "manual_dice", "unused_dice")


def with_dice(outcome: Outcome, rolls: tuple[Roll, ...], manual_dice: bool, unused_dice: tuple[int, ...]) -> Outcome:
    """``outcome.model_copy(update={"rolls": ..., "manual_dice": ..., "unused_dice": ...})``: the
    same instance pydantic's copy makes (``__dict__`` in the same order, the three fields added to
    the fields-set, nothing validated), without its generic copy and update path; api.resolve
    calls it once per order."""
    fields = outcome.__dict__.copy()
    fields["rolls"], fields["manual_dice"], fields["unused_dice"] = rolls, manual_dice, unused_dice
    # an Outcome forbids extra fields and has no private ones: ``built`` sets both to None
    return built(type(outcome), fields, given=tuple(outcome.__pydantic_fields_set__.union(_DICE_FIELDS)))
