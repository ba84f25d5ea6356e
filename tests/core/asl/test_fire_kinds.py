"""The seven kinds of fire of seed 003, each resolved with scripted dice, trail asserted.

Dice are chosen so the cell read is "-" unless a test is about the result: the fire side is
asserted here, the morale side in the morale tests.
"""

from .conftest import labels, steps


def test_prep_fire_point_blank_into_woods_a7_21(asl_game, fire):
    g = asl_game(phase="PFPh").hex("B5", "woods").squad("A1", 0, "A4").squad("R1", 1, "B5").game
    out = fire(g, [6, 4], firers=["A1"], target="B5", range=1).outcome
    assert steps(out, "base") == [("4-6-7 A1 FP", 4, None, "A7.2"),
                                  ("Total FP (fractions kept until the total)", 8, None, "A7.2")]
    assert steps(out, "multiplier") == [("4-6-7 A1: point blank fire", "x2", 8, "A7.21")]
    assert steps(out, "modifier") == [("TEM: Woods", "+1", 1, "B.6")]
    assert steps(out, "dice") == [("IFT DR: white 6, colored 4", 10, None, "A7.3")]
    assert [(c.table, c.column, c.row, c.result) for c in out.cells] == [("IFT", "8", "11", "-")]
    assert out.headline == "8 FP (IFT 8) vs B5: DR 11 -> -"
    assert out.actor_side == 0
    assert [(e.unit, e.effects) for e in out.effects] == [("A1", ("marked Prep Fire",))]


def test_prep_fire_directed_by_a_leader_a7_53(asl_game, fire):
    g = (asl_game(phase="PFPh").squad("A1", 0, "A4").leader("L1", 0, "A4", leadership=-2)
         .squad("R1", 1, "B5", name="4-4-7").game)
    res = fire(g, [6, 6], firers=["A1", "L1"], target="B5", range=3)
    out = res.outcome
    assert steps(out, "modifier") == [("leadership of 8-2 L1", "-2", -2, "A7.53")]
    assert "doubles, but a leader directs the fire: no cowering" in labels(out, "note")
    assert out.cells[0].column == "4" and out.cells[0].row == "10" and out.cells[0].result == "-"
    assert res.game.units["L1"].fire_marker == "prep"
    assert res.game.units["L1"].led_group == "A1"


def test_advancing_fire_is_halved_and_long_range_halved_again_a7_22(asl_game, fire):
    g = (asl_game(phase="AFPh").squad("A1", 0, "A4", fp_underlined=True)
         .squad("A2", 0, "A4", name="4-4-7", range=4).squad("R1", 1, "C5", name="4-4-7").game)
    out = fire(g, [5, 6], firers=["A1", "A2"], target="C5", range=5).outcome
    assert steps(out, "multiplier") == [
        ("4-6-7 A1: Advancing Fire", "x1/2", 2, "A7.25, seed 003"),
        ("4-4-7 A2: Advancing Fire", "x1/2", 2, "A7.25, seed 003"),
        ("4-4-7 A2: long range", "x1/2", 1, "A7.22"),
    ]
    # Assault Fire: +1 for the underlined FP within normal range (A2 is beyond its range 4)
    assert ("4-6-7 A1: Assault Fire", 1, 3, "A7.36") in steps(out, "modifier")
    assert ("Total FP (fractions kept until the total)", 4, None, "A7.2") in steps(out, "base")
    assert out.cells[0].column == "4"
    assert {e.unit: e.effects for e in out.effects} == {"A1": ("marked Prep Fire",), "A2": ("marked Prep Fire",)}


def test_assault_fire_is_added_last_then_rounded_up_a7_36(asl_game, fire):
    g = asl_game(phase="AFPh").squad("A1", 0, "A4", fp=5, fp_underlined=True).squad("R1", 1, "C5").game
    out = fire(g, [5, 6], firers=["A1"], target="C5", range=3).outcome
    assert steps(out, "multiplier") == [("4-6-7 A1: Advancing Fire", "x1/2", 2.5, "A7.25, seed 003")]
    assert ("4-6-7 A1: Assault Fire", 1, 4, "A7.36") in steps(out, "modifier")


