"""The data a ruleset declares for its sides and Locations (``Ruleset.side_fields``, ``location_fields``:
ASL's ELR, Residual FP and SMOKE) is carried by the shared model as data, and a game's saved state is what it
was when these were fields of the shared model: the golden file holds states and hashes written by the tree
before the change (``python tests/core/test_declared_data.py --write`` on that tree), which must load, dump
and hash the same, and be made again, hash for hash, from the same set-ups."""

from __future__ import annotations

import json
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pytest
import yaml
from pydantic import ValidationError

from bot.core.api import new_game, resolve
from bot.core.data import data_path
from bot.core.dice import ScriptedDice
from bot.core.game import Game
from bot.core.rulesets import get_ruleset, names
from bot.core.scenario import Scenario, build_game
from bot.core.sides import possessive
from bot.record.chain import game_json, saved_state, state_hash

GOLDEN = Path(__file__).resolve().parent / "golden" / "declared_data.json"

INLINE = {  # a scenario giving every declared number a value that is not its default
    "ruleset": "asl", "title": "Declared data",
    "locations": [{"id": "B5", "terrain": "woods", "smoke": True, "residual_fp": 4}, {"id": "C5", "smoke": True},
                  {"id": "D5", "residual_fp": 2}, {"id": "E5"}],
    "sides": [{"name": "Germans", "options": {"elr": 3}, "units": [{"id": "A1", "type": "ger-467", "location": "B5"}]},
              {"name": "Russians", "options": {"elr": 2}}],
}


def _sample(path: Path) -> Scenario:
    return Scenario.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def cases() -> dict[str, Game]:
    """Games of each ruleset made from the set-ups the shared code makes them from: a new game (ASL
    with its ELR per side), a Location set by an order, the sample scenarios, an inline scenario."""
    found: dict[str, Game] = {}
    for name in ("asl", "nhis", "cd"):
        options = {"elr": [3, None]} if name == "asl" else {}
        game = new_game(name, sides=["First", "Second"], scenario="Declared", options=options)
        found[f"{name}-new"] = game
        found[f"{name}-location"] = resolve(game, {"action": "location_set", "location": "B5",
                                                   "terrain": get_ruleset(name).default_terrain()},
                                            ScriptedDice([])).game
        for path in sorted(data_path(name, "scenarios").glob("*.yaml")):
            found[f"{name}-{path.stem}"] = build_game(_sample(path))
    found["asl-inline"] = build_game(Scenario.model_validate(INLINE))
    return found


def golden() -> dict[str, dict[str, str]]:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


@pytest.mark.parametrize("name", sorted(golden()))
def test_a_state_saved_before_loads_dumps_and_hashes_the_same(name):
    logged = golden()[name]
    game = Game.model_validate_json(logged["state"])  # as the store saved it: in the game's own order
    data = game.model_dump(mode="json")
    assert game_json(data) == game_json(json.loads(logged["state"]))  # the canonical text the hash covers
    # the store's own order too, but for a side's declared data, now after its (scenario) options
    assert json.loads(game_json(data, ordered=True)) == json.loads(logged["state"])
    assert state_hash(game) == logged["hash"]
    assert repr(game) == logged["repr"]


@pytest.mark.parametrize("name", sorted(golden()))
def test_the_same_set_up_makes_the_same_state_hash_for_hash(name):
    game = cases()[name]
    assert state_hash(game) == golden()[name]["hash"]
    assert repr(game) == golden()[name]["repr"]


def test_the_declared_numbers_are_read_and_refused_by_the_rulesets_models():
    game = cases()["asl-inline"]
    assert [side.elr for side in game.sides] == [3, 2]
    assert (game.locations["B5"].residual_fp, game.locations["B5"].smoke) == (4, True)
    assert (game.locations["E5"].residual_fp, game.locations["E5"].smoke) == (0, False)  # the defaults, written
    state = json.loads(game_json(game.model_dump(mode="json")))
    state["locations"]["B5"]["residual_fp"] = 37  # over the marker's 36 (the ASL model's bound)
    with pytest.raises(ValidationError, match="less than or equal to 36"):
        Game.model_validate(state)
    state["locations"]["B5"]["residual_fp"] = 4
    state["locations"]["B5"]["mud"] = True  # no ruleset declares it
    with pytest.raises(ValidationError, match="mud"):
        Game.model_validate(state)
    nhis = json.loads(game_json(cases()["nhis-new"].model_dump(mode="json")))
    nhis["sides"][0]["elr"] = 3  # an NHiS side carries no ELR: always null
    with pytest.raises(ValidationError, match="elr"):
        Game.model_validate(nhis)


def test_every_registered_ruleset_declares_what_its_games_carried():
    for ruleset in names():
        game = new_game(ruleset, sides=["A", "B"])
        assert Game.model_validate_json(saved_state(game).text) == game


def _write() -> None:
    GOLDEN.write_text(json.dumps({name: {"hash": state_hash(game), "repr": repr(game),
                                         "state": game_json(game.model_dump(mode="json"), ordered=True)}
                                  for name, game in cases().items()}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()


@pytest.mark.parametrize(("name", "owning"), [("Russians", "Russians'"), ("US Marines", "US Marines'"),
                                              ("Germany", "Germany's"), ("Japanese", "Japanese's"),
                                              ("US", "US's"), ("SS", "SS's")])
def test_a_sides_name_owns_as_a_player_writes_it(name, owning):
    assert possessive(name) == owning
