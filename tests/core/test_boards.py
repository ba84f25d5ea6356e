"""Scenario files laying out several ASL boards (issue 26): the boards in the game, hexes named with
their board, the range counted across them, the layout written back; refusals name the field."""

from __future__ import annotations

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.grid import GRID_MARK
from bot.core.scenario import Scenario, ScenarioRefused, build_game, scenario_of


def two_boards(**extra) -> Scenario:
    return Scenario.model_validate({
        "ruleset": "asl", "title": "Two boards", "options": {},
        "boards": [{"id": "32", "x": 0}, {"id": "33", "x": 1}],
        "locations": [{"id": "32EE5"}, {"id": "33C5", "terrain": "open"}, {"id": "32FF5", "terrain": "grain"}],
        "sides": [{"name": "Germans", "options": {"elr": 3},
                   "units": [{"id": "G1", "type": "ger-467", "location": "32EE5"}]},
                  {"name": "Russians", "options": {"elr": 3},
                   "units": [{"id": "R1", "type": "rus-447", "location": "33C5"}]}],
        **extra})


def test_a_scenario_lays_two_boards_side_by_side_and_the_range_is_counted_across_them():
    game = build_game(two_boards(), sequence=None)
    assert [(b.id, b.x, b.y, b.reversed) for b in game.boards] == [("32", 0, 0, False), ("33", 1, 0, False)]
    game.options[GRID_MARK] = 1  # as a game created today (the creation default)
    game.phase = "PFPh"
    resolution = resolve(game, {"action": "fire", "firers": ["G1"], "target": "33C5"}, ScriptedDice([6, 6, 3, 3]))
    labels = [s.label for s in resolution.outcome.trail]
    assert "range 4 (32EE5 to 33C5), counted on the map" in labels  # EE FF GG=A B C
    # the line runs along row 5 of the even columns: along the hexside of 32FF4 and 32FF5 (grain, inherent
    # terrain: it hinders the line on either side, A6.1), across the shared column 32GG5 = 33A5, then along
    # the hexside of 33B4 and 33B5
    assert ("along the hexside of 32FF4 and 32FF5 (blocked only if both sides block): terrain unknown | Grain "
            "(in season) -> hindrance +1") in labels
    assert "32GG5: terrain unknown -> unknown" in labels
    assert ("along the hexside of 33B4 and 33B5 (blocked only if both sides block): terrain unknown | terrain "
            "unknown -> unknown") in labels
    drms = [(s.label, s.value) for s in resolution.outcome.trail if s.kind == "modifier"]
    assert ("hindrance read on the map: 32FF4/32FF5 Grain (in season) +1", "+1") in drms
    assert scenario_of(game).boards == two_boards().boards  # written back as laid out


def test_boards_are_refused_where_they_cannot_be():
    with pytest.raises(ScenarioRefused) as twice:
        build_game(two_boards(boards=[{"id": "32"}, {"id": "32", "x": 1}]))
    assert (twice.value.field, twice.value.message) == ("boards.1.id", "board 32 is laid out twice")
    with pytest.raises(ScenarioRefused) as same_place:
        build_game(two_boards(boards=[{"id": "32"}, {"id": "33"}]))
    assert same_place.value.message == "two boards at x=0, y=0"
    nhis = two_boards(ruleset="nhis", locations=[], sides=[{"name": "US"}, {"name": "Japan"}])
    with pytest.raises(ScenarioRefused) as no_boards:
        build_game(nhis)
    assert no_boards.value.message == "No Honor in Surrender maps are not laid out of boards: leave boards out"
