"""Equal trail Steps are built once and shared (issue 14, item 4): what that could break, pinned.

A shared Step must be the very Step validation would build from the same values (fields, types,
fields-set, JSON, repr); values equal across types (1, 1.0, True) must never share one; nothing a
later resolution does may reach an earlier outcome through a shared Step; the cache stays bounded;
and whole resolutions give the same outcomes whether their Steps come from the cache or not.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bench import scenarios
from bot.core import context as context_module
from bot.core import dice as dice_module
from bot.core import trail as trail_module
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.trail import Step, Trail


def _same(ours: Step, validated: Step) -> None:
    assert type(ours) is Step
    assert list(ours.__dict__.items()) == list(validated.__dict__.items())
    assert [type(v) for v in ours.__dict__.values()] == [type(v) for v in validated.__dict__.values()]
    assert ours.model_fields_set == validated.model_fields_set
    assert repr(ours) == repr(validated)
    assert ours.model_dump_json() == validated.model_dump_json()
    assert ours.model_dump_json(exclude_unset=True) == validated.model_dump_json(exclude_unset=True)


@pytest.mark.parametrize("value,total", [(1, None), (1.0, None), ("x", 2), (None, 2.5), (0, 0), (-3, 4.0)])
def test_a_shared_step_is_the_step_validation_builds(value, total):
    trail_module._STEPS.clear()
    first = Trail().add("modifier", "label", value, total=total, rule="A7.3", unit="G1")
    again = Trail().add("modifier", "label", value, total=total, rule="A7.3", unit="G1")
    assert again is first  # built once
    _same(first, Step(kind="modifier", label="label", value=value, total=total, rule="A7.3", unit="G1"))


def test_values_equal_across_types_never_share_a_step():
    trail_module._STEPS.clear()
    steps = [Trail().add("base", "FP", v, total=t) for v, t in [(1, 1), (1.0, 1), (1, 1.0), (True, None), (1, None)]]
    assert len({id(s) for s in steps}) == 5
    assert [type(s.value) for s in steps] == [int, float, int, int, int]  # True validated: Step keeps 1
    assert [type(s.total) for s in steps[:3]] == [int, int, float]
    assert steps[0].model_dump_json() != steps[1].model_dump_json()


def test_signed_zeros_never_share_a_step():
    # -0.0 == 0.0 (and hashes alike), but a Step of each dumps differently: "-0.0" against "0.0"
    trail_module._STEPS.clear()
    steps = [Trail().add("modifier", "DRM", v, total=t) for v, t in [(0.0, 1), (-0.0, 1), (1, 0.0), (1, -0.0)]]
    assert [s.model_dump_json() for s in steps] == [
        Step(kind="modifier", label="DRM", value=v, total=t).model_dump_json()
        for v, t in [(0.0, 1), (-0.0, 1), (1, 0.0), (1, -0.0)]]
    assert len({id(s) for s in steps}) == 4


def test_what_validation_converts_or_refuses_is_not_kept():
    trail_module._STEPS.clear()
    with pytest.raises(ValidationError):
        Trail().add("nonsense", "label")  # type: ignore[arg-type]
    Trail().add("base", "a bool", True)
    assert trail_module._STEPS == {}


def test_a_shared_step_cannot_be_changed_through_one_outcome():
    trail_module._STEPS.clear()
    step = Trail().add("note", "shared")
    with pytest.raises(ValidationError):
        step.label = "changed"  # frozen: no outcome can change what another one shows
    copy = step.model_copy(update={"label": "changed"})
    assert copy is not step and step.label == "shared" and Trail().add("note", "shared") is step


def test_the_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(trail_module, "STEP_CACHE_SIZE", 50)
    trail_module._STEPS.clear()
    for i in range(500):
        Trail().add("note", f"step {i}")
        assert len(trail_module._STEPS) <= 50
    trail_module._STEPS.clear()


def test_outcomes_are_the_same_built_fresh_or_from_the_cache(monkeypatch):
    """The reference path: every Step, Roll and UnitEffect built anew (caches of one entry, emptied before each);
    then the same orders from a warm cache, outcomes and games compared to the byte."""
    records = []
    # the Steps, and the Rolls (dice.py) and UnitEffects (context.py) shared the same way
    caches = [(trail_module, "STEP_CACHE_SIZE", "_STEPS"), (dice_module, "ROLL_CACHE_SIZE", "_ROLLS"),
              (context_module, "EFFECT_CACHE_SIZE", "_EFFECTS")]
    for warm in (False, True):
        for module, size_name, cache_name in caches:
            monkeypatch.setattr(module, size_name, 20_000 if warm else 1)
            getattr(module, cache_name).clear()
        record = []
        for ruleset in ("asl", "nhis", "cd"):
            game = scenarios.build(ruleset)
            _, _, fire = scenarios.RULESETS[ruleset]
            dice = SeededDice(14)
            for _ in range(25):
                resolution = resolve(game, fire(), dice)
                record += [resolution.outcome.model_dump_json(), resolution.outcome.model_dump_json(exclude_unset=True),
                           repr(resolution.outcome), resolution.game.model_dump_json()]
        records.append(record)
    assert records[0] == records[1]


def test_a_later_resolution_leaves_an_earlier_outcome_and_the_callers_game_as_they_were():
    game = scenarios.build("asl")
    before = game.model_dump_json()
    first = resolve(game, scenarios.asl_fire(), SeededDice(3))
    shown = (first.outcome.model_dump_json(), first.game.model_dump_json())
    for seed in range(30):  # the same order again and again: its Steps shared with the first outcome
        later = resolve(first.game if seed % 2 else game, scenarios.asl_fire() if seed % 2 == 0 else
                        {"action": "phase", "to": "MPh"}, SeededDice(seed))
        assert later.game is not first.game
    assert (first.outcome.model_dump_json(), first.game.model_dump_json()) == shown
    assert game.model_dump_json() == before


def test_units_keep_their_order_through_resolutions_and_replacements():
    """The state hash is of the units in order: a unit replaced (Casualty Reduction, ELR) keeps its
    place, and a unit created (a second half-squad) could only come after every unit there was."""
    game = scenarios.build("asl")
    replaced = 0
    for seed in range(120):
        result = resolve(game, scenarios.asl_fire(), SeededDice(seed)).game
        order = list(result.units)
        assert order[: len(game.units)] == list(game.units)
        assert list(result.locations) == list(game.locations)
        replaced += any(result.units[k].type != game.units[k].type for k in game.units)
    assert replaced  # the seeds reach ELR replacements and Casualty Reduction


def test_a_str_subclass_equal_to_a_cached_label_gets_the_step_validation_builds():
    # the lookup comes before the exactness check: an equal str subclass (or str enum) finds the Step
    # built from the plain str, which is what validation makes of it (a plain str)
    import enum

    class Label(str):
        pass

    class Kind(str, enum.Enum):
        NOTE = "note"

    trail_module._STEPS.clear()
    plain = Trail().add("note", "x", 1, rule="A1", unit="G1")
    for kind, label, rule, unit in [("note", Label("x"), "A1", "G1"), (Kind.NOTE, "x", Label("A1"), Label("G1"))]:
        found = Trail().add(kind, label, 1, rule=rule, unit=unit)
        assert found is plain
        _same(found, Step(kind=kind, label=label, value=1, total=None, rule=rule, unit=unit))
    # not in the cache: validated, and not kept
    trail_module._STEPS.clear()
    for kind, label in [(Kind.NOTE, "y"), ("note", Label("y"))]:
        _same(Trail().add(kind, label), Step(kind=kind, label=label, value=None, total=None, rule=None, unit=None))
    assert trail_module._STEPS == {}


def test_an_unhashable_label_is_refused_as_validation_refuses_it():
    trail_module._STEPS.clear()
    with pytest.raises(ValidationError):
        Trail().add("note", ["not", "a", "label"])  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Trail().add("note", "x", rule={"a": 1})  # type: ignore[arg-type]
    assert trail_module._STEPS == {}


def test_a_shared_unit_effect_is_the_one_validation_builds(monkeypatch):
    from bot.core.context import _unit_effect
    from bot.core.outcome import UnitEffect

    context_module._EFFECTS.clear()
    first = _unit_effect("A1", "4-6-7", 0, "Good Order", "broken, DM", ("broken",))
    assert _unit_effect("A1", "4-6-7", 0, "Good Order", "broken, DM", ("broken",)) is first
    validated = UnitEffect(unit="A1", name="4-6-7", side=0, before="Good Order", after="broken, DM",
                           effects=("broken",))
    assert list(first.__dict__.items()) == list(validated.__dict__.items())
    assert first.model_fields_set == validated.model_fields_set
    assert (repr(first), first.model_dump_json()) == (repr(validated), validated.model_dump_json())
    # False == 0 and hashes alike: it finds side 0's UnitEffect, which is what validation makes of it;
    # not in the cache, it is validated (side 0, an int) and not kept
    other = _unit_effect("A1", "4-6-7", False, "Good Order", "broken, DM", ("broken",))  # type: ignore[arg-type]
    of_false = UnitEffect(unit="A1", name="4-6-7", side=False, before="Good Order", after="broken, DM",
                          effects=("broken",))
    assert type(other.side) is int and repr(other) == repr(of_false)
    assert other.model_dump_json() == of_false.model_dump_json()
    context_module._EFFECTS.clear()
    fresh = _unit_effect("A2", "4-6-7", False, "Good Order", "", ())  # type: ignore[arg-type]
    assert type(fresh.side) is int and fresh.side == 0 and context_module._EFFECTS == {}
    with pytest.raises(ValidationError):
        _unit_effect("A2", "4-6-7", 0, "Good Order", "", (["unhashable"],))  # type: ignore[arg-type]
    assert context_module._EFFECTS == {}
    monkeypatch.setattr(context_module, "EFFECT_CACHE_SIZE", 5)
    for i in range(40):
        _unit_effect(f"U{i}", "x", 1, "", "", ())
        assert len(context_module._EFFECTS) <= 5


class _Str(str):
    pass


@pytest.mark.parametrize("value,total", [(1, None), (1.0, None), ("x", 2), (None, 2.5), (0, 0), (-3, 4.0),
                                         (True, None), (None, False), (_Str("s"), None), (-0.0, 0)])
def test_a_line_kept_as_a_tuple_is_the_step_add_makes(value, total):
    """``Trail.put`` keeps a line as a tuple until ``freeze``: the Step it becomes is the one ``add``
    makes (the cached one itself, or the validated one for a bool, a str subclass, a float), in the
    order of the lines, mixed with Steps added by ``add``."""
    trail_module._STEPS.clear()
    trail = Trail()
    trail.put("modifier", "label", value, total=total, rule="A7.3", unit="G1")
    trail.section("heading", rule="A7")
    added = trail.add("note", "read back")
    trail.note("a note", unit="G1")
    frozen = trail.freeze()
    assert [s.kind for s in frozen] == ["modifier", "section", "note", "note"] and frozen[2] is added
    validated = Step(kind="modifier", label="label", value=value, total=total, rule="A7.3", unit="G1")
    _same(frozen[0], validated)
    # every field given, as ``add`` gives them (its defaults included)
    _same(frozen[1], Step(kind="section", label="heading", value=None, total=None, rule="A7", unit=None))
    _same(frozen[3], Step(kind="note", label="a note", value=None, total=None, rule=None, unit="G1"))
    assert Trail().add("modifier", "label", value, total=total, rule="A7.3", unit="G1") == frozen[0]
    if type(value) in (int, str, type(None)) and type(total) in (int, type(None)):
        assert Trail().add("modifier", "label", value, total=total, rule="A7.3", unit="G1") is frozen[0]


def test_a_line_that_does_not_validate_is_refused_when_frozen():
    trail = Trail()
    trail.put("modifier", "label", [1], unit="G1")
    with pytest.raises(ValidationError):
        trail.freeze()
    trail = Trail()
    trail.put("not a kind", "label")
    with pytest.raises(ValidationError):
        trail.freeze()


def test_the_effects_of_a_resolution_are_the_unit_effects_built_one_by_one():
    # ResolutionContext.effects looks each UnitEffect up itself (_unit_effect's lookup, inlined): the
    # same objects _unit_effect gives for each unit touched, a removed unit and a unit touched with
    # an unhashable effect (refused by validation, as before) included
    from bot.core.context import _unit_effect
    from bot.core.dice import Roller, ScriptedDice
    from bot.core.rulesets.asl.context import AslContext, status_text

    game = scenarios.build("asl")
    for cold in (True, False):
        if cold:
            context_module._EFFECTS.clear()
        ctx = AslContext(game=game.model_copy(deep=True), roller=Roller(ScriptedDice([])))
        for unit_id in ("G1", "R1", "RL"):
            ctx.effect(ctx.game.units[unit_id], "pinned")
        ctx.touch(ctx.game.units["G2"])
        del ctx.game.units["RL"]
        expected = [_unit_effect("G1", "4-6-7", 0, "Good Order", status_text(ctx.game.units["G1"]), ("pinned",)),
                    _unit_effect("R1", "4-4-7", 1, "Good Order", status_text(ctx.game.units["R1"]), ("pinned",)),
                    _unit_effect("RL", "RL", None, "Good Order", "removed", ("pinned",)),
                    _unit_effect("G2", "4-6-7", 0, "Good Order", "Good Order", ())]
        got = ctx.effects()
        assert list(got) == expected and all(a is b for a, b in zip(got, expected))
        ctx.effect(ctx.game.units["G3"], ["unhashable"])  # type: ignore[arg-type]
        with pytest.raises(ValidationError):
            ctx.effects()