def test_fractions_are_kept_until_the_total_a7_2(asl_game, fire):
    g = (asl_game(phase="PFPh").squad("A1", 0, "A4", fp=3, pinned=True).squad("A2", 0, "A4", fp=3, pinned=True)
         .squad("R1", 1, "C5").game)
    out = fire(g, [6, 5], firers=["A1", "A2"], target="C5", range=2).outcome
    assert [s[2] for s in steps(out, "multiplier")] == [1.5, 1.5]
    assert ("Total FP (fractions kept until the total)", 3, None, "A7.2") in steps(out, "base")
    assert out.cells[0].column == "2"  # 1.5 + 1.5 = 3, not 1 + 1


def test_under_one_fp_is_no_attack_but_the_firer_has_fired_a7_2(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4", fp=1, range=2, pinned=True).squad("R1", 1, "C5").game
    res = fire(g, [], firers=["A1"], target="C5", range=3)
    assert res.outcome.rolls == () and res.outcome.cells == ()
    assert "under 1 FP" in res.outcome.headline
    assert res.game.units["A1"].fire_marker == "prep"


def test_defensive_first_fire_on_a_moving_unit_a8_1(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "woods").squad("A1", 0, "A4", moving=True)
         .squad("A2", 0, "A4").squad("R1", 1, "B5", name="4-4-7").game)
    res = fire(g, [6, 5], firers=["R1"], target="A4", range=1)
    out = res.outcome
    assert steps(out, "modifier") == [("FFNAM (not Assault Movement)", "-1", -1, "A4.6, seed 003"),
                                      ("TEM: Woods", "+1", 0, "B.6")]
    assert (out.cells[0].column, out.cells[0].row) == ("8", "11")
    assert out.actor_side == 1
    assert res.game.units["R1"].fire_marker == "first"
    assert res.game.locations["A4"].residual_fp == 4


def test_ffmo_applies_to_a_moving_unit_in_open_ground_a4_6(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).squad("R1", 1, "B5").game
    out = fire(g, [6, 6], firers=["R1"], target="A4", range=4).outcome
    assert [s[0] for s in steps(out, "modifier")][:2] == ["FFMO (moving in Open Ground)", "FFNAM (not Assault Movement)"]


def test_ffmo_is_cancelled_by_a_hindrance_and_ffnam_by_assault_movement_a4_6(asl_game, fire):
    g = asl_game(phase="MPh").squad("A1", 0, "A4", moving=True, assault_moving=True).squad("R1", 1, "B5").game
    out = fire(g, [6, 5], firers=["R1"], target="A4", range=4, hindrance=1).outcome
    assert steps(out, "modifier") == [("hindrance, 1 hex(es)", "+1", 1, "A6.7")]


def test_mph_fire_hits_only_the_moving_units_seed_003(asl_game, fire):
    g = (asl_game(phase="MPh").squad("A1", 0, "A4", moving=True).squad("A2", 0, "A4")
         .squad("R1", 1, "B5").game)
    out = fire(g, [6, 6], firers=["R1"], target="A4", range=1, hindrance=2).outcome
    assert ("Target in A4 (moving): 4-6-7 A1", None, None, "A8.1, seed 003") in steps(out, "note")


def test_other_fire_hits_every_enemy_unit_in_the_location_seed_003(asl_game, fire):
    g = (asl_game(phase="PFPh").squad("A1", 0, "A4").squad("R1", 1, "B5").squad("R2", 1, "B5", name="4-4-7")
         .mg("M9", "R2").game)
    out = fire(g, [6, 6], firers=["A1"], target="B5", range=2, hindrance=2).outcome
    assert "Target in B5: 4-6-7 R1, 4-4-7 R2" in labels(out, "note")  # the SW is not attacked


def test_subsequent_first_fire_is_halved_a8_3(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "woods").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="first").mg("M2", "R1").set("M2", fire_marker="first").game)
    res = fire(g, [5, 4], firers=["R1"], target="A4", range=2)
    out = res.outcome
    assert steps(out, "multiplier") == [("4-6-7 R1: Subsequent First Fire", "x1/2", 2, "A8.3, seed 003")]
    assert out.cells[0].column == "2"
    assert res.game.units["R1"].fire_marker == "final"
    # every SW of the firers is marked Final Fire too, fired or not (seed 003)
    assert res.game.units["M2"].fire_marker == "final"
    assert res.game.locations["A4"].residual_fp == 1


