"""The seal looks for a NaN or an infinity in an outcome only where its schema lets a float be
(issue 14: the whole outcome's walk was ~20 us of a /fire's seal). Wherever an outcome can carry
one, it is still found, and the entry is hashed and stored as the standard library writes it;
for any model, the schema's check says what the whole walk says."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_serializer

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.outcome import Outcome
from bot.record import GENESIS_HASH, LogEntry, consumed_dice
from bot.record.chain import _finite, sha256, suspect_of

SORTED = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
BAD = (math.nan, math.inf, -math.inf)


def _number_fields(schema: dict[str, Any]) -> set[tuple[str, str]]:
    """(model, field) of every property of a JSON schema that may be a number (a float)."""
    found = set()
    for name, model in {**schema.get("$defs", {}), schema["title"]: schema}.items():
        for field, prop in model.get("properties", {}).items():
            kinds = [prop, *prop.get("anyOf", ()), *prop.get("oneOf", ())]
            items = [k.get("items", {}) for k in kinds if isinstance(k.get("items"), dict)]
            if any(k.get("type") == "number" for k in kinds + items):
                found.add((name, field))
    return found


def test_an_outcome_holds_a_float_only_in_a_steps_value_and_total():
    # a float field added to the Outcome (or its parts) fails here: add its places to the test below
    assert _number_fields(Outcome.model_json_schema()) == {("Step", "value"), ("Step", "total")}


def _fire() -> tuple[Outcome, list[int]]:
    resolution = resolve(scenarios.build("asl"), scenarios.asl_fire(), SeededDice(3))
    return resolution.outcome, consumed_dice(resolution.outcome)


def _seal(outcome: Outcome | dict[str, Any], dice: list[int]) -> LogEntry:
    return LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=7, time="2026-11-26T04:00:00.000+00:00", actor=1,
                         command="/fire", order=scenarios.asl_fire(), dice=dice, manual=False, outcome=outcome,
                         state_hash="ab" * 32, interaction_id=3)


def _with_step(outcome: Outcome, at: int, field: str, value: float) -> Outcome:
    data = outcome.model_dump()
    data["trail"] = list(data["trail"])
    data["trail"][at] = {**data["trail"][at], field: value}
    changed = Outcome.model_validate(data)
    assert isinstance(getattr(changed.trail[at], field), float)  # the union kept it a float
    return changed


@pytest.mark.parametrize("field", ["value", "total"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_nan_or_infinity_in_any_step_of_a_fire_is_found_and_sealed_as_the_standard_library_writes_it(field, bad):
    outcome, dice = _fire()
    for at in (0, len(outcome.trail) // 2, len(outcome.trail) - 1):
        odd = _with_step(outcome, at, field, bad)
        dump = odd.model_dump(mode="json")
        assert suspect_of(Outcome)(dump) and not _finite(dump)
        entry = _seal(odd, dice)
        assert entry.outcome == dump
        assert entry.outcome_json() == SORTED.encode(dump)  # NaN / Infinity, not orjson's null
        assert "NaN" in entry.outcome_json() or "Infinity" in entry.outcome_json()
        assert entry.hash == entry.expected_hash() == _seal(dump, dice).hash


def test_an_ordinary_fire_and_one_with_a_finite_float_take_the_fast_path_with_the_bytes_of_before():
    outcome, dice = _fire()
    for odd in (outcome, _with_step(outcome, 1, "value", 2.5), _with_step(outcome, 2, "total", -0.0)):
        dump = odd.model_dump(mode="json")
        assert not suspect_of(Outcome)(dump)
        entry = _seal(odd, dice)
        assert entry.outcome_json() == SORTED.encode(dump)
        assert entry.hash == _seal(dump, dice).hash == entry.expected_hash()
        body = entry.body()
        assert entry.hash == sha256(GENESIS_HASH + SORTED.encode(body))


# --- any model: the schema's check says what the whole walk says ---

class Inner(BaseModel):
    x: float = 0.0
    label: str = ""
    n: int | float | None = None


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    y: int = 0


class Wide(BaseModel):
    a: float = 0.0
    b: float | None = None
    inner: Inner = Inner()
    inners: list[Inner] = []
    tup: tuple[Inner, ...] = ()
    pair: tuple[float, str] = (0.0, "")
    by_key: dict[str, float] = {}
    nested: dict[str, list[Inner]] = {}
    either: Inner | float | None = None
    anything: Any = None
    loose: Loose = Loose()
    text: str = ""
    aliased: float = Field(default=0.0, serialization_alias="other")

    @field_serializer("text")
    def _text(self, value: str) -> float | str:
        return float(value) if value in ("nan", "inf", "1.5") else value

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ratio(self) -> float:
        return self.a * 2


floats = st.floats() | st.sampled_from(BAD)
inners = st.builds(Inner, x=floats, label=st.text(max_size=3), n=st.none() | st.integers() | floats)


@settings(max_examples=400, deadline=None)
@given(st.builds(Wide, a=floats, b=st.none() | floats, inner=inners, inners=st.lists(inners, max_size=3),
                 tup=st.lists(inners, max_size=3).map(tuple), pair=st.tuples(floats, st.text(max_size=2)),
                 by_key=st.dictionaries(st.text(max_size=2), floats, max_size=3),
                 nested=st.dictionaries(st.text(max_size=2), st.lists(inners, max_size=2), max_size=2),
                 either=st.none() | floats | inners, anything=st.none() | floats | st.lists(floats, max_size=2),
                 loose=st.builds(Loose, y=st.integers(), z=floats),
                 text=st.sampled_from(["", "nan", "inf", "1.5", "x"]),
                 aliased=floats))
def test_for_any_model_the_schemas_check_finds_what_the_whole_walk_finds(model):
    for dump in (model.model_dump(mode="json"), model.model_dump(mode="json", by_alias=True)):
        assert suspect_of(Wide)(dump) is (not _finite(dump))


def test_a_model_without_a_float_is_never_suspect_and_one_in_each_place_is_found():
    class Plain(BaseModel):
        name: str
        counts: list[int] = []
        extra: dict[str, Any] = {}

    assert suspect_of(Plain)(Plain(name="x", counts=[1], extra={"v": math.nan}).model_dump(mode="json")) is False
    for place in ({"a": math.nan}, {"inner": Inner(x=math.inf)}, {"inners": [Inner(), Inner(n=-math.inf)]},
                  {"by_key": {"k": math.nan}}, {"nested": {"k": [Inner(x=math.nan)]}}, {"either": math.inf},
                  {"either": Inner(x=math.nan)}, {"pair": (math.nan, "")},
                  {"text": "nan"}, {"aliased": math.inf}):
        dump = Wide(**place).model_dump(mode="json")
        assert suspect_of(Wide)(dump), place
