"""Scenario files (issue 16): the format, the game a file sets up, the round trip, and every kind of
bad file refused with its line and field (the commands that load them: tests/cogs/test_scenario.py)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from bot import scenario as files
from bot.core.data import data_path
from bot.core.rulesets import BUILT_IN, get_ruleset
from bot.core.scenario import build_game
from bot.core.sequence import SEQUENCE
from bot.record import state_hash
from bot.record.replay import Replayer, creation_order

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(data_path().glob("*/scenarios/*.yaml"))


def load(text: str):
    return build_game(files.read(text), gm=7, sequence=SEQUENCE)


def test_every_ruleset_has_a_sample_and_the_asl_one_has_forty_counters():
    rulesets = {path.parent.parent.name for path in SAMPLES}
    assert rulesets == set(BUILT_IN)
    biggest = max(len(load(p.read_text()).units) for p in SAMPLES if p.parent.parent.name == "asl")
    assert biggest >= 40


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_load_export_load_gives_the_same_game_and_state_hash(path):
    game = load(path.read_text())
    written = files.write(game)
    again = load(written)
    assert again == game
    assert state_hash(again) == state_hash(game)
    assert files.write(again) == written  # and the export is stable


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_the_samples_and_their_exports_follow_the_published_schema(path):
    schema = json.loads((ROOT / "docs" / "scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    jsonschema.validate(yaml.safe_load(files.write(load(path.read_text()))), schema)


def test_a_file_sets_up_sides_options_terrain_markers_and_possession():
    game = load((data_path("asl", "scenarios", "village-assault.yaml")).read_text())
    germans, russians = game.sides
    assert (germans.name, germans.nationality, germans.elr, germans.options) == ("Germans", "german", 3, {"san": 2})
    assert (russians.elr, russians.options) == (2, {"san": 3})
    assert game.turns == 6 and game.scenario == "Village Assault (sample)" and game.variant == "full"
    assert game.locations["D3"].terrain == "stone building"
    assert game.units["GMG1"].owner == "G1" and game.units["GMG1"].location == "D3"  # where its holder is
    assert game.units["R13"].broken and game.units["G11"].pinned
    assert game.units["R14"].location is None  # off board
    assert game.units_added == 44  # the unit cap counts them
    assert game.options == {"open_seating": True}


def test_the_creation_entry_replays_the_whole_set_up():
    scenario = files.read(data_path("cd", "scenarios", "hedgerows.yaml").read_text())
    game = build_game(scenario, gm=7, sequence=SEQUENCE)
    order = json.loads(json.dumps(creation_order("cd", ["x", "y"], "", None, {}, 7, setup=files.dump(scenario))))
    replayed, outcome = Replayer().apply(1, order, [], False)
    # how games created today play goes with a scenario's game too: the ruleset's creation defaults
    # and the bot's own options' created values (the file sets no manual_dice: none, the bot draws)
    assert order["defaults"] == {"cd_depletion_after_hits": True, "cd_turn_rules": True, "manual_dice": "none"}
    game.options.update(order["defaults"])
    assert state_hash(replayed) == state_hash(game)
    del order["defaults"]  # a creation logged before: the scenario's game as it was
    assert Replayer().apply(1, order, [], False)[0].options == {"open_seating": True}
    assert "Set up from a scenario file: 9 units (Americans 5, Germans 4), 4 Locations" in \
        [step.label for step in outcome.trail]


def test_older_states_keep_their_shape():
    # the new fields are left out of a saved state while unset, so older states (and hashes) stand
    game = build_game(files.read(MINIMAL), sequence=SEQUENCE)
    game.turns = None
    game.sides[0].options = {}
    saved = game.model_dump(mode="json")
    assert "turns" not in saved and "options" not in saved["sides"][0]


MINIMAL = """\
ruleset: asl
title: Two squads
locations:
  - {id: B5, terrain: woods}
sides:
  - name: Germans
    units:
      - {id: A1, type: ger-467, location: B5}
  - name: Russians
    units: []