def test_kind_is_inferred_as_sff_when_every_firer_is_marked_first_fire_a8_3(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "woods").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="first").game)
    out = fire(g, [5, 4], firers=["R1"], target="A4", range=2).outcome
    assert labels(out, "section")[0] == "Subsequent First Fire: firepower"


def test_defensive_fire_phase_attack_marks_final_fire_a8_4(asl_game, fire):
    g = (asl_game(phase="DFPh").hex("B5", "wooden building").squad("A1", 0, "B5")
         .squad("R1", 1, "C7", name="4-4-7").game)
    res = fire(g, [3, 4], firers=["R1"], target="B5", range=3)
    out = res.outcome
    assert labels(out, "section")[0] == "Defensive Fire: firepower"
    assert steps(out, "modifier") == [("TEM: Wooden building", "+2", 2, "B.6")]
    assert (out.cells[0].column, out.cells[0].row, out.cells[0].result) == ("4", "9", "-")
    assert res.game.units["R1"].fire_marker == "final"
    assert res.game.locations["B5"].residual_fp == 0  # no Residual FP outside the MPh


def test_first_fire_unit_in_the_dfph_is_halved_at_an_adjacent_target_a8_4(asl_game, fire):
    g = (asl_game(phase="DFPh").hex("B5", "stone building").squad("A1", 0, "B5")
         .squad("R1", 1, "C6", fire_marker="first").game)
    res = fire(g, [5, 5], firers=["R1"], target="B5", range=1)
    assert steps(res.outcome, "multiplier") == [
        ("4-6-7 R1: marked First Fire, firing in the DFPh", "x1/2", 2, "A8.4, seed 003"),
        ("4-6-7 R1: point blank fire", "x2", 4, "A7.21"),
    ]
    assert res.game.units["R1"].fire_marker == "final"


def test_residual_fire_uses_the_marker_fp_and_never_cowers_a8_2(asl_game, fire):
    g = asl_game(phase="MPh").hex("A4", "open", residual_fp=4).squad("A1", 0, "A4", moving=True).game
    res = fire(g, [6, 6], kind="residual", target="A4", range=0)
    out = res.outcome
    assert ("Residual FP 4", "4", None, "A8.2") in steps(out, "table")
    assert steps(out, "modifier") == [("FFMO (moving in Open Ground)", "-1", -1, "A4.6, seed 003"),
                                      ("FFNAM (not Assault Movement)", "-1", -2, "A4.6, seed 003")]
    assert not any("cowering" in label for label in labels(out))
    assert (out.cells[0].column, out.cells[0].row, out.cells[0].result) == ("4", "10", "-")
    assert out.headline == "4 Residual FP (IFT 4) vs A4: DR 10 -> -"
    assert out.actor_side == 1 and out.effects == ()


def test_an_ift_result_reaches_the_targets_a7_3(asl_game, fire):
    g = asl_game(phase="PFPh").squad("A1", 0, "A4", fp=8).squad("R1", 1, "B5").game
    res = fire(g, [1, 2], firers=["A1"], target="B5", range=1, drm=-3, drm_reason="test")
    assert steps(res.outcome, "modifier") == [("agreed: test", "-3", -3, "agreed by the players")]
    assert (res.outcome.cells[0].column, res.outcome.cells[0].row, res.outcome.cells[0].result) == ("16", "0", "4KIA")
    assert res.game.units["R1"].eliminated


def test_final_protective_fire_is_halved_and_adjacent_a8_31(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "stone building").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5", fire_marker="final").game)
    res = fire(g, [5, 6], kind="fpf", firers=["R1"], target="A4", range=1)
    out = res.outcome
    assert steps(out, "multiplier") == [("4-6-7 R1: Final Protective Fire", "x1/2", 2, "A8.31, seed 003"),
                                        ("4-6-7 R1: point blank fire", "x2", 4, "A7.21")]
    assert steps(out, "modifier") == [("FFNAM (not Assault Movement)", "-1", -1, "A4.6, seed 003"),
                                      ("TEM: Stone building", "+3", 2, "B.6")]
    assert (out.cells[0].column, out.cells[0].row, out.cells[0].result) == ("4", "13", "-")
    assert res.game.locations["A4"].residual_fp == 2
    # the forced NMC uses the attack's Original DR 11 against morale 7: the firer breaks (A8.312)
    assert "FPF: NMC for each firer (Original DR of the attack)" in labels(out, "section")
    assert res.game.units["R1"].broken
