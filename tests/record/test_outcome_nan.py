"""An outcome never holds a NaN or an infinity: its only floats are a trail Step's value and total,
and the Step model refuses both (``allow_inf_nan=False``), whichever way the line is built. The
seal therefore takes an ``Outcome``'s dump as it is, with the bytes the standard library writes;
any other value (a dict) is still looked at whole, and one holding a NaN is hashed and stored as the
standard library writes it."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from pydantic import ValidationError

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.outcome import Outcome
from bot.core.step import Step
from bot.core.trail import Trail
from bot.record import GENESIS_HASH, LogEntry, consumed_dice
from bot.record.chain import sha256

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
    # a float field added to the Outcome (or its parts) fails here: it must refuse NaN too (the seal counts on it)
    assert _number_fields(Outcome.model_json_schema()) == {("Step", "value"), ("Step", "total")}
    assert Step.model_config["allow_inf_nan"] is False


def _fire() -> tuple[Outcome, list[int]]:
    resolution = resolve(scenarios.build("asl"), scenarios.asl_fire(), SeededDice(3))
    return resolution.outcome, consumed_dice(resolution.outcome)


def _seal(outcome: Outcome | dict[str, Any], dice: list[int]) -> LogEntry:
    return LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=7, time="2026-11-26T04:00:00.000+00:00", actor=1,
                         command="/fire", order=scenarios.asl_fire(), dice=dice, manual=False, outcome=outcome,
                         state_hash="ab" * 32, interaction_id=3)


def _step_dump(outcome: Outcome, at: int, field: str, value: float) -> dict[str, Any]:
    data = outcome.model_dump()
    data["trail"] = list(data["trail"])
    data["trail"][at] = {**data["trail"][at], field: value}
    return data


@pytest.mark.parametrize("field", ["value", "total"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_nan_or_infinity_in_a_step_is_refused_however_the_line_is_built(field, bad):
    with pytest.raises(ValidationError, match="finite number"):
        Step(kind="base", label="FP", **{field: bad})
    line = {"value": 1, "total": 1, field: bad}
    for build in (lambda t: t.add("base", "FP", line["value"], total=line["total"]),
                  lambda t: (t.put("base", "FP", line["value"], total=line["total"]), t.freeze())):
        # twice: a refused line is never kept in the Steps already built
        for _ in range(2):
            with pytest.raises(ValidationError, match="finite number"):
                build(Trail())
    outcome, _ = _fire()
    with pytest.raises(ValidationError, match="finite number"):
        Outcome.model_validate(_step_dump(outcome, len(outcome.trail) // 2, field, bad))


def test_an_ordinary_fire_and_one_with_a_finite_float_take_the_fast_path_with_the_bytes_of_before():
    outcome, dice = _fire()
    changed = [Outcome.model_validate(_step_dump(outcome, 1, "value", 2.5)),
               Outcome.model_validate(_step_dump(outcome, 2, "total", -0.0))]
    for odd in (outcome, *changed):
        dump = odd.model_dump(mode="json")
        entry = _seal(odd, dice)
        assert entry.outcome_json() == SORTED.encode(dump)
        assert entry.hash == _seal(dump, dice).hash == entry.expected_hash()
        body = entry.body()
        assert entry.hash == sha256(GENESIS_HASH + SORTED.encode(body))


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_an_outcome_given_as_json_with_a_nan_is_sealed_as_the_standard_library_writes_it(bad):
    outcome, dice = _fire()
    dump = outcome.model_dump(mode="json")
    dump["trail"] = [{**dump["trail"][0], "value": bad}, *dump["trail"][1:]]
    entry = _seal(dump, dice)
    assert entry.outcome_json() == SORTED.encode(dump)  # NaN / Infinity, not orjson's null
    assert "NaN" in entry.outcome_json() or "Infinity" in entry.outcome_json()
    assert entry.hash == entry.expected_hash()
