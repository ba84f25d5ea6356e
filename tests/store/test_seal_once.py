"""LogEntry.seal encodes the outcome once (issue 5) and must give the hash and the stored text
the separate encodings gave: the reference below is how seal and the store did it before."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.version import LEGACY_RULES_VERSION
from bot.record import GENESIS_HASH, LogEntry, consumed_dice, state_hash
from bot.store.sqlite import _entry_params, pack_json


def old_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def old_hash(entry: LogEntry) -> str:
    """LogEntry.seal's hash before issue 5: the whole body dumped, then encoded as one value."""
    body = entry.model_dump(mode="json", exclude={"prev_hash", "hash"})
    if entry.rules_version == LEGACY_RULES_VERSION:
        del body["rules_version"]
    if entry.dice_proof is None:  # an entry without committed dice hashes as before the field existed
        del body["dice_proof"]
    return hashlib.sha256((entry.prev_hash + old_canonical(body)).encode("utf-8")).hexdigest()


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats()
                    | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(outcome=st.dictionaries(st.text(max_size=8), JSON, max_size=6),
       order=st.dictionaries(st.text(max_size=8), JSON, max_size=4),
       rules_version=st.sampled_from([LEGACY_RULES_VERSION, 2, 7]), interaction_id=st.none() | st.integers(0, 2**62),
       text=st.text(max_size=10), proof=st.none() | st.dictionaries(st.text(max_size=6), JSON, max_size=3))
def test_seal_hashes_and_stores_what_the_separate_encodings_gave(outcome, order, rules_version, interaction_id, text,
                                                                  proof):
    entry = LogEntry.seal(prev_hash="e" * 64, game_id=9, seq=4, time=text, actor=5, command=f"/{text}", order=order,
                          dice=(1, 6), manual=False, outcome=outcome, state_hash="ab" * 32,
                          interaction_id=interaction_id, rules_version=rules_version, dice_proof=proof)
    assert entry.hash == old_hash(entry) == entry.expected_hash()
    assert entry.outcome_json() == old_canonical(entry.outcome)


def test_a_fire_entry_is_stored_with_the_bytes_and_hash_of_before():
    game = scenarios.build("asl")
    resolution = resolve(game, scenarios.asl_fire(), SeededDice(3))
    outcome = resolution.outcome.model_dump(mode="json")
    entry = LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=7, time="2026-11-23T12:00:00.000+00:00", actor=1,
                          command="/fire", order=scenarios.asl_fire(), dice=consumed_dice(resolution.outcome),
                          manual=False, outcome=outcome, state_hash=state_hash(resolution.game), interaction_id=3)
    assert entry.hash == old_hash(entry)
    assert _entry_params(entry)[8] == pack_json(old_canonical(outcome))
    assert _entry_params(entry, pack=None)[8] == old_canonical(outcome)


def test_an_outcome_that_is_not_plain_json_is_hashed_and_stored_as_before():
    entry = LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=1, time="t", actor=1, command="/x",
                          order={"action": "x"}, outcome={"odds": float("inf"), "nan": float("nan")},
                          state_hash="ab" * 32)
    assert entry.hash == old_hash(entry)  # the hash covers null, as model_dump(mode="json") gives
    assert entry.outcome_json() == old_canonical(entry.outcome) == '{"nan":NaN,"odds":Infinity}'


def test_an_entry_whose_outcome_is_replaced_is_stored_with_its_own_outcome():
    """The text kept from sealing belongs to the outcome dict it was encoded from, nothing else."""
    entry = LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=1, time="t", actor=1, command="/x",
                          order={"action": "x"}, outcome={"headline": "sealed"}, state_hash="ab" * 32)
    edited = entry.model_copy(update={"outcome": {"headline": "edited"}})
    assert entry.outcome_json() == '{"headline":"sealed"}'
    assert edited.outcome_json() == '{"headline":"edited"}'
    assert LogEntry.model_validate(entry.model_dump()).outcome_json() == '{"headline":"sealed"}'