"""


def refusal(text: str, **kwargs) -> str:
    with pytest.raises(files.ScenarioFileError) as caught:
        files.read(text, **kwargs)
    return caught.value.message


def swap(old: str, new: str) -> str:
    assert old in MINIMAL
    return MINIMAL.replace(old, new)


@pytest.mark.parametrize("text, line, field, words", [
    (swap("title: Two squads", "title: [Two squads"), 3, None, "not valid YAML"),
    (swap("title: Two squads", "title: Two squads\nweather: rain"), 3, "'weather'", "unknown field 'weather'"),
    (swap("{id: A1, type: ger-467, location: B5}", "{id: A1, type: ger-467, location: B5, colour: red}"), 8,
     "'sides[0].units[0].colour'", "unknown field 'colour'"),
    (swap("title: Two squads", "title: Two squads\nturns: many"), 3, "'turns'", "takes a whole number, not 'many'"),
    (swap("{id: A1, type: ger-467,", "{id: A 1, type: ger-467,"), 8, "'sides[0].units[0].id'",
     "'A 1' is not a valid id: an id is 1 to 24 letters"),
    (swap("title: Two squads", "title: Two squads\noptions: {nigth: yes}"), 3, "'options.nigth'",
     "did you mean night?"),
    (swap("type: ger-467", "type: ger-999"), 8, "'sides[0].units[0].type'", "no counter type 'ger-999'"),
    (swap("location: B5}", "location: C9}"), 8, "'sides[0].units[0].location'", "not in the file's locations"),
    (swap("terrain: woods", "terrain: lava"), 4, "'locations[0].terrain'", "unknown terrain 'lava'"),
    (swap("ruleset: asl", "ruleset: chess"), 1, "'ruleset'", "chess"),
    (swap("  - name: Russians\n    units: []\n", ""), 5, "'sides'", "at least 2"),
    (swap("{id: A1, type: ger-467, location: B5}", "{id: A1, type: ger-467, location: B5, stats: {fp: 999}}"), 8,
     "'sides[0].units[0].stats'", "fp 999 is outside"),
    (swap("{id: A1, type: ger-467, location: B5}", "{id: A1, type: ger-467, location: B5, markers: [sleepy]}"), 8,
     "'sides[0].units[0].markers[0]'", "'sleepy' is not a marker"),
    (swap("  - name: Germans\n", "  - name: Germans\n    options: {elr: 9}\n"), 7, "'sides[0].options.elr'",
     "0 to 5 (A19.1)"),
    (swap("title: Two squads", "title: Two squads\ntitle: Three"), 3, "'title'", "given twice"),
    (swap("title: Two squads", "title: &t Two squads\nvariant: *t"), 2, None, "anchors and aliases"),
    ("- just\n- a list\n", 1, None, "a mapping of fields"),
    (swap("    units: []\n", "    units: []\n    hidden: {text: ''}\n"), 11, "'sides[1].hidden.text'",
     "needs at least 1 character"),
    (swap("    units: []\n", "    units: []\n    hidden: {text: Ambush, units: [A9]}\n"), 11,
     "'sides[1].hidden.units'", "unknown field 'units' (fields here: text)"),
    (swap("    units: []\n", "    units: []\n    hidden: {orders: Ambush}\n"), 11,
     "'sides[1].hidden.orders'", "unknown field 'orders'"),
    (swap("    units: []\n", "    units: []\n    hidden: [Ambush]\n"), 11, "'sides[1].hidden'", "hidden"),
    (swap("  - name: Germans\n", "  - name: Germans\n    hidden: {text: " + "x" * 1501 + "}\n"), 7,
     "'sides[0].hidden.text'", "at most 1500 characters"),
])
def test_a_bad_file_is_refused_with_its_line_and_field(text, line, field, words):
    message = refusal(text)
    assert message.startswith(f"Scenario file, line {line}" + (f", {field}:" if field else ":")), message
    assert words in message, message


UNIT = "{id: A1, type: ger-467, location: B5}"


def unit_with(fields: str) -> str:
    return swap(UNIT, UNIT[:-1] + ", " + fields + "}")


@pytest.mark.parametrize("text, expected", [
    # a whole number: of the file's own fields, and of a unit's stats (the ruleset's counter says it)
    (swap("title: Two squads", "title: Two squads\nturns: many"),
     "line 3, 'turns': 'turns' takes a whole number, not 'many'"),
    (unit_with("stats: {morale: high}"),
     "line 8, 'sides[0].units[0].stats.morale': A1: 'morale' takes a whole number, not 'high'"),
    # a number with a fraction where a whole one is wanted
    (swap("title: Two squads", "title: Two squads\nturns: 2.5"),
     "line 3, 'turns': 'turns' takes a whole number, not '2.5'"),
    (unit_with("stats: {morale: 7.5}"),
     "line 8, 'sides[0].units[0].stats.morale': A1: 'morale' takes a whole number, not '7.5'"),
    # yes or no
    (swap("{id: B5, terrain: woods}", "{id: B5, terrain: woods, smoke: thick}"),
     "line 4, 'locations[0].smoke': 'smoke' takes yes or no, not 'thick'"),
    (unit_with("stats: {broken: maybe}"),
     "line 8, 'sides[0].units[0].stats.broken': A1: 'broken' takes yes or no, not 'maybe'"),
    # a choice
    (unit_with("stats: {quality: superb}"), "line 8, 'sides[0].units[0].stats.quality': A1: 'quality' takes elite, "
                                            "first_line, second_line, green or conscript, not 'superb'"),
    # missing
    (swap(UNIT, "{type: ger-467, location: B5}"), "line 8, 'sides[0].units[0].id': 'id' is missing: it is required"),
    (swap(UNIT, "{id: A1, stats: {fp: 4}}"), "line 8, 'sides[0].units[0]': A1: 'kind' is required"),
    # an unknown field
    (unit_with("colour: red"), "line 8, 'sides[0].units[0].colour': unknown field 'colour' (fields here: id, type, "
                               "name, location, held_by, markers, stats)"),
    (unit_with("stats: {armour: 3}"), "line 8, 'sides[0].units[0].stats.armour': units of Advanced Squad Leader "
                                      "have no field 'armour'"),
    # a list where one value goes, a value where a list goes, a list of the wrong things
    (unit_with("markers: broken"), "line 8, 'sides[0].units[0].markers': 'markers' takes a list, written [a, b] or "
                                   "one '- item' a line, not 'broken'"),
    (swap("{id: B5, terrain: woods}", "{id: B5, terrain: woods, features: [hill, 3]}"),
     "line 4, 'locations[0].features[1]': 'features' item 2 takes text, not '3'"),
    (unit_with("stats: {fp: [1, 2]}"),
     "line 8, 'sides[0].units[0].stats.fp': 'fp' takes a whole number, not '[1, 2]'"),
    (swap("title: Two squads", "title: Two squads\noptions: {night: [a, b]}"),
     "line 3, 'options.night': 'night' takes one value: a number, yes or no, or a word, not '['a', 'b']'"),
    (unit_with("stats: [fp]"), "line 8, 'sides[0].units[0].stats': 'stats' takes fields written 'key: value' (one "
                               "a line, or {key: value, ...}), not '['fp']'"),
])
def test_each_kind_of_bad_value_is_refused_in_players_words_with_its_line_and_field(text, expected):
    """Issue 30: the reader answered "Input should be a valid integer, unable to parse string as an
    integer"; every kind of bad value is said as what the field takes, on its line."""
    message = refusal(text)
    assert message == f"Scenario file, {expected}", message
    for pydantic_words in ("Input should", "valid integer", "Field required", "Extra inputs", "unable to"):
        assert pydantic_words not in message


