"""Every order of every ruleset, walked field by field: through no field an order acts with may a
seated player act with an enemy unit, weapon, company or side. The fields come from the orders'
own declarations (``Refers``), so an order added tomorrow is walked too; a field holding ids that
declares nothing is refused at registration (tests/test_architecture.py)."""

from __future__ import annotations

import types
import typing
from typing import Any, get_args

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.orders import acting_refs
from bot.core.rulesets import register, rulesets, unregister
from bot.core.setup import SetupOrder
from bot.service import Actor, NotAllowed, check_permission
from tests.plugins import toy_ruleset

ALICE, BOB = 11, 12


@pytest.fixture(scope="module", autouse=True)
def toy():
    register(toy_ruleset.RULESET)
    yield
    unregister("toy")


def game_with_both_sides(name: str):
    """A game with a unit of each side (and, where the units can carry them, a weapon held by the
    enemy's unit and the enemy in a company): Alice plays side 0, Bob side 1."""
    ruleset = next(r for r in rulesets() if r.name == name)
    library = ruleset.counter_types()
    kind = next(iter(library))
    fields = ruleset.unit_model().model_fields
    game = new_game(name, sides=["Friends", "Enemies"])
    orders: list[dict[str, Any]] = [{"action": "join", "side": 0, "player": ALICE},
                                    {"action": "join", "side": 1, "player": BOB}]
    for uid, side in (("F1", 0), ("E1", 1)):
        stats = {"company": "Kampf" if side else "Able"} if "company" in fields else {}
        orders.append({"action": "unit_add", "id": uid, "side": side, "type": kind, "location": f"X{side}",
                       "stats": stats})
    if "owner" in fields:
        orders.append({"action": "unit_add", "id": "EW", "side": 1, "type": kind, "location": "X1",
                       "stats": {"owner": "E1"}})
    for order in orders:
        game = resolve(game, order, ScriptedDice([])).game
    return game


def value_for(annotation: Any, to: str, game) -> Any:
    """The enemy named as the field's type holds it."""
    one = {"unit": "E1", "weapon": "EW", "company": "Kampf", "side": 1}[to]
    if to == "weapon" and "EW" not in game.units:
        return None  # the ruleset's units hold no weapons
    if to == "company" and "Kampf" not in {getattr(u, "company", None) for u in game.units.values()}:
        return None
    inner = get_args(annotation)[0] if typing.get_origin(annotation) is typing.Annotated else annotation
    options = get_args(inner) if typing.get_origin(inner) in (typing.Union, types.UnionType) else (inner,)
    return [one] if any(typing.get_origin(o) is list for o in options) else one


def acting_cases():
    for ruleset in (*[r for r in rulesets() if r.name != "toy"], toy_ruleset.RULESET):
        for model in (*get_args(ruleset.order_type), *get_args(SetupOrder)):
            for field, ref in acting_refs(model):
                yield pytest.param(ruleset.name, model, field, ref.to, id=f"{ruleset.name}-{model.__name__}.{field}")


@pytest.mark.parametrize(("ruleset", "model", "field", "to"), list(acting_cases()))
def test_no_order_lets_a_seated_player_act_with_the_enemy(ruleset, model, field, to):
    game = game_with_both_sides(ruleset)
    value = value_for(model.model_fields[field].annotation, to, game)
    if value is None:
        pytest.skip(f"{ruleset}'s units hold no {to}")
    action = get_args(model.model_fields["action"].annotation)[0]
    # a correction of the game's facts is the game master's alone, whoever's unit it names
    says = f"only the game master may {model.gm_only}" if model.gm_only else "belongs to Enemies; you play Friends"
    with pytest.raises(NotAllowed, match=says):
        check_permission(game, Actor(ALICE), {"action": action, field: value})
    if model.gm_only:
        return
    friendly = {"E1": "F1", "EW": None, "Kampf": "Able", 1: 0}
    own = [friendly[v] for v in value] if isinstance(value, list) else friendly[value]
    if own is not None and own != [None]:  # the same field naming her own side's is no business of the check
        check_permission(game, Actor(ALICE), {"action": action, field: own})


def test_the_walk_covers_every_ruleset_and_the_set_up_orders():
    walked = {(c.values[0], c.values[1].__name__) for c in acting_cases()}
    assert {name for name, _ in walked} == {r.name for r in rulesets()} | {"toy"}
    assert ("asl", "AslTransfer") in walked and ("cd", "CdMorale") in walked and ("toy", "Toss") in walked
    assert ("asl", "UnitAdd") in walked  # a new unit's side
