"""The replay's state hash from kept pieces (bot/record/state_text.py) is the reference state hash,
byte for byte, for every state: the golden corpus's chains of orders on the three rulesets, random
games, and units changed in place in the ways ``==`` does not see (an int for a bool, -0.0 for
0.0, a float for an int, a list's element type, the order of a dict's keys) or with unicode,
custom statistics and NaN. One hasher goes through each chain of states, as a replay's does, so
its kept pieces are tried against every change."""

from __future__ import annotations

import random

import pytest

from bench import scenarios
from bot.core.rulesets import get_ruleset
from bot.core.api import resolve
from bot.core.copying import tree_copy
from bot.core.dice import SeededDice
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.record.chain import canonical_json, sha256
from bot.record.state_text import StateHasher
from tests.core.test_perf_equivalence import _CASES, _seed, _standard


def reference(game: Game) -> str:
    """The state hash as it has always been computed: the whole game dumped, canonical JSON."""
    return sha256(canonical_json(game.model_dump(mode="json")))


def test_the_golden_corpus_hashes_alike_state_after_state():
    hasher = StateHasher()  # one for the whole corpus: its pieces meet every ruleset's units
    states = 0
    for name, ruleset, orders in _CASES:
        game = _standard(ruleset)
        dice = SeededDice(_seed(name))
        assert hasher.text(game) == canonical_json(game.model_dump(mode="json")), name
        for order in orders:
            try:
                game = resolve(game, order, dice).game
            except RulesError:
                pass
            assert hasher.hash(game) == reference(game), (name, order)
            states += 1
    assert states > 400


ACTIONS = {
    "asl": lambda rng, units, hexes: rng.choice([
        {"action": "unit_move", "unit": rng.choice(units), "location": rng.choice(hexes)},
        {"action": "morale", "unit": rng.choice(units), "check": rng.choice(["NMC", "MC", "PTC"])},
        {"action": "rally", "unit": rng.choice(units)},
        {"action": "unit_edit", "unit": rng.choice(units),
         "changes": rng.choice([{"broken": True}, {"broken": False}, {"pinned": True}, {"morale": rng.randint(6, 8)},
                                {"name": rng.choice(["4-6-7", "Ünter 4-6-7 ✠", "\u00e9\u0301"])}])},
        {"action": "phase"},
        {"action": "unit_remove", "unit": rng.choice(units)},
        {"action": "unit_add", "id": f"N{rng.randrange(40)}", "side": rng.randrange(2), "location": rng.choice(hexes),
         "stats": {"kind": "squad", "name": "Gruppe Müller", "fp": 4, "range": 6, "morale": 7}},
        {"action": "location_set", "location": rng.choice(hexes), "terrain": rng.choice(["open", "woods"])},
    ]),
    "nhis": lambda rng, units, hexes: rng.choice([
        {"action": "unit_move", "unit": rng.choice(units), "location": rng.choice(hexes)},
        {"action": "phase"},
        {"action": "unit_remove", "unit": rng.choice(units)},
        {"action": "location_set", "location": rng.choice(hexes), "terrain": rng.choice(["clear", "jungle"])},
    ]),
    "cd": lambda rng, units, hexes: rng.choice([
        {"action": "unit_move", "unit": rng.choice(units), "location": rng.choice(hexes)},
        {"action": "phase"},
        {"action": "unit_remove", "unit": rng.choice(units)},
    ]),
}


@pytest.mark.parametrize("ruleset", sorted(ACTIONS))
def test_random_games_hash_alike_state_after_state(ruleset):
    for seed in range(3):
        rng = random.Random(f"{ruleset}-{seed}")
        game, dice, hasher = _standard(ruleset), SeededDice(seed), StateHasher()
        hexes = sorted({u.location for u in game.units.values() if u.location} | set(game.locations))
        for _ in range(150):
            if not game.units:
                break
            order = ACTIONS[ruleset](rng, sorted(game.units), hexes)
            try:
                game = resolve(game, order, dice).game
            except RulesError:
                continue
            assert hasher.hash(game) == reference(game), order