CD = """\
ruleset: cd
title: Two companies
locations:
  - {id: farm}
sides:
  - name: Americans
    units:
      - {id: U1, type: us-rifle, location: farm, stats: {company: Able}}
      - {id: U2, type: us-rifle, location: farm, stats: {company: Able}}
  - name: Germans
    units:
      - {id: G1, type: ger-rifle, stats: {company: Kampf}}
"""


def test_a_company_is_one_side_s_and_spelled_one_way():
    assert files.read(CD).sides[0].units[1].stats == {"company": "Able"}
    assert refusal(CD.replace("{company: Kampf}", "{company: Able}")) == (
        "Scenario file, line 12, 'sides[1].units[0].stats.company': G1: company Able belongs to Americans (U1); a "
        "unit of Germans is in one of its own")
    assert refusal(CD.replace("U2, type: us-rifle, location: farm, stats: {company: Able}",
                              "U2, type: us-rifle, location: farm, stats: {company: able}")) == (
        "Scenario file, line 9, 'sides[0].units[1].stats.company': U2: company 'able' is spelled 'Able' by U1: write "
        "it the same way, or it is another company")


def test_over_the_stacking_limit_names_the_unit_that_does_not_fit():
    units = "".join(f"      - {{id: A{i}, type: ger-467, location: B5}}\n" for i in range(2, 5))
    text = swap("      - {id: A1, type: ger-467, location: B5}\n",
                "      - {id: A1, type: ger-467, location: B5}\n" + units)
    message = refusal(text)
    assert message.startswith("Scenario file, line 11, 'sides[0].units[3].location': A4: B5 would hold 4 "), message
    assert "(A5.1)" in message


