"""ASL tables as data: the Infantry Fire Table (A7.3) and the terrain of a Location.

Both files live in ``data/asl`` and are read once, then validated by pydantic models that forbid
unknown keys, so a typo in a data file fails loudly at start-up instead of changing a result.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...data import data_path
from ...errors import InvalidOrder

DATA_DIR = data_path("asl")

# Every result the IFT can print: no effect, Pin Task Check, Normal/+n Morale Check,
# Casualty Reduction plus nMC, n units eliminated (A7.3).
IFT_RESULT = re.compile(r"^(-|PTC|NMC|[1-7]MC|K/[1-4]|[1-7]KIA)$")


class Terrain(BaseModel):
    """What the fire and rally rules read from a Location's terrain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    tem: int = Field(ge=-3, le=8)  # the TEM DRM added to fire on units in it
    open_ground: bool  # FFMO may apply (A4.6)
    rally_bonus: bool  # the -1 rally DRM (A10.61)
    hindrance: int = Field(default=0, ge=0, le=6)  # the LOS hindrance it creates itself
    blocks_los: bool = False  # an obstacle: a line of sight crossing the hex is blocked (A6.1)
    assumed: str | None = None  # the referee's reading where the digest and seeds are silent


class TerrainFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    terrains: dict[str, Terrain]

    @field_validator("terrains")
    @classmethod
    def _lowercase_keys(cls, value: dict[str, Terrain]) -> dict[str, Terrain]:
        bad = [k for k in value if k != k.casefold()]
        if bad:
            raise ValueError(f"terrain keys are lowercase: {bad}")
        if "open" not in value:
            raise ValueError("'open' (the default terrain) is required")
        return value


class IftTable(BaseModel):
    """The IFT: FP columns left to right, and for each Final DR 0..15 one result per column."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    columns: tuple[int, ...]
    rows: dict[int, tuple[str, ...]]
    assumed: tuple[str, ...] = ()  # the referee's readings of the fire rules (see the data file)

    @model_validator(mode="after")
    def _shape(self) -> "IftTable":
        if list(self.columns) != sorted(set(self.columns)) or self.columns[0] < 1:
            raise ValueError("IFT columns must be positive and strictly increasing")
        if sorted(self.rows) != list(range(16)):
            raise ValueError("the IFT has one row per Final DR from 0 to 15")
        for dr, cells in self.rows.items():
            if len(cells) != len(self.columns):
                raise ValueError(f"IFT row {dr} has {len(cells)} cells for {len(self.columns)} columns")
            for cell in cells:
                if not IFT_RESULT.match(cell):
                    raise ValueError(f"IFT row {dr}: unknown result {cell!r}")
        return self

    def column_index(self, fp: float) -> int | None:
        """Index of the rightmost column whose FP does not exceed ``fp`` (A7.2); None under 1."""
        found = None
        for i, column in enumerate(self.columns):
            if column <= fp:
                found = i
        return found

    def read(self, index: int, final_dr: int) -> str:
        """The cell at column ``index`` for ``final_dr``: below 0 reads row 0, above 15 nothing."""
        if final_dr > max(self.rows):
            return "-"
        return self.rows[max(final_dr, 0)][index]

    def label(self, index: int) -> str:
        """The column heading players read: the last column is "36+"."""
        text = str(self.columns[index])
        return text + "+" if index == len(self.columns) - 1 else text


class Stacking(BaseModel):
    """A5.1 stacking limits per side and Location (data/asl/stacking.yaml), held at the set-up."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    squads: float = Field(gt=0)
    smc: int = Field(ge=0)
    smc_kinds: tuple[str, ...]
    weights: dict[str, float]
    assumed: tuple[str, ...] = ()


class CcColumn(BaseModel):
    """One column of the Close Combat Table (A11.11): the lowest odds ratio it takes, its Kill Number."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    odds: str  # as players read it: "1:1", "3:2"
    ratio: Fraction  # attacking FP / defending FP at least this
    kill: int = Field(ge=0, le=20)

    @field_validator("ratio", mode="before")
    @classmethod
    def _fraction(cls, value: object) -> Fraction:
        return Fraction(str(value))


class CcDrm(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    value: int = Field(ge=-6, le=6)
    rule: str


class CloseCombatTable(BaseModel):
    """data/asl/close_combat.yaml: the Close Combat Table and its DRMs (A11)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    columns: tuple[CcColumn, ...]
    smc_fp: int = Field(ge=0, le=4)
    pinned_divisor: int = Field(ge=1, le=4)
    drms: dict[str, CcDrm]
    assumed: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _shape(self) -> "CloseCombatTable":
        ratios = [c.ratio for c in self.columns]
        if ratios != sorted(set(ratios)) or ratios[0] != 0:
            raise ValueError("Close Combat columns start at ratio 0 and strictly increase")
        missing = {"cx", "ambusher", "ambushed", "broken_target", "withdrawing_target", "hero",
                   "berserk"} - set(self.drms)
        if missing:
            raise ValueError(f"Close Combat DRMs missing: {sorted(missing)}")
        return self

    def column(self, attack: Fraction, defence: Fraction) -> CcColumn:
        """The highest column whose ratio the odds reach (rounded down: the defender's favour)."""
        ratio = attack / defence if defence else Fraction(10**6)
        return [c for c in self.columns if c.ratio <= ratio][-1]


def _load(name: str) -> object:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@lru_cache(maxsize=1)
def ift() -> IftTable:
    return IftTable.model_validate(_load("ift.yaml"))


@lru_cache(maxsize=1)
def close_combat() -> CloseCombatTable:
    return CloseCombatTable.model_validate(_load("close_combat.yaml"))


@lru_cache(maxsize=1)
def stacking() -> Stacking:
    return Stacking.model_validate(_load("stacking.yaml"))


@lru_cache(maxsize=1)
def _terrain_file() -> TerrainFile:
    return TerrainFile.model_validate(_load("terrain.yaml"))


def terrains() -> dict[str, Terrain]:
    """Terrain key (lowercase) -> Terrain; a copy, so callers cannot change the loaded table."""
    return dict(_terrain_file().terrains)


def terrain(key: str) -> Terrain:
    table = _terrain_file().terrains
    found = table.get(key.casefold())
    if found is None:
        raise InvalidOrder(f"unknown ASL terrain '{key}' (terrains: {', '.join(sorted(table))})",
                           field="terrain")
    return found


def terrain_rule() -> str:
    """The rule reference a TEM step cites."""
    return _terrain_file().rule