def _changes(game: Game) -> list:
    """Changes made in place to a copy of the game that ``==`` alone would take for no change."""
    unit = sorted(game.units)[0]
    field_int = next(name for name, value in game.units[unit].__dict__.items() if type(value) is int)
    field_bool = next(name for name, value in game.units[unit].__dict__.items() if type(value) is bool)
    field_list = next((name for name, value in game.units[unit].__dict__.items() if type(value) is list), None)

    def setter(name, make):
        return lambda g: setattr(g.units[unit], name, make(getattr(g.units[unit], name)))

    changes = [
        setter(field_bool, lambda v: int(v)),  # True -> 1: equal, dumps as 1
        setter(field_bool, lambda v: bool(v)),  # and back
        setter(field_int, lambda v: float(v)),  # 7 -> 7.0
        setter(field_int, lambda v: -0.0 if v == 0 else v),
        setter(field_int, lambda v: 0.0),
        setter(field_int, lambda v: -0.0),  # 0.0 -> -0.0: equal, dumps as -0.0
        setter(field_int, lambda v: float("nan")),
        setter(field_int, lambda v: float("inf")),
        setter(field_int, lambda v: 1),
        setter(field_int, lambda v: True),  # 1 -> True
        setter(field_int, lambda v: 1),
        setter("name", lambda v: "Ünter ✠ \u00e9\u0301 \"quoted\" \\ \n"),
        setter("name", lambda v: v + "\u2028"),
        lambda g: g.locations.update({"Zé": get_ruleset(g.ruleset).new_location(id="Zé", features=["hill"])}),
        lambda g: g.locations["Zé"].features.append("foxhole"),  # in place: the same list object
        lambda g: g.locations["Zé"].features.__setitem__(1, "smoke"),
        lambda g: setattr(g.locations["Zé"], "residual_fp", True),
        lambda g: setattr(g.locations["Zé"], "residual_fp", 1),
        lambda g: g.options.update({"b": 1, "a": {"y": 1.5, "x": [1, True]}}),
        lambda g: g.options["a"]["x"].__setitem__(1, 1),
        lambda g: g.units.update({"Ä1": g.units.pop(unit)}),  # a unicode key, sorted among the others
        lambda g: g.units.update({unit: g.units.pop("Ä1")}),
    ]
    if field_list is not None:
        changes += [setter(field_list, lambda v: [1]), setter(field_list, lambda v: [True]),
                    setter(field_list, lambda v: [1.0]), setter(field_list, lambda v: ["x", "ü"])]
    return changes


# the test puts values of the wrong type in place on purpose (0 for False, 0.0 for 0): pydantic warns
# that it serializes them as given, which is what the reference hash must see too
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("ruleset", sorted(ACTIONS))
def test_changes_equality_does_not_see_are_hashed_as_the_reference_hashes_them(ruleset):
    game, hasher = _standard(ruleset), StateHasher()
    hasher.hash(game)
    for change in _changes(game):  # each on a copy, as a resolution copies the game
        game = tree_copy(game)
        change(game)
        assert hasher.hash(game) == reference(game), change
    game, hasher = _standard(ruleset), StateHasher()
    hasher.hash(game)
    for change in _changes(game):  # in place: the very objects the kept pieces were made from
        change(game)
        assert hasher.hash(game) == reference(game), change


def test_custom_statistics_and_a_units_order_hash_as_the_reference(ruleset="asl"):
    game = _standard(ruleset)
    hasher = StateHasher()
    for stats in ({"kind": "squad", "name": "Zug", "morale": 7, "fp": 4, "range": 6},
                  {"range": 6, "fp": 5, "morale": 8, "name": "Zug", "kind": "squad"}):
        game = resolve(game, {"action": "unit_add", "id": f"C{len(game.units)}", "side": 0, "location": "B5",
                              "stats": stats}, SeededDice(1)).game
        assert hasher.hash(game) == reference(game)
    reordered = tree_copy(game)
    reordered.units = dict(reversed(list(reordered.units.items())))  # the same units in another order
    assert hasher.hash(reordered) == reference(reordered) == reference(game)


def test_a_state_with_keys_that_are_not_strings_is_hashed_the_reference_way():
    game = tree_copy(scenarios.build("asl"))
    unit = next(iter(game.units))
    game.units[3] = game.units[unit]  # type: ignore[index]  # not a state the core makes
    with pytest.warns(UserWarning):  # pydantic dumps the key as "3"
        assert StateHasher().hash(game) == reference(game)


def test_resolving_in_place_reaches_the_states_and_results_resolving_on_a_copy_does():
    # a replay resolves each order on the game it holds alone (bot/record/replay.py ``Replayer``):
    # over the golden corpus, the same outcome and the same state as the copy every command makes
    for name, ruleset, orders in _CASES:
        game, dice = _standard(ruleset), SeededDice(_seed(name))
        mine, mine_dice = tree_copy(game), SeededDice(_seed(name))
        for order in orders:
            try:
                resolution = resolve(game, order, dice)
            except RulesError as refused:
                with pytest.raises(type(refused)):
                    resolve(mine, order, mine_dice, in_place=True)
                mine = tree_copy(game)  # a replay stops at a refusal: here the chain goes on from the copy's state
                continue
            placed = resolve(mine, order, mine_dice, in_place=True)
            assert placed.game is mine
            assert placed.outcome == resolution.outcome, (name, order)
            assert mine.model_dump_json() == resolution.game.model_dump_json(), (name, order)
            assert repr(mine) == repr(resolution.game)
            game = resolution.game
