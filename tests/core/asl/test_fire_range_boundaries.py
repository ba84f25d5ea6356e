"""ASL fire at, one below and one above each range threshold (A7.22): a firer's normal range is
fired at full FP, one hex beyond it at half (long range), twice it is the farthest it may fire.
Changing ``>`` to ``>=`` in either check halves or refuses fire that the rules allow; these catch it.

The firer: a 4-4-7 of normal range 4 (range given in the order), DR 11 (no effect: the FP side only).
"""

import pytest

from bot.core.errors import IllegalOrder

from .conftest import steps

NORMAL = 4


def squad_at_range(asl_game):
    return asl_game(phase="PFPh").squad("A1", 0, "A4", name="4-4-7", range=NORMAL).squad("R1", 1, "C5").game


@pytest.mark.parametrize(("distance", "halved"), [(NORMAL - 1, False), (NORMAL, False), (NORMAL + 1, True)],
                         ids=["one-below-normal", "at-normal", "one-above-normal"])
def test_long_range_halves_fp_only_beyond_normal_range_a7_22(asl_game, fire, distance, halved):
    out = fire(squad_at_range(asl_game), [5, 6], firers=["A1"], target="C5", range=distance).outcome
    assert steps(out, "multiplier") == ([("4-4-7 A1: long range", "x1/2", 2, "A7.22")] if halved else [])
    assert [(label, value) for label, value, _, _ in steps(out) if label == "IFT column"] == [
        ("IFT column", "2" if halved else "4")]


@pytest.mark.parametrize("distance", [2 * NORMAL - 1, 2 * NORMAL], ids=["one-below-twice", "at-twice"])
def test_fire_reaches_twice_its_normal_range_at_half_fp_a7_22(asl_game, fire, distance):
    out = fire(squad_at_range(asl_game), [5, 6], firers=["A1"], target="C5", range=distance).outcome
    assert steps(out, "multiplier") == [("4-4-7 A1: long range", "x1/2", 2, "A7.22")]


def test_fire_one_hex_beyond_twice_its_normal_range_is_refused_a7_22(asl_game, fire):
    with pytest.raises(IllegalOrder, match=r"^4-4-7 A1 has normal range 4: 9 hexes is beyond twice that \(A7\.22\)$"):
        fire(squad_at_range(asl_game), [5, 6], firers=["A1"], target="C5", range=2 * NORMAL + 1)
