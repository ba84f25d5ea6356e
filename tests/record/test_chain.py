"""The hash chain: canonical JSON, entry hashes that cover every field, the dice a replay needs."""

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.record import GENESIS_HASH, LogEntry, canonical_json, consumed_dice, state_hash

FIELDS = dict(game_id=3, seq=2, time="2026-01-01T00:00:00.000+00:00", actor=100, command="/fire",
              order={"action": "fire", "firers": ["A1"]}, dice=(3, 4), manual=True,
              outcome={"headline": "DR 7"}, state_hash="ab" * 32, interaction_id=77)


def test_canonical_json_does_not_depend_on_key_order():
    assert canonical_json({"b": 1, "a": [1, {"d": 2, "c": 3}]}) == canonical_json({"a": [1, {"c": 3, "d": 2}], "b": 1})
    assert canonical_json({"a": 1}) == '{"a":1}'


def test_the_state_hash_changes_with_any_change_of_state():
    game = new_game("asl", sides=["Germans", "Russians"])
    moved = game.model_copy(update={"turn": 2})
    assert state_hash(game) == state_hash(game.model_copy(deep=True))
    assert state_hash(game) != state_hash(moved)


def test_a_sealed_entry_links_to_the_previous_hash():
    entry = LogEntry.seal(prev_hash=GENESIS_HASH, **FIELDS)
    assert entry.hash == entry.expected_hash() and len(entry.hash) == 64
    assert LogEntry.seal(prev_hash="f" * 64, **FIELDS).hash != entry.hash


@pytest.mark.parametrize("field,value", [
    ("game_id", 4), ("seq", 3), ("time", "2026-01-01T00:00:01.000+00:00"), ("actor", 200),
    ("command", "/morale"), ("order", {"action": "fire", "firers": ["A2"]}), ("dice", (3, 5)),
    ("manual", False), ("outcome", {"headline": "DR 8"}), ("state_hash", "cd" * 32), ("interaction_id", None),
])
def test_the_entry_hash_covers_every_field(field, value):
    entry = LogEntry.seal(prev_hash=GENESIS_HASH, **FIELDS)
    edited = entry.model_copy(update={field: value})
    assert edited.expected_hash() != entry.hash


def test_the_dice_logged_are_those_handed_out_including_unused_manual_dice():
    game = new_game("asl", sides=["Germans", "Russians"])
    outcome = resolve(game, {"action": "phase"}, ScriptedDice([6, 1])).outcome
    assert outcome.unused_dice == (6, 1)
    assert consumed_dice(outcome) == [6, 1]  # a replay with these reproduces unused_dice too
