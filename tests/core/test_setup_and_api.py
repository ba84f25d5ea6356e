"""The shared set-up orders and the api's guarantees (validation, copy-on-write, round trip)."""

import pytest

from bot.core.api import new_game, parse_order, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder, InvalidOrder
from bot.core.game import Game
from bot.core.rulesets import BUILT_IN


@pytest.fixture
def game():
    g = new_game("asl", sides=["Germans", "Russians"], scenario="Test", gm=1)
    g = resolve(g, {"action": "location_set", "location": "B5", "terrain": "open"}).game
    return resolve(g, {"action": "unit_add", "id": "A1", "side": 0, "location": "B5",
                       "stats": {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}}).game


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_new_game_round_trips_through_json(ruleset):
    g = new_game(ruleset, sides=["Blue", "Red"], scenario="Round trip")
    assert Game.model_validate_json(g.model_dump_json()) == g
    assert g.phase


def test_game_with_units_round_trips(game):
    assert Game.model_validate_json(game.model_dump_json()) == game


def test_a_game_has_two_named_sides():
    with pytest.raises(InvalidOrder, match="two sides"):
        new_game("asl", sides=["Germans"])


def test_unknown_ruleset_is_named():
    with pytest.raises(InvalidOrder, match="unknown ruleset 'dnd'"):
        new_game("dnd", sides=["a", "b"])


def test_unit_add_records_trail_and_effect(game):
    res = resolve(game, {"action": "unit_add", "id": "A2", "side": 1, "location": "C4",
                         "stats": {"kind": "leader", "name": "8-1", "morale": 8, "leadership": -1}})
    assert res.outcome.headline == "8-1 A2 joins Russians"
    assert [s.label for s in res.outcome.trail] == [
        "New location C4: open (set it with /location set)",
        "8-1 A2 added for Russians in C4",
    ]
    assert res.outcome.effects[0].effects == ("added",)
    assert "C4" in res.game.locations and "C4" not in game.locations


def test_duplicate_unit_id_is_refused(game):
    with pytest.raises(IllegalOrder, match="already a unit 'a1'"):
        resolve(game, {"action": "unit_add", "id": "a1", "side": 0, "stats": {"kind": "squad"}})


def test_bad_stats_name_the_field(game):
    with pytest.raises(InvalidOrder, match="fp"):
        resolve(game, {"action": "unit_add", "id": "X", "side": 0, "stats": {"kind": "squad", "fp": "lots"}})


def test_unit_ids_with_mentions_or_spaces_are_refused(game):
    with pytest.raises(InvalidOrder, match="'id'"):
        resolve(game, {"action": "unit_add", "id": "@everyone", "side": 0, "stats": {"kind": "squad"}})


def test_edit_cannot_change_side(game):
    with pytest.raises(InvalidOrder, match="'side' of a unit cannot be edited"):
        resolve(game, {"action": "unit_edit", "unit": "A1", "changes": {"side": 1}})


def test_edit_changes_a_number_and_shows_before_and_after(game):
    res = resolve(game, {"action": "unit_edit", "unit": "A1", "changes": {"morale": 8}})
    assert res.game.units["A1"].morale == 8
    assert res.outcome.trail[0].label == "4-6-7 A1: morale 7 -> 8"


def test_move_and_remove(game):
    moved = resolve(game, {"action": "unit_move", "unit": "a1", "location": "C5"}).game
    assert moved.units["A1"].location == "C5"
    removed = resolve(moved, {"action": "unit_remove", "unit": "A1"}).game
    assert "A1" not in removed.units


def test_unknown_unit_lists_the_known_ones(game):
    with pytest.raises(InvalidOrder, match=r"no unit 'Z9' in this game \(units: A1\)"):
        resolve(game, {"action": "unit_move", "unit": "Z9", "location": "C5"})


def test_join_adds_the_player_once_and_refuses_switching_sides(game):
    g = resolve(game, {"action": "join", "side": 0, "player": 42}).game
    g = resolve(g, {"action": "join", "side": 0, "player": 42}).game
    assert g.sides[0].players == [42]
    with pytest.raises(IllegalOrder, match="already play Germans"):
        resolve(g, {"action": "join", "side": 1, "player": 42})


def test_phase_advance_walks_the_player_turn(game):
    res = resolve(game, {"action": "phase"})
    assert (res.game.phase, res.game.turn, res.game.active_side) == ("PFPh", 1, 0)
    res = resolve(game, {"action": "phase", "to": "RPh"})
    assert (res.game.phase, res.game.turn, res.game.active_side) == ("RPh", 1, 1)


def test_unknown_phase_is_named(game):
    with pytest.raises(InvalidOrder, match="unknown phase 'Lunch'"):
        resolve(game, {"action": "phase", "to": "Lunch"})


def test_missing_field_is_named(game):
    with pytest.raises(InvalidOrder, match="'target' is required") as err:
        parse_order("asl", {"action": "fire", "firers": ["A1"], "range": 2})
    assert err.value.field == "target"


def test_extra_field_is_named(game):
    with pytest.raises(InvalidOrder, match="'bogus' is not an option"):
        parse_order("asl", {"action": "morale", "unit": "A1", "bogus": 1})


def test_unknown_action_lists_the_actions():
    with pytest.raises(InvalidOrder, match="has no action 'dance'.*fire"):
        parse_order("asl", {"action": "dance"})


def test_orders_must_be_objects():
    with pytest.raises(InvalidOrder, match="JSON object"):
        parse_order("asl", ["fire"])  # type: ignore[arg-type]


def test_a_refused_order_leaves_the_callers_game_untouched(game):
    before = game.model_dump_json()
    with pytest.raises(InvalidOrder):
        resolve(game, {"action": "unit_edit", "unit": "A1", "changes": {"morale": "x"}})
    assert game.model_dump_json() == before


def test_unused_manual_dice_are_reported_not_hidden(game):
    res = resolve(game, {"action": "phase"}, ScriptedDice([3, 4]))
    assert res.outcome.unused_dice == (3, 4)
    assert res.outcome.manual_dice is False  # no die was read


def test_elr_is_set_per_side_from_the_options():
    g = new_game("asl", sides=["Germans", "Russians"], options={"elr": [3, 2]})
    assert [s.elr for s in g.sides] == [3, 2]
    assert "elr" not in g.options


def test_elr_out_of_range_is_refused():
    with pytest.raises(InvalidOrder, match="'elr'"):
        new_game("asl", sides=["Germans", "Russians"], options={"elr": [7, 2]})


def test_sides_need_different_names():
    with pytest.raises(InvalidOrder, match="different names"):
        new_game("asl", sides=["Reds", "reds"])


@pytest.mark.parametrize("ruleset, variant", [("asl", "advanced"), ("nhis", "starter"), ("cd", "full")])
def test_an_unknown_rules_variant_is_refused_naming_the_field(ruleset, variant):
    with pytest.raises(InvalidOrder) as refused:
        new_game(ruleset, sides=["Blue", "Red"], variant=variant)
    assert refused.value.field == "variant"


def test_asl_offers_full_rules_and_the_starter_kit():
    assert new_game("asl", sides=["Blue", "Red"]).variant == "full"
    assert new_game("asl", sides=["Blue", "Red"], variant="starter").variant == "starter"


def test_an_asl_attack_with_firers_needs_a_range(game):
    game = resolve(game, {"action": "phase", "to": "PFPh"}, ScriptedDice([])).game
    with pytest.raises(InvalidOrder) as refused:
        resolve(game, {"action": "fire", "firers": ["A1"], "target": "B5"}, ScriptedDice([3, 4]))
    assert refused.value.field == "range"

