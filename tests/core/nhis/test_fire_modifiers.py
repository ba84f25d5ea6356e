"""NHiS fire: the FP modifiers of the DRM list (seed 001), one at a time, and their order.

The standard shot: squad U1 (4 FP, range 5) in A1 fires at squad J1 in C1 (open ground) at
range 2; a 2d6 of 12 has no effect, so only the modifiers are under test.
"""

import pytest

from bot.core.errors import IllegalOrder

from .conftest import effects, fire, labels, nhis_game, step

DRM = "NHiS DRM list (seed 001)"
TERRAIN = "NHiS Terrain Chart (seed 001)"


def shot(terrain="open", *features, target=None, firer=None):
    b = nhis_game().hex("C1", terrain, *features)
    b.squad("U1", 0, "A1", **(firer or {}))
    b.squad("J1", 1, "C1", **(target or {}))
    return b.game


def final_fp(res):
    return step(res, "Final FP").value


def test_base_fp_is_the_firers_current_fp():
    res = fire(shot(), [6, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "FP of squad U1").value == 4
    assert final_fp(res) == 4


def test_a_reduced_firer_fires_its_reduced_fp():
    game = shot(firer={"reduced": True, "reduced_fp": 2})
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "FP of squad U1 (reduced)").value == 2 and final_fp(res) == 2


def test_a_stack_firing_together_adds_its_fp():
    game = shot()
    game.units["U2"] = game.units["U1"].model_copy(update={"id": "U2", "fp": 3})
    res = fire(game, [6, 6], firers=["U1", "U2"], target="C1", range=2)
    assert step(res, "Firepower").total == 7


def test_plus_2_on_a_moving_target():
    res = fire(shot(target={"moving": True}), [6, 6], firers=["U1"], target="C1", range=2)
    s = step(res, "Moving target")
    assert (s.kind, s.value, s.total, s.rule) == ("modifier", 2, 6, DRM)


def test_no_bonus_on_a_crawling_target():
    res = fire(shot(target={"moving": True, "crawling": True}), [6, 6], firers=["U1"], target="C1", range=2)
    assert not [x for x in labels(res) if x.startswith("Moving target")]
    assert final_fp(res) == 4


