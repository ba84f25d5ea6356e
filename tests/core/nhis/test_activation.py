"""One activation per impulse (data/nhis/rules.yaml, "activation") in the rules core: only in games that
carry the internal option (games logged before it replay as played), the hex of the first action, a
Shaken leader refused, and the impulse stamps cleared at the end of the Operations Phase so the next
turn's impulse 1 starts afresh."""

from __future__ import annotations

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.nhis.activation import ACTIVATION
from bot.core.sequence import SEQUENCE

RULE = "NHiS impulse activation (assumed)"
SETUP = [{"action": "unit_add", "id": "M1", "type": "us-rifle-squad", "side": 0, "location": "0303"},
         {"action": "unit_add", "id": "L1", "type": "us-leader", "side": 0, "location": "0303"},
         {"action": "unit_add", "id": "M3", "type": "us-rifle-squad", "side": 0, "location": "0304"},
         {"action": "unit_add", "id": "J1", "type": "jp-rifle-squad", "side": 1, "location": "0405"},
         {"action": "phase", "to": "Operations"}]


def game(**options):
    played = new_game("nhis", sides=["US", "Japan"], options=options, sequence=SEQUENCE)
    for order in SETUP:
        played = resolve(played, order).game
    return played


def fire(played, firers, dice=(6, 6)):
    return resolve(played, {"action": "fire", "firers": firers, "target": "0405", "range": 2}, ScriptedDice(list(dice)))


def test_games_created_today_carry_the_option_and_older_ones_play_as_they_did():
    assert get_ruleset("nhis").creation_defaults == {ACTIVATION: True}
    older = fire(game(), ["M1"]).game
    assert fire(older, ["M3"]).outcome.action == "fire"  # two hexes in one impulse, as logged then
    today = fire(game(**{ACTIVATION: True}), ["M1"]).game
    with pytest.raises(IllegalOrder) as refused:
        fire(today, ["M3"])
    assert refused.value.rule == RULE


def test_a_shaken_leader_activates_nobody():
    played = game(**{ACTIVATION: True})
    played.units["L1"].shaken = True
    with pytest.raises(IllegalOrder) as refused:
        resolve(played, {"action": "activate", "leader": "L1", "units": ["M3"]})
    assert str(refused.value) == f"US Marine leader L1 is Shaken: only a Prepared leader activates a command ({RULE})"


def test_the_impulse_stamps_come_off_at_the_end_of_the_operations_phase():
    played = fire(game(**{ACTIVATION: True}), ["M3"]).game  # M3 alone in 0304: the impulse ends by itself
    assert (played.to_act, played.impulse) == (1, 2)
    assert played.units["M3"].activated_impulse == 1 and played.units["M3"].fired_impulse == 1
    for side in (1, 0):  # both pass: the Operations Phase ends
        played = resolve(played, {"action": "done", "side": side}).game
    assert played.phase == "Administrative"
    assert played.units["M3"].activated_impulse is None and played.units["M3"].fired_impulse is None


@pytest.mark.parametrize("gone", ["eliminated", "off board"])
@pytest.mark.parametrize("order", [{"action": "fire", "firers": ["M3"], "target": "0405", "range": 2},
                                   {"action": "fire", "firers": ["M1", "M3"], "target": "0405", "range": 2},
                                   {"action": "move", "units": ["M3"], "to": "0303"}],
                         ids=["fires-alone", "fires-with-another", "moves"])
def test_a_unit_eliminated_or_off_the_map_activates_no_hex_and_gets_its_orders_own_refusal(gone, order):
    # the first action of an impulse, by a unit that stands in no hex: the activation read an empty hex
    # and raised IndexError ("Something went wrong"), found by the random games of the full run
    played = game(**{ACTIVATION: True})
    unit = played.units["M3"]
    unit.location = None
    unit.eliminated = gone == "eliminated"
    with pytest.raises(IllegalOrder) as refused:
        resolve(played, order, ScriptedDice([6, 6]))
    said = "off board: the game master brings it on" if order["action"] == "move" and gone == "off board" \
        else f"M3 is {gone}"
    assert said in str(refused.value), str(refused.value)
    assert all(u.activated_impulse is None for u in played.units.values())  # nothing activated
