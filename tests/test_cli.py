"""`python -m bot`: the rules interface through real subprocesses, exit codes, no tracebacks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.json"))

SQUAD = {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}


def run_bot(*args, stdin="", env=None):
    clean = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_TOKEN")
             and not k.startswith("REFEREE_")}
    clean.update(env or {})
    return subprocess.run([sys.executable, "-m", "bot", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=clean, timeout=60)


def rules(request):
    return run_bot("rules", stdin=json.dumps(request) if not isinstance(request, str) else request)


def asl_request(order, **extra):
    return {"ruleset": "asl", "situation": {"sides": ["Germans", "Russians"], "scenario": "CLI",
                                            "units": [{"id": "A1", "side": 0, "location": "B5", "stats": SQUAD}]},
            "order": order, **extra}


def refused(result):
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    return result.stderr.strip()


# --- rules: success ---

def test_setup_request_answers_outcome_and_game():
    result = rules(asl_request({"action": "unit_add", "id": "R1", "side": 1, "location": "C4",
                                "stats": {"kind": "squad", "name": "4-4-7", "morale": 7}}))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["outcome"]["headline"] == "4-4-7 R1 joins Russians"
    assert answer["outcome"]["effects"][0]["effects"] == ["added"]
    assert set(answer["game"]["units"]) == {"A1", "R1"}
    assert answer["game"]["scenario"] == "CLI"


def test_situation_sets_locations_phase_and_turn():
    request = {"ruleset": "nhis", "situation": {
        "sides": ["US", "Japan"], "phase": "Operations Phase", "turn": 3, "active_side": 1,
        "locations": [{"id": "0405", "terrain": "jungle", "features": ["hill"]}]},
        "order": {"action": "unit_add", "id": "J1", "side": 1, "location": "0405", "stats": {"kind": "squad"}}}
    result = rules(request)
    assert result.returncode == 0, result.stderr
    game = json.loads(result.stdout)["game"]
    assert (game["phase"], game["turn"], game["active_side"]) == ("Operations", 3, 1)
    assert game["locations"]["0405"]["features"] == ["hill"]


def test_the_game_written_can_be_given_back():
    first = json.loads(rules(asl_request({"action": "unit_move", "unit": "A1", "location": "B6"})).stdout)
    second = rules({"ruleset": "asl", "game": first["game"], "order": {"action": "unit_remove", "unit": "A1"}})
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["game"]["units"] == {}


def test_manual_dice_not_needed_are_reported_unused():
    result = rules(asl_request({"action": "unit_move", "unit": "A1", "location": "B6"}, dice=[3, 4]))
    assert json.loads(result.stdout)["outcome"]["unused_dice"] == [3, 4]


# --- rules: refusals ---

def test_malformed_json_exits_2_with_a_message():
    message = refused(rules('{"ruleset": "asl", '))
    assert message.startswith("malformed JSON on stdin:")


def test_json_nested_200000_deep_is_refused_not_an_internal_error():
    deep = '{"ruleset": "asl", "order": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert refused(rules(deep)) == "the JSON on stdin nests deeper than 40 levels"
    assert refused(rules(asl_request({"action": "morale", "unit": "A1", "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
        ]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}))) == "the JSON on stdin nests deeper than 40 levels"


@pytest.mark.parametrize("digits", [5000, 400])
def test_a_huge_number_is_refused_not_an_internal_error(digits):
    text = json.dumps(asl_request({"action": "unit_move", "unit": "A1", "location": "B6"})).replace(
        '"B6"}', '"B6", "n": ' + "9" * digits + "}")
    assert refused(rules(text)).startswith("the JSON on stdin holds a number out of range (")


def test_a_supplied_game_is_held_to_the_bots_caps():
    from bot.core.setup import MAX_LOCATIONS, MAX_UNITS

    game = json.loads(rules(asl_request({"action": "unit_move", "unit": "A1", "location": "B6"})).stdout)["game"]
    unit = game["units"]["A1"]
    many = dict(game, units={f"U{i}": dict(unit, id=f"U{i}") for i in range(MAX_UNITS + 1)})
    message = refused(rules({"ruleset": "asl", "game": many, "order": {"action": "unit_remove", "unit": "U1"}}))
    assert message == f"invalid order: the game has {MAX_UNITS + 1} units; a game may have at most {MAX_UNITS}"
    places = dict(game, locations={f"L{i}": {"id": f"L{i}", "terrain": "open"} for i in range(MAX_LOCATIONS + 1)})
    message = refused(rules({"ruleset": "asl", "game": places, "order": {"action": "unit_remove", "unit": "A1"}}))
    assert message.startswith(f"invalid order: the game has {MAX_LOCATIONS + 1:,} locations")


def test_a_replay_longer_than_a_log_may_be_is_refused(tmp_path, monkeypatch):
    from bot import cli
    from bot.store import base

    monkeypatch.setattr(base, "MAX_LOG_ENTRIES", 2)
    with pytest.raises(ValueError, match="it holds 4 entries; a game's log holds at most 2"):
        cli.load_export(export(tmp_path, logged_entries() + [logged_entries()[0]]))
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    result = run_bot("rules", "replay", str(tmp_path / "deep.json"))
    assert result.returncode == 2 and result.stderr.strip().endswith("the JSON in the file nests deeper than 40 levels")


def test_a_request_that_is_not_an_object_is_refused():
    assert "one JSON object" in refused(rules("[1, 2]"))


def test_an_invalid_order_names_the_field():
    order = {"action": "fire", "firers": ["A1"], "target": "B6"}
    request = asl_request(order)
    request["situation"]["phase"] = "PFPh"  # a phase with fire: the order itself is what is wrong
    assert refused(rules(request)) == (
        "invalid order: give the range in hexes from the firers to the target (0 = same Location)")


def test_an_unknown_action_lists_the_actions():
    assert "has no action 'charge'" in refused(rules(asl_request({"action": "charge"})))


def test_a_request_without_ruleset_is_invalid():
    request = asl_request({"action": "unit_remove", "unit": "A1"})
    del request["ruleset"]
    assert refused(rules(request)) == "invalid request: 'ruleset' is required"


def test_game_and_situation_together_are_refused():
    request = asl_request({"action": "unit_remove", "unit": "A1"}, game={})
    assert "either 'game' or 'situation'" in refused(rules(request))


def test_a_situation_error_names_its_entry():
    request = asl_request({"action": "unit_remove", "unit": "A1"})
    request["situation"]["units"].append({"id": "a1", "side": 1, "stats": SQUAD})
    assert refused(rules(request)) == \
        "illegal order: situation.units[1] (a1): there is already a unit 'a1' in this game"


def test_an_unknown_phase_lists_the_phases():
    request = asl_request({"action": "unit_remove", "unit": "A1"})
    request["situation"]["phase"] = "Lunch"
    assert refused(rules(request)).startswith("invalid order: unknown phase 'Lunch' (phases: RPh, PFPh")


def test_a_game_of_another_ruleset_is_refused():
    game = new_game("cd", sides=["Blue", "Red"]).model_dump(mode="json")
    request = {"ruleset": "asl", "game": game, "order": {"action": "join", "side": 0, "player": 5}}
    assert "is a 'cd' game" in refused(rules(request))


# --- rules --schema ---

def test_schema_is_valid_json_schema_with_every_rulesets_orders():
    result = run_bot("rules", "--schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    for order in ("AslFire", "AslRally", "AslRecover", "NhisFire", "NhisMorale", "CdIndirectFire",
                  "CdArtilleryResponse", "UnitAdd", "LocationSet", "PhaseOrder"):
        assert order in schema["$defs"]
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(asl_request({"action": "rally", "unit": "A1"}))
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(asl_request({"action": "rally"}))


# --- rules replay ---

def export(tmp_path, entries):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    return str(path)


def logged_entries():
    entries = [{"seq": 1, "order": {"action": "new_game", "ruleset": "asl", "sides": ["Germans", "Russians"],
                                    "scenario": "Replay"}}]
    game = new_game("asl", sides=["Germans", "Russians"], scenario="Replay")
    for seq, (order, dice) in enumerate([
        ({"action": "unit_add", "id": "A1", "side": 0, "location": "B5", "stats": SQUAD}, None),
        ({"action": "unit_move", "unit": "A1", "location": "B6"}, [5]),
    ], start=2):
        res = resolve(game, order, ScriptedDice(dice or []))
        entries.append({"seq": seq, "order": order, "dice": dice,
                        "outcome": res.outcome.model_dump(mode="json")})
        game = res.game
    return entries


def test_replay_reproduces_every_entry(tmp_path):
    result = run_bot("rules", "replay", export(tmp_path, logged_entries()))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "3 entries reproduced bit for bit"


def test_replay_reports_the_first_difference(tmp_path):
    entries = logged_entries()
    entries[2]["outcome"]["headline"] = "4-6-7 A1 to B7"
    result = run_bot("rules", "replay", export(tmp_path, entries))
    assert result.returncode == 1
    assert result.stderr.strip() == ('entry 3 differs: outcome.headline: logged "4-6-7 A1 to B7", '
                                     'replayed "4-6-7 A1 to B6"')


def test_replay_of_a_missing_file_is_refused(tmp_path):
    result = run_bot("rules", "replay", str(tmp_path / "nope.json"))
    assert result.returncode == 2 and result.stderr.startswith("cannot read")
    assert "Traceback" not in result.stderr


# --- run ---

def test_run_without_a_token_exits_2_and_says_what_to_set(tmp_path):
    result = run_bot("run", env={"HOME": str(tmp_path)})
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr and "Traceback" not in result.stderr


def test_an_invalid_setting_is_one_line(tmp_path):
    result = run_bot("run", env={"HOME": str(tmp_path), "REFEREE_DEV_GUILD": "mine"})
    assert result.returncode == 2
    assert result.stderr.startswith("referee: invalid setting REFEREE_DEV_GUILD:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_help_lists_the_commands():
    result = run_bot("--help")
    assert result.returncode == 0
    assert all(word in result.stdout for word in ("run", "sandbox", "rules"))


# --- the documented examples cannot rot ---

def test_there_are_documented_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_documented_example_succeeds(path):
    result = run_bot("rules", stdin=path.read_text())
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)["outcome"]
    assert outcome["headline"] and outcome["trail"]
