"""Who may fire, when, and at what (seed 003's general, firing-unit and target conditions)."""

import pytest

from bot.core.errors import IllegalOrder, InvalidOrder


@pytest.fixture
def dfph(asl_game):
    return asl_game(phase="DFPh").squad("A1", 0, "B5").squad("R1", 1, "C6")


def test_range_over_twice_normal_range_is_refused_a7_22(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "M5").game
    with pytest.raises(IllegalOrder, match=r"normal range 6: 13 hexes is beyond twice that \(A7.22\)"):
        fire(g, [3, 3], firers=["A1"], target="M5", range=13)


def test_twice_normal_range_is_allowed_at_half_fp_a7_22(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "M5").game
    out = fire(g, [6, 5], firers=["A1"], target="M5", range=12).outcome
    assert out.cells[0].column == "2"


def test_final_fire_unit_may_not_fire_in_the_dfph_a8_4(dfph, fire):
    g = dfph.set("R1", fire_marker="final").game
    with pytest.raises(IllegalOrder) as err:
        fire(g, [3, 3], firers=["R1"], target="B5", range=1)
    assert str(err.value) == "4-6-7 R1 is marked Final Fire and may not fire in the DFPh (A8.4)"


def test_first_fire_unit_in_the_dfph_may_not_fire_at_range_two_a8_4(dfph, fire):
    g = dfph.set("R1", fire_marker="first").game
    with pytest.raises(IllegalOrder, match=r"may fire only at an adjacent target \(A8.4\)"):
        fire(g, [3, 3], firers=["R1"], target="B5", range=2)


def test_prep_fire_unit_may_not_fire_in_the_afph_seed_003(asl_game, fire):
    g = asl_game(phase="AFPh").squad("A1", 0, "A4", fire_marker="prep").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match="marked Prep Fire and may not fire in the AFPh"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_final_fire_unit_may_fire_only_fpf_in_the_mph_a8_31(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="final").game)
    with pytest.raises(IllegalOrder, match=r"may fire only FPF \(A8.31\)"):
        fire(g, [3, 3], firers=["R1"], target="A4", range=1)


def test_sff_needs_a_first_fire_marker_a8_3(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"not marked First Fire: Subsequent First Fire needs it \(A8.3\)"):
        fire(g, [3, 3], kind="sff", firers=["R1"], target="A4", range=1)


def test_sff_reaches_only_normal_range_a8_3(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="first").game)
    with pytest.raises(IllegalOrder, match=r"normal range 6 \(A8.3\)"):
        fire(g, [3, 3], kind="sff", firers=["R1"], target="A4", range=7)


def test_fpf_needs_final_fire_and_an_adjacent_target_a8_31(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="final").squad("R2", 1, "B5").game)
    with pytest.raises(IllegalOrder, match=r"only at an adjacent target \(A8.31\)"):
        fire(g, [3, 3], kind="fpf", firers=["R1"], target="A4", range=2)
    with pytest.raises(IllegalOrder, match=r"R2 is not marked Final Fire.*\(A8.31\)"):
        fire(g, [3, 3], kind="fpf", firers=["R2"], target="A4", range=1)


def test_the_kind_of_fire_must_fit_the_phase_seed_003(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"Prep Fire is fired in the PFPh, and this is the MPh"):
        fire(g, [3, 3], kind="prep", firers=["R1"], target="A4", range=1)