@pytest.mark.parametrize("marker", ["move", "charge"])
def test_plus_2_on_a_target_marked_move_or_charge(marker):
    res = fire(shot(target={"marker": marker}), [6, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "Moving target").value == 2 and final_fp(res) == 6


def test_brush_negates_the_moving_target_bonus():
    res = fire(shot("brush", target={"moving": True}), [6, 6], firers=["U1"], target="C1", range=2)
    assert "Brush negates the moving-target bonus (squad J1)" in labels(res, "note")
    assert final_fp(res) == 4


def test_plus_3_on_an_adjacent_target():
    res = fire(shot(), [6, 6], firers=["U1"], target="C1", range=1)
    s = step(res, "Target in an adjacent hex")
    assert (s.value, s.total, s.rule) == (3, 7, DRM)


def test_minus_2_for_each_firer_using_charge_movement():
    game = shot()
    game.units["U2"] = game.units["U1"].model_copy(update={"id": "U2"})
    res = fire(game, [6, 6], firers=["U1", "U2"], target="C1", range=2, charging=["U1", "U2"])
    charge = [s for s in res.outcome.trail if "Charge movement" in s.label]
    assert [(s.label, s.value) for s in charge] == [("squad U1 fires using Charge movement", -2),
                                                   ("squad U2 fires using Charge movement", -2)]
    assert final_fp(res) == 4
    assert effects(res)["U1"] == ("marked Charge",)


def test_minus_2_for_each_firer_beyond_night_visibility():
    res = fire(shot(), [6, 6], firers=["U1"], target="C1", range=2, beyond_visibility=["U1"])
    s = step(res, "squad U1 fires beyond night visibility")
    assert (s.value, s.total, s.rule) == (-2, 2, DRM)


@pytest.mark.parametrize("terrain,features,cover,how", [
    ("open", (), 0, "Open Ground 0"),
    ("trees", (), 2, "Trees 2"),
    ("huts", (), 1, "Huts 1"),
    ("wooden building", (), 2, "Wooden Building 2"),
    ("trees", ("foxhole",), 3, "Trees 2 Foxhole +1"),
    ("open", ("wreck",), 1, "Open Ground 0 Wreck +1"),
    ("trees", ("cave",), 8, "Trees 2 Cave +6"),
    ("trees", ("bunker", "foxhole"), 4, "Bunker 4, other terrain ignored"),
    ("open", ("hill",), 0, "Open Ground 0"),
])
def test_the_target_terrain_cover_factor_is_subtracted(terrain, features, cover, how):
    res = fire(shot(terrain, *features, firer={"fp": 10}), [6, 6], firers=["U1"], target="C1", range=2)
    s = step(res, "Cover Factor of C1")
    assert (s.label, s.value, s.rule) == (f"Cover Factor of C1: {how}", -cover, TERRAIN)
    assert final_fp(res) == 10 - cover


def test_a_hill_adds_1_cover_when_fired_on_from_lower_ground():
    res = fire(shot("open", "hill"), [6, 6], firers=["U1"], target="C1", range=2, from_lower=True)
    assert step(res, "Cover Factor of C1").label == "Cover Factor of C1: Open Ground 0 Hill +1 (fired on from lower)"
    assert final_fp(res) == 3


def test_a_feature_not_on_the_chart_is_named_and_gives_no_cover():
    res = fire(shot("open", "sandbags"), [6, 6], firers=["U1"], target="C1", range=2)
    assert "'sandbags' is not on the NHiS terrain chart: no cover" in labels(res, "note")
    assert final_fp(res) == 4


def test_half_fp_beyond_printed_range_drops_fractions():
    res = fire(shot(firer={"fp": 5, "range": 3}), [6, 6], firers=["U1"], target="C1", range=6)
    s = step(res, "Half FP beyond printed range")
    assert (s.kind, s.value, s.total, s.rule) == ("multiplier", "x1/2", 2, DRM)
    assert final_fp(res) == 2


def test_halving_comes_before_the_plus_and_minus_modifiers():
    # assumed (fire_table.yaml): 7 halved is 3, then +2 moving = 5 (not (7 + 2) / 2 = 4)
    game = shot(firer={"fp": 7, "range": 3}, target={"moving": True})
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=5)
    kinds = [s.kind for s in res.outcome.trail if s.kind in ("multiplier", "modifier")]
    assert kinds[:2] == ["multiplier", "modifier"]
    assert final_fp(res) == 5


def test_only_the_firers_beyond_their_range_are_halved_and_their_total_is_halved_once():
    game = shot(firer={"fp": 3, "range": 3})
    game.units["U2"] = game.units["U1"].model_copy(update={"id": "U2"})
    game.units["U3"] = game.units["U1"].model_copy(update={"id": "U3", "fp": 4, "range": 8})
    res = fire(game, [6, 6], firers=["U1", "U2", "U3"], target="C1", range=5)
    assert step(res, "Half FP").label == "Half FP beyond printed range, fractions dropped (squad U1, squad U2): 6 -> 3"
    assert final_fp(res) == 7


def test_fire_beyond_double_range_is_refused():
    with pytest.raises(IllegalOrder, match=r"range 5: it may fire at most 10 hexes, not 11"):
        fire(shot(), [6, 6], firers=["U1"], target="C1", range=11)


def test_final_fp_below_zero_has_no_effect_and_rolls_nothing():
    res = fire(shot("open", "bunker", firer={"fp": 1}), [], firers=["U1"], target="C1", range=2)
    assert res.outcome.headline == "-3 FP: below the Fire Table, no effect"
    assert res.outcome.rolls == () and res.outcome.cells == ()
    assert res.game.units["J1"] == shot().units["J1"]


def test_final_fp_of_zero_reads_the_0_column():
    res = fire(shot("open", "foxhole", firer={"fp": 1}), [6, 6], firers=["U1"], target="C1", range=2)
    assert res.outcome.headline == "0 FP -> column 0: 2d6 12 -> no effect"
