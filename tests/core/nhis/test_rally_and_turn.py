"""NHiS rally (rule 8.2 as assumed in data/nhis/rules.yaml), the game turn, the counter library
and the terrain chart."""

import pytest
import yaml
from pydantic import ValidationError

from bot.core.api import new_game, resolve
from bot.core.errors import IllegalOrder, InvalidOrder
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.nhis import tables

from .conftest import act, effects, labels, nhis_game, step

RALLY = "NHiS Rally Phase 8.2 (assumed)"


def rally(game, die, unit="U1"):
    return act(game, [die], {"action": "rally", "unit": unit})


def shaken_squad(**extra):
    return nhis_game(phase="Rally").squad("U1", 0, "A1", morale=5, shaken=True, **extra)


def test_a_shaken_unit_rallies_on_a_d6_not_above_its_morale():
    res = rally(shaken_squad().game, 5)
    assert [(s.kind, s.label) for s in res.outcome.trail] == [
        ("section", "Rally: squad U1"), ("base", "Morale of squad U1"), ("dice", "1d6"),
        ("check", "5 vs 5: rallies"), ("effect", "squad U1: rallies: Prepared")]
    assert all(s.rule == RALLY for s in res.outcome.trail)
    assert not res.game.units["U1"].shaken
    assert res.outcome.headline == "squad U1 rally: 1d6 5 vs 5 -> rallies"


def test_a_unit_that_fails_to_rally_stays_shaken():
    res = rally(shaken_squad().game, 6)
    assert res.game.units["U1"].shaken
    assert effects(res)["U1"] == ("fails to rally: stays Shaken",)


def test_a_prepared_leader_in_the_hex_adds_his_leadership_to_the_rally():
    game = shaken_squad().leader("L1", 0, "A1", leadership=1).game
    res = rally(game, 6)
    assert step(res, "Leadership of leader L1 (Prepared)").total == 6
    assert not res.game.units["U1"].shaken


def test_a_shaken_leader_must_rally_himself_first_and_lends_nothing():
    game = shaken_squad().leader("L1", 0, "A1", shaken=True, leadership=2).game
    res = rally(game, 6)
    assert "leader L1 is Shaken and lends no leadership" in labels(res, "note")
    assert res.game.units["U1"].shaken
    rallied = rally(game, 5, unit="L1")
    assert not rallied.game.units["L1"].shaken
    assert not [x for x in labels(rallied) if x.startswith("Leadership")]  # his own morale only
    assert step(rally(rallied.game, 6), "Leadership of leader L1 (Prepared)").value == 2


def test_rally_is_refused_outside_the_rally_phase():
    game = shaken_squad().game
    game.phase = "Operations"
    with pytest.raises(IllegalOrder, match=r"units rally only in the Rally Phase; this is the Operations Phase"):
        rally(game, 1)


def test_a_unit_that_is_not_shaken_has_nothing_to_rally():
    game = nhis_game(phase="Rally").squad("U1", 0, "A1").game
    with pytest.raises(IllegalOrder, match="is not Shaken"):
        rally(game, 1)


def test_one_rally_attempt_per_unit_per_rally_phase():
    tried = rally(shaken_squad().game, 6).game
    with pytest.raises(IllegalOrder, match="already tried to rally in this Rally Phase"):
        rally(tried, 1)
    next_turn = resolve(tried, {"action": "phase", "to": "Rally"}).game
    assert not rally(next_turn, 1).game.units["U1"].shaken


# --- the game turn ---

def test_the_phases_cycle_once_per_game_turn_for_both_sides():
    game = new_game("nhis", sides=["US", "Japan"])
    seen = []
    for _ in range(4):
        game = resolve(game, {"action": "phase"}).game
        seen.append((game.phase, game.turn, game.active_side))
    assert seen == [("Operations", 1, 0), ("Administrative", 1, 0), ("Rally", 2, 0), ("Operations", 2, 0)]