def test_no_fire_in_the_rally_phase(asl_game, fire):
    g = asl_game(phase="RPh").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"fire attacks are made only in the Prep Fire Phase, Movement Phase, Defensive Fire Phase or Advancing Fire Phase; this is the Rally Phase \(seed 003\)"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_only_the_defender_fires_in_the_mph(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4").squad("R1", 1, "B5", moving=True).game
    with pytest.raises(IllegalOrder, match="the ATTACKER: only the DEFENDER fires Defensive First Fire"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_only_the_attacker_prep_fires(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"only the ATTACKER \(Germans\) fires Prep Fire"):
        fire(g, [3, 3], firers=["R1"], target="A4", range=1)


def test_broken_unit_may_not_fire_seed_003(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4", broken=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match="4-6-7 A1 is broken and may not fire"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_unit_in_melee_may_not_fire_seed_003(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4", in_melee=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match="in melee"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_malfunctioned_mg_may_not_fire_a_11(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").mg("M1", "A1", malfunctioned=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"LMG M1 is malfunctioned.*\(A.11\)"):
        fire(g, [3, 3], firers=["M1"], target="B5", range=1)


def test_sw_of_a_broken_owner_may_not_fire(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4", broken=True).mg("M1", "A1").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match="A1 is broken"):
        fire(g, [3, 3], firers=["M1"], target="B5", range=1)


def test_hindrance_of_six_blocks_the_shot_a6_7(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"needs less than \+6"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=5, hindrance=6)


def test_a_fire_group_is_one_sides_units_a7_5(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "B5").squad("R2", 1, "A4").game
    with pytest.raises(IllegalOrder, match="not on the same side"):
        fire(g, [3, 3], firers=["A1", "R2"], target="B5", range=1)


def test_own_units_cannot_be_the_target(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).squad("R1", 1, "B5")
         .squad("R2", 1, "A4", moving=True).game)
    with pytest.raises(IllegalOrder, match="R2 is on the firers' side and cannot be the target"):
        fire(g, [3, 3], firers=["R1"], target="A4", range=1, target_units=["R2"])


def test_mph_fire_needs_a_moving_target_a8_1(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match=r"no enemy unit in A4 has expended MF.*\(A8.1, seed 003\)"):
        fire(g, [3, 3], firers=["R1"], target="A4", range=1)


def test_a_named_target_must_have_moved_a8_1(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4").squad("A2", 0, "A4", moving=True).squad("R1", 1, "B5").game
    with pytest.raises(IllegalOrder, match="A1 has not expended MF"):
        fire(g, [3, 3], firers=["R1"], target="A4", range=1, target_units=["A1"])


def test_fire_at_an_empty_location_is_refused(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").hex("B5").game
    with pytest.raises(IllegalOrder, match="no enemy unit in B5"):
        fire(g, [3, 3], firers=["A1"], target="B5", range=1)


def test_unknown_firer_lists_the_units(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    with pytest.raises(InvalidOrder, match="no unit 'Z9'") as err:
        fire(g, [3, 3], firers=["Z9"], target="B5", range=1)
    assert err.value.field == "firers"


def test_residual_needs_residual_fp_a8_2(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).game
    with pytest.raises(IllegalOrder, match=r"no Residual FP in A4 \(A8.2\)"):
        fire(g, [3, 3], kind="residual", target="A4", range=0)


def test_a_leader_that_directed_another_group_cannot_direct_this_one_a7_53(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A9", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="first").squad("R2", 1, "B5", fire_marker="first")
         .leader("L1", 1, "B5", fire_marker="first", led_group="R2").game)
    with pytest.raises(IllegalOrder, match=r"L1 already directed another fire group this phase \(A7.53\)"):
        fire(g, [3, 3], firers=["R1"], leader="L1", target="A4", range=1)


def test_a_leader_directs_the_same_group_again_in_sff_a7_53(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "stone building").squad("A9", 0, "A4", moving=True)
         .squad("R2", 1, "B5", fire_marker="first")
         .leader("L1", 1, "B5", fire_marker="first", led_group="R2").game)
    out = fire(g, [5, 6], firers=["R2", "L1"], target="A4", range=1).outcome
    assert ("leadership of 8-1 L1", "-1", -1, "A7.53") in [(s.label, s.value, s.total, s.rule) for s in out.trail]


def test_the_game_passed_in_is_unchanged_after_an_error(asl_game, fire):
    # two MGs break on an Original 12; Random Selection then needs dice that were not given
    g = (asl_game(phase="PFPh").squad("A1", 0, "A4").mg("M1", "A1").mg("M2", "A1")
         .leader("L1", 0, "A4").squad("R1", 1, "B5").hex("B5", "stone building").game)
    before = g.model_dump()
    with pytest.raises(InvalidOrder, match="the dice given ran out"):
        fire(g, [6, 6], firers=["M1", "M2", "L1"], target="B5", range=3, hindrance=5)
    assert g.model_dump() == before
