"""The shortcuts of the rules-core speed work (issue 5) give exactly what they replaced.

The golden corpus (test_perf_equivalence.py) checks whole resolutions; these tests pin each
shortcut against the code it stands for, on inputs the corpus may not reach (every marker
combination, several leaders in one Location, every counter type of the library).
"""

from __future__ import annotations

import itertools

import pytest

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import ScriptedDice, SeededDice
from bot.core.errors import InvalidOrder
from bot.core.outcome import with_dice
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.asl import RULESET as ASL
from bot.core.rulesets.asl import counters, morale
from bot.core.rulesets.asl.context import AslContext, status_text
from bot.core.rulesets.asl.models import AslUnit


def test_get_ruleset_returns_each_package_singleton_and_still_refuses_unknown_names():
    assert get_ruleset("asl") is ASL is get_ruleset("asl")
    for name in ("nhis", "cd"):
        assert get_ruleset(name) is get_ruleset(name)
    for bad in ("ASL", "chess", ""):
        with pytest.raises(InvalidOrder, match="unknown ruleset"):
            get_ruleset(bad)


@pytest.mark.parametrize("ruleset", ["asl", "nhis", "cd"])
def test_with_dice_is_the_model_copy_it_replaced(ruleset):
    game = scenarios.build(ruleset)
    _, _, fire = scenarios.RULESETS[ruleset]
    resolution = resolve(game, fire(), SeededDice(5))
    outcome = resolution.outcome
    update = {"rolls": outcome.rolls[:1], "manual_dice": True, "unused_dice": (3, 4)}
    ours = with_dice(outcome, update["rolls"], update["manual_dice"], update["unused_dice"])
    pydantics = outcome.model_copy(update=update)
    assert type(ours) is type(pydantics)
    assert list(ours.__dict__.items()) == list(pydantics.__dict__.items())  # values and field order
    assert ours.model_fields_set == pydantics.model_fields_set
    assert ours.__pydantic_extra__ == pydantics.__pydantic_extra__
    assert ours.__pydantic_private__ == pydantics.__pydantic_private__
    assert repr(ours) == repr(pydantics)
    assert ours.model_dump_json() == pydantics.model_dump_json()
    assert ours.model_dump_json(exclude_unset=True) == pydantics.model_dump_json(exclude_unset=True)
    assert ours.__dict__ is not outcome.__dict__ and ours.model_fields_set is not outcome.model_fields_set


def test_unit_fields_is_each_library_entry_dump_and_a_fresh_dict():
    for key, entry in counters.library().counters.items():
        expected = entry.model_dump(exclude={"assumed"})
        fields = counters.unit_fields(key.upper())
        assert list(fields.items()) == list(expected.items())
        fields["fp"] = 99  # the caller's to change: the next one is untouched
        assert counters.unit_fields(key) == expected
    assert counters.unit_fields("no-such-counter") is None


def _status_as_before(unit: AslUnit) -> str:
    """status_text as it was written before the speed work."""
    if unit.eliminated:
        return "eliminated"
    if unit.kind == "sw":
        first = "malfunctioned" if unit.malfunctioned else "working"
    else:
        first = "broken" if unit.broken else "Good Order"
    parts = [first]
    for flag, word in ((unit.pinned, "pinned"), (unit.dm, "DM"), (unit.cx, "CX"), (unit.berserk, "berserk"),
                       (unit.heroic, "heroic")):
        if flag:
            parts.append(word)
    if unit.fire_marker:
        parts.append(f"{unit.fire_marker.title()} Fire")
    return ", ".join(parts)


def test_status_text_reads_every_combination_of_markers_as_before():
    squad = ASL.make_unit("ger-467", id="S", side=0, location="A1")
    mg = ASL.make_unit("ger-lmg", id="M", side=0, location="A1")
    flags = ("eliminated", "broken", "malfunctioned", "pinned", "dm", "cx", "berserk", "heroic")
    for unit in (squad, mg):
        for values in itertools.product((False, True), repeat=len(flags)):
            for marker in (None, "prep", "first", "final"):
                changed = unit.model_copy(update={**dict(zip(flags, values)), "fire_marker": marker})
                assert status_text(changed) == _status_as_before(changed)


def _leaders_as_before(ctx: AslContext, unit: AslUnit) -> list[AslUnit]:
    """good_order_leaders as it was written before the speed work."""
    if unit.location is None:
        return []
    found = [u for u in ctx.game.units_at(unit.location)
             if isinstance(u, AslUnit) and u.kind == "leader" and u.side == unit.side
             and u.id != unit.id and not u.broken]
    return sorted(found, key=lambda u: (u.leadership, -u.morale))


def test_good_order_leaders_finds_and_ranks_as_before():
    orders = [*scenarios.asl_setup()[:-1],
              {"action": "unit_add", "id": "L2", "type": "ger-8-0", "side": 0, "location": "A1"},
              {"action": "unit_add", "id": "L3", "type": "ger-9-2", "side": 0, "location": "A1"},
              {"action": "unit_add", "id": "L4", "type": "ger-8-1", "side": 0, "location": "A1"},
              {"action": "unit_add", "id": "L5", "type": "ger-9-1", "side": 0, "location": "B3"},
              {"action": "unit_add", "id": "OFF", "type": "ger-467", "side": 0},
              {"action": "unit_edit", "unit": "L4", "changes": {"broken": True}},
              {"action": "unit_edit", "unit": "L2", "changes": {"eliminated": True}}]
    game = scenarios.build("asl", orders)
    ctx = AslContext(game, None)  # type: ignore[arg-type]  (no die is rolled here)
    for unit in game.units.values():
        assert [u.id for u in morale.good_order_leaders(ctx, unit)] == [u.id for u in _leaders_as_before(ctx, unit)]
    assert [u.id for u in morale.good_order_leaders(ctx, game.units["G1"])] == ["L3", "GL"]


@pytest.mark.parametrize("ruleset", ["asl", "nhis", "cd"])
def test_an_order_refused_midway_leaves_the_callers_game_as_it_was(ruleset):
    """The dice run out at the last die of an attack that changes several units, so the refusal
    comes in the middle of the resolution: the caller's game is what it was, to the byte."""
    game = scenarios.build(ruleset)
    before = game.model_dump_json()
    _, _, fire = scenarios.RULESETS[ruleset]
    for seed in range(100):  # an attack with effects on two units or more, then its dice less the last
        played = resolve(game, fire(), SeededDice(seed)).outcome
        faces = [face for roll in played.rolls for face in roll.dice]
        if len(played.effects) >= 2 and len(faces) >= 3 and any(e.before != e.after for e in played.effects):
            break
    else:
        pytest.fail("no seed gave an attack with effects")
    with pytest.raises(InvalidOrder, match="ran out"):
        resolve(game, fire(), ScriptedDice(faces[:-1]))
    assert game.model_dump_json() == before