def test_markers_and_movement_come_off_at_the_end_of_the_administrative_phase():
    game = (nhis_game(phase="Administrative").squad("U1", 0, "A1", marker="fire")
            .squad("J1", 1, "C1", marker="charge", moving=True, banzai=True).squad("J2", 1, "C1").game)
    res = resolve(game, {"action": "phase"})
    assert labels(res, "marker") == ["squad U1: Fire marker removed", "squad J1: Charge marker removed",
                                     "squad J1: no longer moving"]
    assert {e.unit: e.effects for e in res.outcome.effects} == {
        "U1": ("Fire marker removed",), "J1": ("Charge marker removed", "stops moving")}
    j1 = res.game.units["J1"]
    assert (j1.marker, j1.moving, j1.banzai) == (None, False, True)
    assert (res.game.phase, res.game.turn) == ("Rally", 2)


def test_markers_stay_through_the_operations_phase():
    game = nhis_game(phase="Operations").squad("U1", 0, "A1", marker="fire").game
    res = resolve(game, {"action": "phase"})
    assert res.game.units["U1"].marker == "fire" and res.outcome.effects == ()


def test_the_ruleset_phases_are_the_data_files():
    assert get_ruleset("nhis").phases == tables.rules().turn.phases == ("Rally", "Operations", "Administrative")


# --- counters and terrain ---

def test_every_library_counter_makes_a_unit():
    game = new_game("nhis", sides=["US", "Japan"])
    for i, name in enumerate(get_ruleset("nhis").counter_types()):
        game = resolve(game, {"action": "unit_add", "id": f"X{i}", "type": name, "side": 0, "location": "A1"}).game
    assert len(game.units) == len(get_ruleset("nhis").counter_types()) >= 6


def test_japanese_infantry_is_unshakable_and_us_infantry_shakeable():
    game = new_game("nhis", sides=["US", "Japan"])
    game = resolve(game, {"action": "unit_add", "id": "J1", "type": "jp-rifle-squad", "side": 1}).game
    game = resolve(game, {"action": "unit_add", "id": "U1", "type": "us-rifle-squad", "side": 0}).game
    assert game.units["J1"].shakeable is False and game.units["U1"].shakeable is True
    assert game.units["J1"].name == "Japanese rifle squad"


def test_a_counter_library_with_a_misspelt_field_is_refused():
    raw = yaml.safe_load((tables.DATA_DIR / "counters.yaml").read_text())
    raw["types"]["us-rifle-squad"]["moral"] = 5
    with pytest.raises(ValidationError, match="moral"):
        tables.validate_counters(raw)


def test_the_terrain_chart_is_the_ruleset_terrain_list_and_open_is_the_default():
    ruleset = get_ruleset("nhis")
    assert ruleset.default_terrain() == "open"
    assert {"open", "trees", "brush", "tall grass", "paddy", "beach", "huts", "wooden building",
            "rough", "lava rock"} <= set(ruleset.terrains())
    assert ruleset.terrains()["trees"].mp_japanese == 1


def test_setting_a_hex_to_terrain_not_on_the_chart_is_refused():
    game = new_game("nhis", sides=["US", "Japan"])
    with pytest.raises(InvalidOrder, match="unknown terrain 'swamp'"):
        resolve(game, {"action": "location_set", "location": "A1", "terrain": "swamp"})


def test_an_unknown_key_in_the_terrain_chart_is_refused():
    raw = yaml.safe_load((tables.DATA_DIR / "terrain.yaml").read_text())
    raw["terrains"]["trees"]["tem"] = 1
    with pytest.raises(ValidationError, match="tem"):
        tables.TerrainFile.model_validate(raw)


def test_an_unknown_key_in_the_procedures_file_is_refused():
    raw = yaml.safe_load((tables.DATA_DIR / "rules.yaml").read_text())
    raw["rally"]["bonus"] = 1
    with pytest.raises(ValidationError, match="bonus"):
        tables.RulesFile.model_validate(raw)


def test_every_guess_in_the_data_is_written_down_as_assumed():
    assert tables.fire_table().assumed and tables.rules().rally.assumed and tables.rules().damage.assumed
    assert tables.terrain_file().terrains["wooden building"].assumed