def test_a_file_for_another_ruleset_is_refused_by_the_game_it_is_loaded_into():
    message = refusal(MINIMAL, ruleset="nhis")
    assert message.startswith("Scenario file, line 1, 'ruleset': this scenario is for 'asl'"), message
    cd_side_option = swap("  - name: Germans\n", "  - name: Germans\n    options: {elr: 3}\n").replace(
        "ruleset: asl", "ruleset: cd").replace("type: ger-467", "type: ger-rifle").replace("terrain: woods", "")
    assert "'elr' belongs to Advanced Squad Leader games" in refusal(cd_side_option)


def test_a_weapon_is_held_by_a_unit_of_its_own_side():
    text = swap("  - name: Russians\n    units: []\n",
                "  - name: Russians\n    units:\n      - {id: MG9, type: rus-lmg, held_by: A1}\n")
    message = refusal(text)
    assert message.startswith("Scenario file, line 11, 'sides[1].units[0].held_by': MG9 is held by 'A1'"), message


def test_two_units_with_one_id_and_a_file_too_big_are_refused():
    text = swap("      - {id: A1, type: ger-467, location: B5}\n",
                "      - {id: A1, type: ger-467, location: B5}\n      - {id: a1, type: ger-467}\n")
    assert refusal(text).startswith("Scenario file, line 9, 'sides[0].units[1].id': there are two units 'a1'")
    assert "at most 262,144" in refusal(b"#" * (files.MAX_BYTES + 1))
    assert "not UTF-8" in refusal(b"title: \xff\n")


def test_given_options_replace_the_files():
    scenario = files.read(MINIMAL, title="Renamed", side_names=["Axis", "Allies"], side_options={"elr": [4, None]})
    game = build_game(scenario, sequence=SEQUENCE)
    assert game.scenario == "Renamed" and [s.name for s in game.sides] == ["Axis", "Allies"]
    assert game.sides[0].elr == 4


def test_what_is_given_with_the_file_is_checked_as_the_file_is():
    from bot.core.errors import InvalidOrder

    with pytest.raises(InvalidOrder, match=r"'sides\[0\].name' takes at most 60 characters"):
        files.read(MINIMAL, side_names=["x" * 61, "Allies"])


HIDDEN = swap("    units: []\n", "    units: []\n    hidden: {text: 'Ambush from B5 at turn 2'}\n")


def test_a_hidden_part_is_kept_out_of_the_game_and_the_log_and_written_only_when_given():
    from bot.core.scenario import HIDDEN_MAX, hidden_parts, public_setup
    from bot.record.sealing import SEALED_MAX

    scenario = files.read(HIDDEN)
    assert hidden_parts(scenario) == {1: "Ambush from B5 at turn 2"} and HIDDEN_MAX == SEALED_MAX
    assert "Ambush" not in json.dumps(public_setup(scenario))  # what the creation entry keeps
    order = creation_order("asl", ["Germans", "Russians"], "Two squads", None, {}, 7, setup=public_setup(scenario))
    game = build_game(scenario, gm=7, sequence=SEQUENCE)
    assert "Ambush" not in json.dumps(order) and "Ambush" not in json.dumps(game.model_dump(mode="json"))
    assert "Ambush" not in files.write(game)  # the game holds no hidden part: none is written
    written = files.write(game, hidden={1: "Ambush from B5 at turn 2"})  # a revealed one is
    assert hidden_parts(files.read(written)) == {1: "Ambush from B5 at turn 2"}
    assert load(written) == game
    schema = json.loads((ROOT / "docs" / "scenario.schema.json").read_text())
    data = yaml.safe_load(written)
    jsonschema.validate(data, schema)
    data["sides"][1]["hidden"]["units"] = []  # the schema knows the hidden part's one field
    with pytest.raises(jsonschema.ValidationError, match="Additional properties"):
        jsonschema.validate(data, schema)
