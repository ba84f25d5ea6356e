"""Units as plain objects inside a resolution (bot/core/working.py): the working class holds
exactly the unit model's fields, a unit changed inside a resolution comes out as the model the
ruleset used to mutate (the same dump, fields-set and repr), an unchanged unit is the caller's own
object, and an order that fails changes nothing."""

from __future__ import annotations

import pytest

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import ScriptedDice, SeededDice
from bot.core.errors import IllegalOrder, RulesError
from bot.core.game import Game, Location
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.asl.models import AslUnit, AslUnitWork
from bot.core.working import (EAGER_LOCATIONS, EAGER_UNITS, WorkLocations, WorkUnits, finished_game,
                              work_class, working_game)


def _unit(**given) -> AslUnit:
    return AslUnit(id="A1", type="custom", name="4-6-7", side=0, kind="squad", **given)


def test_the_working_class_has_the_model_fields_in_their_order():
    assert work_class(AslUnit) is AslUnitWork
    assert AslUnitWork.fields == tuple(AslUnit.model_fields)
    # the fields in the instance dict (a copy of the model's, in its order); the origin and the names
    # assigned in two slots
    assert AslUnitWork.__mro__[1].__slots__ == ("_origin", "_assigned", "__dict__")
    model = _unit()
    work = AslUnitWork.from_model(model)
    assert list(work.__dict__) == list(AslUnit.model_fields) == list(model.__dict__)
    assert work.__dict__ == model.__dict__ and work.__dict__ is not model.__dict__
    with pytest.raises(AttributeError):
        work.not_a_field = 1  # no field the model lacks
    with pytest.raises(AttributeError):
        work.label = "x"  # a property stays read-only
    with pytest.raises(AttributeError):
        work._origin = model  # nor the slots of the working object itself
    assert list(work.__dict__) == list(AslUnit.model_fields) and work._assigned is None
    # the model's properties come along
    assert (work.label, work.is_leader, work.is_sw, work.current_morale) == ("4-6-7 A1", False, False, 0)


def test_a_working_unit_holds_the_model_defaults_and_dumps_as_the_model():
    model = _unit()
    work = AslUnitWork.from_model(model)
    for name, info in AslUnit.model_fields.items():
        expected = info.get_default(call_default_factory=True)
        assert getattr(work, name) == getattr(model, name), name
        if name not in ("id", "type", "name", "side", "kind"):
            assert getattr(work, name) == expected, name
    assert work.model_dump() == model.model_dump()
    assert work.to_model() is model  # nothing assigned: the model itself


def test_a_working_unit_copies_its_lists():
    model = _unit(recovery_attempts=["1:0:MG"])
    work = AslUnitWork.from_model(model)
    work.recovery_attempts.append("2:0:MG")
    assert model.recovery_attempts == ["1:0:MG"]
    back = work.to_model()
    assert back is not model and back.recovery_attempts == ["1:0:MG", "2:0:MG"]
    assert back.model_fields_set == model.model_fields_set


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")  # cx=1: an int where a bool is
@pytest.mark.parametrize("changes", [
    {"broken": True}, {"pinned": True, "fire_marker": "prep"}, {"berserk": True}, {"berserk": False},
    {"heroic": False, "led_group": None}, {"fp": 3, "name": "3-6-7"}, {"cx": 1},
])
def test_a_changed_unit_is_the_model_pydantic_would_give(changes):
    """Assigning through the working object gives the model that assigning on the pydantic model
    gives: the same __dict__ (order too), fields-set, dumps and repr; an equal value assigned to a
    field already set gives back the model itself, as it would be unchanged."""
    for model in (_unit(), AslUnit.model_validate_json(_unit(dm=True).model_dump_json())):
        expected = model.model_copy(deep=True)
        work = AslUnitWork.from_model(model)
        for name, value in changes.items():
            setattr(expected, name, value)
            setattr(work, name, value)
        back = work.to_model()
        assert type(back) is AslUnit
        assert list(back.__dict__.items()) == list(expected.__dict__.items())
        assert [type(v) for v in back.__dict__.values()] == [type(v) for v in expected.__dict__.values()]
        assert back.model_fields_set == expected.model_fields_set
        assert back.model_dump_json() == expected.model_dump_json()
        assert back.model_dump_json(exclude_unset=True) == expected.model_dump_json(exclude_unset=True)
        assert repr(back) == repr(expected)
        same = all(name in model.model_fields_set and type(getattr(model, name)) is type(value)
                   and getattr(model, name) == value for name, value in changes.items())
        assert (back is model) == same
        if back is not model:
            assert AslUnit.model_validate(back.model_dump()) == back


