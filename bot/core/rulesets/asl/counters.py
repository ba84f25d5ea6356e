"""The ASL counter library (``data/asl/counters.yaml``): counter type -> the printed numbers.

Read once and validated with a model that forbids unknown keys; every ``reduces_to`` and
``replaced_by`` must name another entry, so Casualty Reduction and ELR replacement always find
the counter they need.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...data import data_path
from .models import AslKind, Quality

DATA_FILE = data_path("asl", "counters.yaml")


class CounterType(BaseModel):
    """One counter as printed. Fields mirror AslUnit's so an entry builds a unit directly."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: AslKind
    nationality: str
    name: str
    fp: int = Field(default=0, ge=0, le=36)
    range: int = Field(default=0, ge=0, le=30)
    morale: int = Field(default=0, ge=0, le=10)
    broken_morale: int | None = Field(default=None, ge=1, le=10)
    quality: Quality | None = None
    fp_underlined: bool = False
    morale_underlined: bool = False
    leadership: int = Field(default=0, ge=-3, le=2)
    reduces_to: str | None = None
    replaced_by: str | None = None
    sw_type: str | None = None
    rof: int = Field(default=0, ge=0, le=4)
    breakdown: int | None = Field(default=None, ge=2, le=12)
    removal: int | None = Field(default=None, ge=2, le=12)
    portage: int = Field(default=0, ge=0, le=10)
    assumed: str | None = None  # where the value is the referee's reading, not a checked counter

    @model_validator(mode="after")
    def _consistent(self) -> "CounterType":
        if self.kind == "sw":
            if not self.sw_type:
                raise ValueError("a support weapon needs its sw_type")
        elif self.morale < 1:
            raise ValueError("personnel need a morale")
        if self.reduces_to and self.kind != "squad":
            raise ValueError("only a squad reduces to a half-squad (A7.302)")
        return self


class CounterFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    assumed: tuple[str, ...] = ()
    counters: dict[str, CounterType]

    @field_validator("counters")
    @classmethod
    def _lowercase_keys(cls, value: dict[str, CounterType]) -> dict[str, CounterType]:
        bad = [k for k in value if k != k.casefold()]
        if bad:
            raise ValueError(f"counter types are lowercase: {bad}")
        return value

    @model_validator(mode="after")
    def _references(self) -> "CounterFile":
        for key, entry in self.counters.items():
            for field in ("reduces_to", "replaced_by"):
                target = getattr(entry, field)
                if target is not None and target not in self.counters:
                    raise ValueError(f"{key}.{field} names '{target}', which is not in the library")
            if entry.reduces_to and self.counters[entry.reduces_to].kind != "half-squad":
                raise ValueError(f"{key}.reduces_to must be a half-squad")
        return self


@lru_cache(maxsize=1)
def library() -> CounterFile:
    with open(DATA_FILE, encoding="utf-8") as fh:
        return CounterFile.model_validate(yaml.safe_load(fh))


def counter_types() -> dict[str, dict[str, Any]]:
    """Type name -> the unit fields (fresh dicts, so callers cannot change the loaded library)."""
    return {key: entry.model_dump(exclude={"assumed"}) for key, entry in library().counters.items()}


def counter_type(key: str) -> CounterType | None:
    return library().counters.get(key.casefold())


@cache
def _printed_fields(key: str) -> tuple[tuple[str, Any], ...]:
    # the dump of one library entry, made once: Casualty Reduction and ELR replacement build a
    # unit from it in the middle of a fire resolution (every value is a plain int, str, bool or None)
    entry = library().counters[key]
    return tuple(entry.model_dump(exclude={"assumed"}).items())


def unit_fields(key: str) -> dict[str, Any] | None:
    """The unit fields of the library type ``key`` (``counter_type(key).model_dump(exclude={"assumed"})``,
    a fresh dict the caller may change), or None when the library has no such type."""
    folded = key.casefold()
    if folded not in library().counters:
        return None
    return dict(_printed_fields(folded))
