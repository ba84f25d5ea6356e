"""Trail.add builds a Step directly when validation would keep every value as it is; the result
must be the Step that validation gives, and anything else must still go through validation."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from bot.core.trail import Step, Trail

FIELDS = {"kind": "modifier", "label": "leadership of 9-1 GL", "value": -1, "total": None, "rule": "A7.53",
          "unit": "GL"}
CASES = [
    FIELDS,
    {**FIELDS, "value": 0.5, "total": 7.5},
    {**FIELDS, "value": "x1/2", "total": 6},
    {**FIELDS, "kind": "section", "value": None, "rule": None, "unit": None},
    {**FIELDS, "value": True},  # validation turns a bool into 1: the validated path
    {**FIELDS, "total": False},
]


@pytest.mark.parametrize("fields", CASES, ids=lambda f: f"{f['kind']}-{f['value']!r}-{f['total']!r}")
def test_a_step_added_is_the_validated_step(fields):
    built = Trail().add(**fields)
    validated = Step(**fields)
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set
    assert [type(getattr(built, k)) for k in fields] == [type(getattr(validated, k)) for k in fields]
    assert hash(built) == hash(validated)


@pytest.mark.parametrize("given, kept", [({"value": True}, 1), ({"value": Fraction(1, 2)}, 0.5),
                                         ({"total": "7"}, 7)])
def test_values_validation_converts_are_still_converted(given, kept):
    step = Trail().add(**{**FIELDS, **given})
    (name,) = given
    assert getattr(step, name) == kept and type(getattr(step, name)) is type(kept)
    assert step == Step(**{**FIELDS, **given})


@pytest.mark.parametrize("bad", [{"kind": "roll"}, {"label": 3}, {"value": [1]}])
def test_what_validation_refuses_is_still_refused(bad):
    with pytest.raises(ValidationError):
        Trail().add(**{**FIELDS, **bad})


def test_a_step_built_directly_is_frozen():
    step = Trail().add(**FIELDS)
    with pytest.raises(ValidationError):
        step.value = 2  # type: ignore[misc]