def _orders():
    fire = scenarios.asl_fire()
    for seed in range(30):
        yield seed, fire
        yield seed, {**fire, "range": 1}
        yield seed, {"action": "fire", "firers": ["G1", "MG"], "target": "B3", "range": 4}


def _snapshot(game: Game):
    return (game.model_dump_json(), game.model_dump_json(exclude_unset=True), repr(game),
            [(k, sorted(u.model_fields_set)) for k, u in game.units.items()])


@pytest.mark.parametrize("built_from", ["orders", "json", "large", "many_locations"])
def test_working_units_resolve_as_the_working_copy_did(monkeypatch, built_from):
    """Each order resolved on a working game and on the deep working copy it replaced: the same
    Outcome and the same new Game (dumps, fields-set of every unit, reprs), from a game built by
    orders (units with only the fields given set) and one read from JSON. Units left unchanged are
    the caller's objects; the caller's game is untouched."""
    asl = get_ruleset("asl")
    base = scenarios.build("asl")
    if built_from == "json":
        base = Game.model_validate_json(base.model_dump_json())
    if built_from == "large":  # more units than EAGER_UNITS: a fire's units made as read (WorkUnits)
        for i in range(EAGER_UNITS + 4):
            base.units[f"X{i}"] = AslUnit(id=f"X{i}", type="custom", name="4-6-7", side=i % 2, kind="squad",
                                          location=("A1", "B3", "Z9")[i % 3], fp=4, range=6, morale=7)
        base = Game.model_validate_json(base.model_dump_json())
    if built_from == "many_locations":  # more locations than EAGER_LOCATIONS: copied as read (WorkLocations)
        for i in range(EAGER_LOCATIONS + 4):
            base.locations[f"L{i}"] = get_ruleset(base.ruleset).new_location(id=f"L{i}", terrain="woods", residual_fp=i % 3, features=["x"] * (i % 2))
        base = Game.model_validate_json(base.model_dump_json())
    shared = 0
    for seed, order in _orders():
        before = _snapshot(base)
        new = resolve(base, order, SeededDice(seed))
        monkeypatch.setattr(type(asl), "working_actions", frozenset())
        old = resolve(base, order, SeededDice(seed))
        monkeypatch.undo()
        assert _snapshot(base) == before
        assert new.outcome == old.outcome and repr(new.outcome) == repr(old.outcome)
        assert _snapshot(new.game) == _snapshot(old.game)
        assert type(new.game.units) is dict and type(new.game.locations) is dict
        assert list(new.game.locations) == list(base.locations)
        if built_from == "many_locations":  # the locations the fire never read are the caller's own
            assert all(new.game.locations[k] is v for k, v in base.locations.items() if k not in ("A1", "B3"))
            assert new.game.locations["B3"] is not base.locations["B3"]  # the target's: read, so copied
        for uid, unit in new.game.units.items():
            assert type(unit) is AslUnit
            if uid in base.units and unit.model_dump() == base.units[uid].model_dump() \
                    and unit.model_fields_set == base.units[uid].model_fields_set:
                assert unit is base.units[uid], uid
                shared += 1
            else:
                assert unit is not base.units.get(uid)
    assert shared  # some orders leave units unchanged: those are shared


def test_an_untouched_unit_is_the_same_object():
    game = scenarios.build("asl")
    game.units["far"] = AslUnit(id="far", type="custom", name="4-6-7", side=1, kind="squad", location="Z9")
    new = resolve(game, scenarios.asl_fire(), SeededDice(3)).game
    assert new.units["far"] is game.units["far"]
    assert list(new.units) == list(game.units)  # the order of the units kept


