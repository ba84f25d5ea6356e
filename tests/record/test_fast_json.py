"""orjson for the log's JSON (issue 14): the same bytes as the standard library's encoders, always.

Every value orjson spells otherwise than ``json`` (floats under 1e-4, NaN and the infinities,
ints past 64 bits, keys that are not str, lone surrogates, subclasses) is fed to both paths; the
fast path is shown to be the one taken for the ordinary state and outcome (else the guard would
make it pointless), and a hash is shown to stay what the standard library gives.
"""

import enum
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.api import new_game
from bot.record import GENESIS_HASH, LogEntry, canonical_json, state_hash
from bot.record import chain
from bot.record.chain import _FAST_ORDERED, _FAST_SORTED, _fast, game_json, saved_state, sha256

SORTED = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
ORDERED = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class Level(enum.IntEnum):
    LOW = 1


class Word(str, enum.Enum):
    A = "a"


class Text(str):
    pass


ODD = [
    1e16, 1e-4, 1e-5, 1.5e-7, -8.820270226109097e-05, 5e-324, -0.0, 0.0, 1e22, 1.7976931348623157e308,
    float("nan"), float("inf"), float("-inf"), 2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**40,
    {1: "a"}, {True: 1}, {None: 1}, {1.5: 2}, "\ud800", "\x00\x1f\x7f\u2028\u2029\ufeff\U0001f600 \"\\/",
    {"\U0001f600": 1, "\uffff": 2, "é": 3, "e": 4, "E": 5}, Level.LOW, Word.A, Text("x"), (1, (2.5, "b")),
    {"a": [None, 1e-9, {"b": float("nan")}]}, {"k": "value: ,1e-5 and :0.00001 in a str"}, [None, True, False],
]


def both(encoder: json.JSONEncoder, fast, value):
    try:
        expected = encoder.encode(value)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            fast(value)
        return
    assert fast(value) == expected


@pytest.mark.parametrize("value", ODD, ids=repr)
def test_every_value_orjson_spells_otherwise_comes_out_as_the_standard_library_writes_it(value):
    both(SORTED, canonical_json, value)
    if chain._finite(value):  # game_json's dumps hold no NaN (a Game's schema has no float)
        both(SORTED, game_json, {"v": value})
        both(ORDERED, lambda v: game_json(v, ordered=True), {"z": value, "a": value})


def test_the_guard_sends_each_odd_value_to_the_standard_library():
    for value in (1e-5, 1.5e-7, float("nan"), float("inf"), 2**64, {1: "a"}, "\ud800", Text("x")):
        assert _fast([value], _FAST_SORTED) is None, value
    for value in (1e16, 1e-4, -0.0, 2**63, "é\U0001f600", None, {"k": "1e-5"}):
        assert _fast([value], _FAST_SORTED) == SORTED.encode([value]), value


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_encodes_as_the_standard_library_does(value):
    both(SORTED, canonical_json, value)
    both(ORDERED, lambda v: chain._fast(v, _FAST_ORDERED) or ORDERED.encode(v), value)


def standard_game():
    from bench.scenarios import build  # noqa: PLC0415
    return build("asl")


def test_the_state_takes_the_fast_path_and_hashes_as_before():
    game = standard_game()
    data = game.model_dump(mode="json")
    assert chain._GAME_FINITE  # the Game's schema holds no float: a dump holds no NaN
    assert _fast(data, _FAST_SORTED, finite=True) == SORTED.encode(data)  # taken, and the same bytes
    assert _fast(data, _FAST_ORDERED, finite=True) == ORDERED.encode(data)
    saved = saved_state(game)
    assert saved.text == SORTED.encode(data) and saved.ordered == ORDERED.encode(data)
    assert state_hash(game) == sha256(SORTED.encode(data))


def test_a_nan_in_the_games_options_hashes_as_the_standard_library_writes_it():
    game = new_game("asl", sides=["Germans", "Russians"])
    odd = game.model_copy(update={"options": {"x": float("nan"), "y": 1e-7, "z": [float("inf")]}})
    data = odd.model_dump(mode="json")
    assert state_hash(odd) == sha256(SORTED.encode(data))
    assert saved_state(odd).ordered == ORDERED.encode(data)


def test_an_outcome_holding_odd_floats_is_sealed_and_saved_as_before():
    for outcome in ({"headline": "x", "value": 1e-6}, {"headline": "x", "total": float("nan")},
                    {"headline": "x", "total": None, "big": 2**70}, {"headline": "ok", "value": 2.5}):
        entry = LogEntry.seal(prev_hash=GENESIS_HASH, game_id=1, seq=1, time="t", actor=1, command="/fire",
                              order={"action": "fire", "n": 1e-5}, outcome=outcome, state_hash="ab" * 32)
        assert entry.hash == entry.expected_hash()
        assert entry.outcome_json() == SORTED.encode(outcome)
        if all(not isinstance(v, float) or math.isfinite(v) for v in outcome.values()):
            assert entry.expected_hash() == sha256(GENESIS_HASH + SORTED.encode(entry.body()))
