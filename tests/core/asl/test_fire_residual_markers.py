"""Residual FP (A8.2, A8.26) and fire markers, placed by attacks and removed at phase ends."""

from bot.core.api import resolve

from .conftest import labels, steps


def _dff(asl_game, *, residual=0, terrain="woods", **defender):
    defender.setdefault("fp", 4)
    return (asl_game(phase="MPh").hex("A4", terrain, residual_fp=residual).squad("A1", 0, "A4", moving=True)
            .squad("R1", 1, "B5", **defender).game)


def test_dff_leaves_half_its_column_as_residual_fp_a8_2(asl_game, fire):
    res = fire(_dff(asl_game), [6, 5], firers=["R1"], target="A4", range=1)  # 8 FP
    assert ("Residual FP 4 in A4", 4, None, "A8.2, A8.26") in steps(res.outcome, "marker")
    assert res.game.locations["A4"].residual_fp == 4


def test_residual_fp_is_one_column_lower_per_hindrance_a8_26(asl_game, fire):
    res = fire(_dff(asl_game, fp=8), [6, 5], firers=["R1"], target="A4", range=3, hindrance=1)
    assert res.outcome.cells[0].column == "8"
    assert res.game.locations["A4"].residual_fp == 2  # 8 -> 4, one column left -> 2


def test_residual_fp_is_one_column_lower_for_a_cx_firer_a8_26(asl_game, fire):
    res = fire(_dff(asl_game, cx=True), [6, 5], firers=["R1"], target="A4", range=1)
    assert ("CX firer (4-6-7 R1)", "+1", 1, "A4.51, A7.55") in steps(res.outcome, "modifier")
    assert res.game.locations["A4"].residual_fp == 2


def test_a_larger_residual_replaces_a_smaller_one_a8_2(asl_game, fire):
    res = fire(_dff(asl_game, residual=2), [6, 5], firers=["R1"], target="A4", range=1)
    assert "Residual FP 4 in A4 (replaces 2)" in labels(res.outcome, "marker")
    assert res.game.locations["A4"].residual_fp == 4


def test_a_smaller_residual_does_not_replace_a_larger_one_a8_2(asl_game, fire):
    res = fire(_dff(asl_game, residual=6), [6, 5], firers=["R1"], target="A4", range=1)
    assert "Residual FP 4 does not replace the 6 already in A4" in labels(res.outcome, "note")
    assert res.game.locations["A4"].residual_fp == 6


def test_residual_fp_is_at_most_12_a8_2(asl_game, fire):
    g = _dff(asl_game, fp=20, terrain="stone building")
    res = fire(g, [6, 5], firers=["R1"], target="A4", range=1, drm=3, drm_reason="scenario special rule")
    assert res.outcome.cells[0].column == "36+"
    assert res.game.locations["A4"].residual_fp == 12


def test_residual_fp_and_moving_flags_come_off_at_the_end_of_the_mph_seed_003(asl_game, fire):
    res = fire(_dff(asl_game), [6, 5], firers=["R1"], target="A4", range=1)
    after = resolve(res.game, {"action": "phase"})
    assert after.game.phase == "DFPh"
    assert after.game.locations["A4"].residual_fp == 0
    assert not after.game.units["A1"].moving
    assert "Residual FP 4 removed from A4" in labels(after.outcome, "marker")


def test_first_and_final_fire_markers_come_off_at_the_end_of_the_dfph_a8_4(asl_game):
    g = (asl_game(phase="DFPh").squad("A1", 0, "A4", fire_marker="prep")
         .squad("R1", 1, "B5", fire_marker="first").squad("R2", 1, "B5", fire_marker="final")
         .leader("L1", 1, "B5", fire_marker="first", led_group="R1").game)
    after = resolve(g, {"action": "phase"})
    assert after.game.phase == "AFPh"
    units = after.game.units
    assert (units["R1"].fire_marker, units["R2"].fire_marker, units["L1"].fire_marker) == (None, None, None)
    assert units["L1"].led_group is None
    assert units["A1"].fire_marker == "prep"  # Prep Fire stays until the end of the player turn
    assert "4-6-7 R1: First Fire marker removed" in labels(after.outcome, "marker")
    assert ("R2", ("Final Fire marker removed",)) in [(e.unit, e.effects) for e in after.outcome.effects]


def test_prep_fire_markers_come_off_at_the_end_of_the_player_turn_seed_003(asl_game):
    g = asl_game(phase="CCPh").squad("A1", 0, "A4", fire_marker="prep").game
    after = resolve(g, {"action": "phase"})
    assert (after.game.phase, after.game.active_side) == ("RPh", 1)
    assert after.game.units["A1"].fire_marker is None
    assert "4-6-7 A1: Prep Fire marker removed" in labels(after.outcome, "marker")


def test_prep_fire_markers_stay_through_the_afph(asl_game):
    g = asl_game(phase="AFPh").squad("A1", 0, "A4", fire_marker="prep").game
    after = resolve(g, {"action": "phase"})
    assert after.game.units["A1"].fire_marker == "prep"


def test_a_directing_leader_is_marked_and_remembers_its_group_a7_53(asl_game, fire):
    g = _dff(asl_game)
    g.units["L1"] = g.units["R1"].model_copy(update={"id": "L1", "kind": "leader", "name": "9-1", "fp": 0,
                                                      "leadership": -1})
    res = fire(g, [6, 5], firers=["R1"], leader="L1", target="A4", range=1)
    assert res.game.units["L1"].fire_marker == "first"
    assert res.game.units["L1"].led_group == "R1"