def test_a_refused_order_leaves_the_game_untouched():
    game = scenarios.build("asl")
    before = _snapshot(game)
    units = dict(game.units)
    for order in ({"action": "fire", "firers": ["G1", "R1"], "target": "B3", "range": 2},
                  {"action": "fire", "firers": ["G1"], "target": "B3", "range": 99}):
        with pytest.raises(RulesError):
            resolve(game, order, SeededDice(1))
    first = resolve(game, scenarios.asl_fire(), SeededDice(1)).game
    with pytest.raises(IllegalOrder):  # the group has fired: refused after the units were read
        resolve(first, scenarios.asl_fire(), ScriptedDice([]))
    assert _snapshot(game) == before
    assert all(game.units[k] is v for k, v in units.items())


def test_a_working_game_reads_units_lazily_and_finishes_as_a_plain_dict():
    game = scenarios.build("asl")
    work = working_game(game)
    assert type(work.units) is WorkUnits
    assert all(dict.__getitem__(work.units, k) is u for k, u in game.units.items())  # nothing made yet
    g1 = work.units["G1"]
    assert type(g1) is AslUnitWork and work.units["G1"] is g1 and work.units.get("G1") is g1
    assert type(dict.__getitem__(work.units, "G2")) is AslUnit  # not read: still the game's model
    g1.pinned = True
    done = finished_game(work)
    assert type(done.units) is dict and list(done.units) == list(game.units)
    assert done.units["G1"].pinned and not game.units["G1"].pinned
    assert all(done.units[k] is game.units[k] for k in game.units if k != "G1")


def test_a_fire_in_a_small_game_makes_every_unit_a_working_object_at_once():
    game = scenarios.build("asl")
    assert len(game.units) <= EAGER_UNITS
    work = working_game(game, eager=True)
    assert type(work.units) is dict and all(type(u) is AslUnitWork for u in work.units.values())
    work.units["G1"].broken = True
    done = finished_game(work)
    assert done.units["G1"].broken and not game.units["G1"].broken
    assert all(done.units[k] is game.units[k] for k in game.units if k != "G1")


def test_a_large_game_copies_only_the_locations_read_and_never_hands_out_the_callers():
    game = scenarios.build("asl")
    for i in range(EAGER_LOCATIONS + 1):
        game.locations[f"L{i}"] = get_ruleset(game.ruleset).new_location(id=f"L{i}", features=["hill"])
    before = _snapshot(game)
    held = dict(game.locations)
    work = working_game(game, eager=True)
    assert type(work.locations) is WorkLocations
    assert all(dict.__getitem__(work.locations, k) is v for k, v in held.items())  # nothing copied yet
    # every way of reading a location gives the working game's own copy, never the caller's model
    got = [work.locations["A1"], work.locations.get("B3"), work.location("L0"), work.location("l1"),
           *work.locations.values(), *(v for _, v in work.locations.items()), *work.locations.copy().values(),
           work.locations.setdefault("L2"), work.locations.pop("L3")]
    assert work.locations.get("nowhere") is None and work.locations.pop("nowhere", 7) == 7
    assert not any(v is h for v in got for h in held.values())
    assert work.locations["A1"] is work.locations["A1"]  # copied once
    for loc in got:
        loc.residual_fp = 6
        loc.features.append("x")
    work.locations.update({"N1": get_ruleset(work.ruleset).new_location(id="N1")})
    work.locations["N2"] = get_ruleset(work.ruleset).new_location(id="N2")
    assert work.locations.popitem()[0] == "N2"
    assert _snapshot(game) == before and all(game.locations[k] is v for k, v in held.items())
    done = finished_game(work)
    assert type(done.locations) is dict
    assert list(done.locations) == [k for k in held if k != "L3"] + ["N1"]
    assert done.locations["A1"].residual_fp == 6 and done.locations["N1"].residual_fp == 0


def test_a_small_game_copies_its_locations_at_once():
    game = scenarios.build("asl")
    assert len(game.locations) <= EAGER_LOCATIONS
    work = working_game(game, eager=True)
    assert type(work.locations) is dict
    assert all(work.locations[k] is not v and work.locations[k] == v for k, v in game.locations.items())
