"""NHiS fire at, one below and one above each range threshold: a unit fires its full FP out to its
printed range, half (fractions dropped) beyond it, and at most twice it. Changing ``>`` to ``>=`` in
the long-range check halves fire at exactly the printed range; these catch it.

The standard shot of test_fire_modifiers.py: squad U1 (4 FP, printed range 3 here) at squad J1 in
open ground, 2d6 of 12 (no effect: the FP side only).
"""

import pytest

from bot.core.errors import IllegalOrder

from .conftest import fire, step
from .test_fire_modifiers import final_fp, shot

PRINTED = 3


@pytest.mark.parametrize(("distance", "fp"), [(PRINTED - 1, 4), (PRINTED, 4), (PRINTED + 1, 2)],
                         ids=["one-below-printed", "at-printed", "one-above-printed"])
def test_half_fp_only_beyond_the_printed_range(distance, fp):
    res = fire(shot(firer={"fp": 4, "range": PRINTED}), [6, 6], firers=["U1"], target="C1", range=distance)
    halved = [s for s in res.outcome.trail if s.label.startswith("Half FP beyond printed range")]
    assert len(halved) == (distance > PRINTED)
    assert final_fp(res) == fp
    if halved:
        assert step(res, "Half FP").label == "Half FP beyond printed range, fractions dropped (squad U1): 4 -> 2"


def test_fire_at_exactly_twice_the_printed_range_is_allowed_at_half_fp():
    res = fire(shot(firer={"fp": 4, "range": PRINTED}), [6, 6], firers=["U1"], target="C1", range=2 * PRINTED)
    assert final_fp(res) == 2


def test_fire_one_hex_beyond_twice_the_printed_range_is_refused():
    with pytest.raises(IllegalOrder, match=r"range 3: it may fire at most 6 hexes, not 7"):
        fire(shot(firer={"fp": 4, "range": PRINTED}), [6, 6], firers=["U1"], target="C1", range=2 * PRINTED + 1)
