"""The working copy ``api.resolve`` makes (copying.tree_copy) is the deep copy it replaced:
equal to the original, sharing no model, dict or list with it, on every ruleset's games."""

from __future__ import annotations

import copy

import pytest

from bench import scenarios
from bot.core.api import resolve
from bot.core.copying import tree_copy
from bot.core.dice import SeededDice
from bot.core.game import Game


def _containers(value, path="game"):
    """(path, object) for every model, dict and list in the tree: what must never be shared."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        yield path, value
        for name in type(value).model_fields:
            yield from _containers(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _containers(item, f"{path}[{key!r}]")
    elif isinstance(value, list):
        yield path, value
        for i, item in enumerate(value):
            yield from _containers(item, f"{path}[{i}]")


def _played(ruleset: str) -> Game:
    """The standard game after a few orders, so markers, lists and options hold values."""
    game = scenarios.build(ruleset)
    game.options["house_rules"] = {"notes": ["a", "b"], "values": [1, 2]}
    game.sides[0].players.append(42)
    _, _, fire = scenarios.RULESETS[ruleset]
    return resolve(game, fire(), SeededDice(7)).game


@pytest.mark.parametrize("ruleset", ["asl", "nhis", "cd"])
def test_the_copy_equals_the_deep_copy_and_round_trips(ruleset):
    game = _played(ruleset)
    copied = tree_copy(game)
    assert copied == game == copy.deepcopy(game)
    assert copied.model_dump_json() == game.model_dump_json()
    assert copied.model_fields_set == game.model_fields_set
    assert Game.model_validate_json(copied.model_dump_json()) == game


@pytest.mark.parametrize("ruleset", ["asl", "nhis", "cd"])
def test_the_copy_shares_no_mutable_part_with_the_original(ruleset):
    game = _played(ruleset)
    originals = {id(obj): path for path, obj in _containers(game)}
    shared = [path for path, obj in _containers(tree_copy(game)) if id(obj) in originals]
    assert shared == []


def test_changing_the_copy_leaves_the_original_untouched():
    game = _played("asl")
    before = game.model_dump_json()
    copied = tree_copy(game)
    copied.units["G1"].recovery_attempts.append("1:0:MG")
    copied.units["G2"].broken = True
    copied.locations["B3"].features.append("foxhole")
    copied.options["house_rules"]["notes"].append("c")
    copied.sides[1].players.append(7)
    assert game.model_dump_json() == before


@pytest.mark.parametrize("ruleset", ["asl", "nhis", "cd"])
def test_resolve_results_are_the_same_as_before_the_optimisations(monkeypatch, ruleset):
    """The same seeded orders give the same outcomes and states (to the byte) with pydantic's
    deep copy and every trail step validated, as api.resolve did before copying.py and the
    trail's direct path."""
    from bot.core import api, trail

    _, _, fire = scenarios.RULESETS[ruleset]

    def run():
        game, out = scenarios.build(ruleset), []
        dice = SeededDice(11)
        for _ in range(30):
            res = resolve(game, fire(), dice)
            out.append((res.outcome.model_dump_json(), res.game.model_dump_json()))
        return out

    now = run()
    monkeypatch.setattr(api, "tree_copy", lambda game: game.model_copy(deep=True))
    monkeypatch.setattr(trail, "_STEP_KINDS", frozenset())  # every Step through validation, none cached
    assert run() == now


def test_extra_and_private_attributes_are_copied_apart_and_plain_models_get_none():
    # models that forbid extra fields and have no private attributes take a shortcut (both None):
    # a model that allows extra fields or declares private ones still has them copied, apart
    from pydantic import BaseModel, ConfigDict, PrivateAttr

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        notes: list[str] = []
        _seen: list[int] = PrivateAttr(default_factory=list)

    class Closed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        inner: Open
        tags: list[str] = []

    original = Closed(inner=Open(notes=["a"], more=[1, 2]), tags=["t"])
    original.inner._seen.append(7)
    copied = tree_copy(original)
    assert copied == original and copied.model_dump() == original.model_dump()
    assert copied.__pydantic_extra__ is None and copied.__pydantic_private__ is None
    assert copied.inner.__pydantic_extra__ == {"more": [1, 2]} and copied.inner._seen == [7]
    copied.inner.more.append(3)
    copied.inner._seen.append(8)
    copied.inner.notes.append("b")
    assert (original.inner.more, original.inner._seen, original.inner.notes) == ([1, 2], [7], ["a"])
    assert copied.model_fields_set == original.model_fields_set
    assert copied.model_fields_set is not original.model_fields_set


def test_extra_data_without_private_attributes_is_copied_apart_through_model_extra():
    # a model allowing extra fields (as a Side or a Location carries its ruleset's declared data) and
    # declaring no private attribute is copied by model_copy(), its extra values copied further
    from pydantic import BaseModel, ConfigDict

    class Carrier(BaseModel):
        model_config = ConfigDict(extra="allow")
        tags: list[str] = []

    original = Carrier.model_validate({"tags": ["t"], "smoke": ["B3"], "marks": {"a": [1]}, "elr": 3})
    copied = tree_copy(original)
    assert copied == original and copied.model_dump() == original.model_dump()
    assert list(copied.model_extra) == list(original.model_extra)
    assert copied.model_extra is not original.model_extra
    assert copied.model_extra["smoke"] is not original.model_extra["smoke"]
    assert copied.model_extra["marks"]["a"] is not original.model_extra["marks"]["a"]
    copied.smoke.append("C4")
    copied.marks["a"].append(2)
    copied.tags.append("u")
    assert (original.smoke, original.marks, original.tags) == (["B3"], {"a": [1]}, ["t"])
    assert copied.model_fields_set == original.model_fields_set
    assert copied.__pydantic_private__ is None


def test_a_game_s_sides_and_locations_share_no_extra_data_with_the_copy():
    game = _played("asl")
    game.locations["B3"].model_extra["seen"] = ["G1"]  # a container in a Location's extra data
    game.sides[0].model_extra["notes"] = {"a": [1]}
    copied = tree_copy(game)
    assert copied.locations["B3"].seen == ["G1"] and copied.sides[0].notes == {"a": [1]}
    for name in ("sides", "locations"):
        held = getattr(game, name)
        pairs = zip(held, getattr(copied, name)) if isinstance(held, list) else (
            (held[k], getattr(copied, name)[k]) for k in held)
        for before, after in pairs:
            assert after is not before and after.model_extra == before.model_extra
            for key, value in (before.model_extra or {}).items():
                if isinstance(value, (list, dict)):
                    assert after.model_extra[key] is not value, (name, key)
