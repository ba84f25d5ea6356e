"""The ASL counter library (data/asl/counters.yaml): every entry builds a unit, every reference
points somewhere, and a bad file fails loudly."""

import pytest
from pydantic import ValidationError

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.rulesets.asl import RULESET
from bot.core.rulesets.asl.counters import CounterFile, counter_types, library
from bot.core.rulesets.asl.models import AslUnit

TYPES = sorted(counter_types())


def test_library_holds_the_common_counters():
    assert {"ger-467", "ger-548", "ger-447", "ger-237", "rus-447", "rus-458", "rus-628", "rus-426", "us-747",
            "us-666", "us-546", "brit-458", "brit-457", "ger-9-1", "ger-8-0", "ger-10-2", "rus-8-1",
            "ger-lmg", "ger-mmg", "ger-hmg", "rus-lmg", "rus-mmg", "us-mmg"} <= set(TYPES)


@pytest.mark.parametrize("type_name", TYPES)
def test_every_entry_builds_a_valid_unit(type_name):
    unit = RULESET.make_unit(type_name, id="X1", side=0, location="A1")
    assert isinstance(unit, AslUnit)
    assert (unit.type, unit.id, unit.location) == (type_name, "X1", "A1")
    entry = library().counters[type_name]
    assert (unit.kind, unit.name, unit.fp, unit.morale) == (entry.kind, entry.name, entry.fp, entry.morale)


@pytest.mark.parametrize("type_name", TYPES)
def test_every_reduces_to_and_replaced_by_points_to_an_existing_type(type_name):
    entry = library().counters[type_name]
    for target in (entry.reduces_to, entry.replaced_by):
        assert target is None or target in TYPES
    if entry.reduces_to:
        assert library().counters[entry.reduces_to].kind == "half-squad"
        assert library().counters[entry.reduces_to].nationality == entry.nationality
    if entry.replaced_by:
        assert library().counters[entry.replaced_by].kind == entry.kind


def test_german_467_values():
    unit = RULESET.make_unit("ger-467", id="A1", side=0, location=None)
    assert (unit.name, unit.fp, unit.range, unit.morale, unit.broken_morale, unit.quality) == (
        "4-6-7", 4, 6, 7, 8, "first_line")
    assert (unit.reduces_to, unit.replaced_by) == ("ger-247", "ger-447")


def test_unit_add_by_type_with_an_override():
    from bot.core.api import new_game
    g = new_game("asl", sides=["Germans", "Russians"])
    res = resolve(g, {"action": "unit_add", "id": "L1", "type": "GER-9-1", "side": 0, "location": "B5",
                      "stats": {"morale": 8}}, ScriptedDice([]))
    leader = res.game.units["L1"]
    assert (leader.kind, leader.name, leader.leadership, leader.morale) == ("leader", "9-1", -1, 8)


def test_a_dangling_reference_is_refused():
    with pytest.raises(ValidationError, match="not in the library"):
        CounterFile.model_validate({"rule": "A1", "counters": {
            "x-467": {"kind": "squad", "nationality": "x", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7,
                      "reduces_to": "x-247"}}})


def test_an_unknown_key_is_refused():
    with pytest.raises(ValidationError, match="Extra inputs"):
        CounterFile.model_validate({"rule": "A1", "counters": {
            "x-lmg": {"kind": "sw", "nationality": "x", "name": "LMG", "sw_type": "LMG", "rof_": 2}}})
