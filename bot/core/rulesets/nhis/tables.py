"""No Honor in Surrender tables as data (``data/nhis``): the Fire Table and its modifiers, the
terrain chart, the counter library, and the morale / damage / rally / turn procedures.

Each file is read once and validated by pydantic models that forbid unknown keys, so a typo in a
data file fails loudly at start-up instead of quietly changing a result.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...data import data_path
from ...errors import InvalidOrder

DATA_DIR = data_path("nhis")

FIRE_RESULT = re.compile(r"^(-|Hit|Hit-[1-6]|D|D-[23])$")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- the Fire Table -------------------------------------------------------------------------

class FireModifiers(_Strict):
    moving_target: int
    adjacent: int
    charging_firer: int
    beyond_visibility: int
    long_range_divisor: int = Field(ge=2)
    max_range_multiple: int = Field(ge=1)


class FireShifts(_Strict):
    terrain: int = Field(ge=0)
    infantry_vs_tank: int = Field(ge=0)


class FireTable(_Strict):
    rule: str
    modifier_rule: str
    columns: tuple[int, ...]
    rolls: tuple[int, ...]
    no_effect_roll: int
    cells: dict[int, tuple[str, ...]]
    strength: tuple[str, ...]
    modifiers: FireModifiers
    shifts: FireShifts
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _shape(self) -> "FireTable":
        if list(self.columns) != sorted(set(self.columns)) or self.columns[0] != 0:
            raise ValueError("Fire Table columns start at 0 and strictly increase")
        if list(self.rolls) != list(range(2, 12)) or self.no_effect_roll != 12:
            raise ValueError("the Fire Table reads 2d6 rolls 2 to 11; 12 is no effect")
        if sorted(self.cells) != sorted(self.columns):
            raise ValueError("the Fire Table has one line of cells per FP column")
        for fp, line in self.cells.items():
            if len(line) != len(self.rolls):
                raise ValueError(f"FP {fp}: {len(line)} cells for {len(self.rolls)} rolls")
            for cell in line:
                if not FIRE_RESULT.match(cell) or cell not in self.strength:
                    raise ValueError(f"FP {fp}: unknown result {cell!r}")
        return self

    def column_index(self, fp: int) -> int | None:
        """Index of the highest column not above ``fp``; None below 0 (no effect)."""
        found = None
        for i, column in enumerate(self.columns):
            if column <= fp:
                found = i
        return found

    def read(self, index: int, roll: int) -> str:
        """The cell for column ``index`` and a 2d6 total; 12 reads no effect."""
        if roll == self.no_effect_roll:
            return "-"
        return self.cells[self.columns[index]][self.rolls.index(roll)]

    def rank(self, result: str) -> int:
        """How strong a result is for the firer (0 = no effect)."""
        return self.strength.index(result)


# --- terrain -------------------------------------------------------------------------------

class Terrain(_Strict):
    name: str
    mp: int = Field(ge=1)
    mp_japanese: int | None = None
    cover: int = Field(ge=0)
    blocks_los: bool = False
    fire_shift: bool = False  # in the list of hexes that shift fire two columns left
    negates_moving_bonus: bool = False  # Brush
    assumed: str | None = None


class Feature(_Strict):
    name: str
    cover: int = Field(ge=0)
    from_lower_only: bool = False  # hill: counts only when fired on from lower ground
    replaces_cover: bool = False  # bunker: its cover instead of everything else
    fire_shift: bool = False
    assumed: str | None = None


class TerrainFile(_Strict):
    rule: str
    default: str
    terrains: dict[str, Terrain]
    features: dict[str, Feature]

    @model_validator(mode="after")
    def _keys(self) -> "TerrainFile":
        keys = list(self.terrains) + list(self.features)
        if any(k != k.casefold() for k in keys):
            raise ValueError("terrain and feature keys are lowercase")
        if self.default not in self.terrains:
            raise ValueError(f"the default terrain '{self.default}' is not in the chart")
        return self


# --- counters and procedures -----------------------------------------------------------------

class CounterFile(_Strict):
    assumed: str
    types: dict[str, dict[str, Any]]  # validated as NhisUnit fields by counter_types()


class Procedure(_Strict):
    rule: str
    phase: str | None = None  # the only phase the action is allowed in
    assumed: tuple[str, ...] = ()


class Turn(_Strict):
    rule: str
    phases: tuple[str, ...]
    fire_phase: str
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _known(self) -> "Turn":
        if self.fire_phase not in self.phases:
            raise ValueError(f"fire_phase '{self.fire_phase}' is not one of the phases")
        return self


class Stacking(_Strict):
    rule: str
    units: int = Field(ge=1)  # squads, weapon teams and tanks per hex and side
    leaders: int = Field(ge=0)
    assumed: tuple[str, ...] = ()


class RulesFile(_Strict):
    morale: Procedure
    damage: Procedure
    rally: Procedure
    turn: Turn
    stacking: Stacking
    activation: Procedure  # what one impulse activates (activation.py)


def _load(name: str) -> Any:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@lru_cache(maxsize=1)
def fire_table() -> FireTable:
    return FireTable.model_validate(_load("fire_table.yaml"))


@lru_cache(maxsize=1)
def terrain_file() -> TerrainFile:
    return TerrainFile.model_validate(_load("terrain.yaml"))


@lru_cache(maxsize=1)
def rules() -> RulesFile:
    return RulesFile.model_validate(_load("rules.yaml"))


def validate_counters(raw: Any) -> CounterFile:
    """The counter file, each type checked by building a unit from it (the unit model forbids
    unknown fields, so a misspelt number fails here rather than at /unit add)."""
    from .models import NhisUnit

    data = CounterFile.model_validate(raw)
    for key, fields in data.types.items():
        NhisUnit.model_validate({**fields, "id": "x", "type": key, "side": 0})
    return data


@lru_cache(maxsize=1)
def _counter_file() -> CounterFile:
    return validate_counters(_load("counters.yaml"))


def counter_types() -> dict[str, dict[str, Any]]:
    return {k: dict(v) for k, v in _counter_file().types.items()}


def terrain(key: str) -> Terrain:
    table = terrain_file().terrains
    found = table.get(key.casefold())
    if found is None:
        raise InvalidOrder(f"unknown NHiS terrain '{key}' (terrains: {', '.join(sorted(table))})",
                           field="terrain")
    return found
