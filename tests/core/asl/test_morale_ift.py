"""IFT results applied to the units attacked (A7.3, A7.301, A7.302, A7.8, A10.62), called the way
the fire rules call them: ``apply_ift_result(ctx, result, targets)`` on an AslContext."""

import pytest

from bot.core.dice import Roller, ScriptedDice
from bot.core.errors import InvalidOrder
from bot.core.rulesets.asl.context import AslContext
from bot.core.rulesets.asl.morale import apply_ift_result, morale_check


def attack(game, dice, result, target_ids):
    ctx = AslContext(game.model_copy(deep=True), Roller(ScriptedDice(dice)))
    apply_ift_result(ctx, result, [ctx.game.units[i] for i in target_ids])
    assert ctx.roller.source.remaining == []  # every die given was needed
    return ctx


def labels(ctx, kind=None):
    return [s.label for s in ctx.trail.freeze() if kind is None or s.kind == kind]


def steps(ctx, kind):
    return [(s.label, s.value, s.total, s.rule) for s in ctx.trail.freeze() if s.kind == kind]


def test_pass_with_final_dr_equal_to_morale_after_an_ift_attack_pins_a7_8(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").game
    ctx = attack(g, [3, 4], "NMC", ["R1"])
    assert steps(ctx, "check") == [("Final DR 7 vs morale 7", "passes", 7, "A7.3")]
    assert ("Final DR equals morale after an IFT attack: pinned", None, None, "A7.8") in steps(ctx, "note")
    assert [(e.unit, e.after, e.effects) for e in ctx.effects()] == [("R1", "Good Order, pinned", ("pinned",))]


def test_pass_below_morale_after_an_ift_attack_does_not_pin_a7_8(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").game
    ctx = attack(g, [3, 3], "NMC", ["R1"])
    assert ctx.effects() == ()


def test_ptc_pins_only_on_failure_and_skips_broken_units_a7_8(asl_game):
    g = (asl_game(phase="PFPh").squad("R1", 1, "B5").squad("R2", 1, "B5")
         .squad("R3", 1, "B5", broken=True).game)
    ctx = attack(g, [4, 4, 2, 2], "PTC", ["R1", "R2", "R3"])
    assert labels(ctx, "section") == ["Pin Task Check: 4-6-7 R1", "Pin Task Check: 4-6-7 R2"]
    assert [(e.unit, e.effects) for e in ctx.effects()] == [("R1", ("pinned",))]
    assert not ctx.game.units["R3"].dm  # a PTC is less than an NMC: no DM for the broken unit


def test_leaders_check_first_and_a_passing_leader_gives_his_drm_a10_7(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").leader("L1", 1, "B5", morale=8, leadership=-1).game
    ctx = attack(g, [2, 3, 4, 4], "1MC", ["R1", "L1"])
    assert labels(ctx, "section") == ["1MC (Morale Check): 8-1 L1", "1MC (Morale Check): 4-6-7 R1"]
    assert steps(ctx, "modifier") == [("1MC", 1, None, "A7.3"), ("1MC", 1, None, "A7.3"),
                                      ("leadership of 8-1 L1", -1, None, "A10.7")]
    assert steps(ctx, "check")[1] == ("Final DR 8 vs morale 7", "fails", 8, "A7.3")


def test_best_leader_checks_first_and_helps_the_second_leader_a10_7(asl_game):
    g = (asl_game(phase="PFPh").leader("L8", 1, "B5", morale=8, leadership=0)
         .leader("L9", 1, "B5", morale=9, leadership=-2).game)
    ctx = attack(g, [3, 3, 4, 4], "NMC", ["L8", "L9"])
    assert labels(ctx, "section") == ["Normal Morale Check: 9-2 L9", "Normal Morale Check: 8-0 L8"]
    assert steps(ctx, "modifier") == [("leadership of 9-2 L9", -2, None, "A10.7")]
    assert steps(ctx, "check") == [("Final DR 6 vs morale 9", "passes", 6, "A7.3"),
                                   ("Final DR 6 vs morale 8", "passes", 6, "A7.3")]


def test_a_leader_who_breaks_gives_no_drm_and_causes_lltc_a10_2(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").leader("L1", 1, "B5", morale=8, leadership=-1).game
    # leader 5+5 = 10 > 8 breaks; squad 3+3 = 6 passes with no DRM; then LLTC 4+4 = 8 > 7 pins
    ctx = attack(g, [5, 5, 3, 3, 4, 4], "NMC", ["R1", "L1"])
    assert labels(ctx, "section") == ["Normal Morale Check: 8-1 L1", "Normal Morale Check: 4-6-7 R1",
                                      "Leader loss: 8-1 L1 broken -> LLTC for units of lower morale",
                                      "Leader Loss Task Check: 4-6-7 R1"]
    assert steps(ctx, "modifier") == []
    assert {e.unit: e.effects for e in ctx.effects()} == {"L1": ("broken",), "R1": ("pinned",)}


def test_k1_random_selection_reduces_the_highest_dr_then_all_take_a_1mc_a7_302(asl_game):
    g = (asl_game(phase="PFPh").squad("R1", 1, "B5", type="rus-447", reduces_to="rus-227")
         .squad("R2", 1, "B5", type="rus-447", reduces_to="rus-227").game)
    # Random Selection drs: R1 2, R2 5 -> R2 reduced; then 1MC: R1 2+2, R2 (now 2-2-7) 2+3
    ctx = attack(g, [2, 5, 2, 2, 2, 3], "K/1", ["R1", "R2"])
    assert steps(ctx, "dice")[:2] == [("K/1 Random Selection dr for 4-6-7 R1", 2, None, "A7.302"),
                                      ("K/1 Random Selection dr for 4-6-7 R2", 5, None, "A7.302")]
    assert "K/1 Random Selection: 4-6-7 R2 (highest dr)" in labels(ctx, "note")
    assert labels(ctx, "section") == ["1MC (Morale Check): 4-6-7 R1", "1MC (Morale Check): 2-2-7 R2"]
    assert ctx.game.units["R2"].name == "2-2-7" and not ctx.game.units["R2"].broken
    assert [(e.unit, e.effects) for e in ctx.effects()] == [("R2", ("reduced to 2-2-7",))]


def test_k1_ties_reduce_every_unit_tied_for_highest_a_9(asl_game):
    g = (asl_game(phase="PFPh").squad("R1", 1, "B5", type="rus-447", reduces_to="rus-227")
         .squad("R2", 1, "B5", type="rus-447", reduces_to="rus-227").squad("R3", 1, "B5").game)
    ctx = attack(g, [6, 6, 1, 1, 1, 1, 1, 1, 1], "K/1", ["R1", "R2", "R3"])
    assert "K/1 Random Selection: 4-6-7 R1, 4-6-7 R2 (highest dr, ties included)" in labels(ctx, "note")
    assert [ctx.game.units[i].kind for i in ("R1", "R2", "R3")] == ["half-squad", "half-squad", "squad"]


def test_nkia_eliminates_by_random_selection_with_ties_and_breaks_the_rest_a7_301(asl_game):
    g = (asl_game(phase="PFPh").squad("R1", 1, "B5").squad("R2", 1, "B5").squad("R3", 1, "B5")
         .squad("R4", 1, "B5").game)
    ctx = attack(g, [6, 3, 3, 1], "2KIA", ["R1", "R2", "R3", "R4"])
    assert "2KIA Random Selection: 4-6-7 R1, 4-6-7 R2, 4-6-7 R3 (highest dr, ties included)" in labels(ctx, "note")
    assert {e.unit: e.effects for e in ctx.effects()} == {
        "R1": ("eliminated (2KIA)",), "R2": ("eliminated (2KIA)",), "R3": ("eliminated (2KIA)",),
        "R4": ("broken",)}
    assert [s.rule for s in ctx.trail.freeze() if s.kind == "effect"] == ["A7.301"] * 4


def test_kia_eliminating_a_leader_causes_llmc_for_the_survivors_a10_2(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5", morale=8, name="4-4-8").leader(
        "L1", 1, "B5", morale=9, leadership=-2).game
    # 1KIA drs in target order: R1 1, L1 6 -> the leader is eliminated, R1 breaks; the LLMC is taken
    # by units of lower morale, broken ones too: R1 (broken-side morale 9) on 4+4+2 = 10 fails
    ctx = attack(g, [1, 6, 4, 4], "1KIA", ["R1", "L1"])
    assert "Leader loss: 9-2 L1 eliminated -> LLMC for units of lower morale" in labels(ctx, "section")
    assert ("the lost leader's modifier reversed", 2, None, "A10.2") in steps(ctx, "modifier")
    assert steps(ctx, "check") == [("Final DR 10 vs broken-side morale 9", "fails", 10, "A10.2")]
    assert {e.unit: e.effects for e in ctx.effects()} == {
        "L1": ("eliminated (1KIA)",), "R1": ("broken", "reduced to 2-6-8")}  # custom squad: half FP (assumed)


def test_broken_unit_attacked_gets_dm_and_casualty_reduction_on_a_failed_mc_a10_62(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5", broken=True, dm=False, type="rus-447",
                                     reduces_to="rus-227").game
    ctx = attack(g, [5, 4], "1MC", ["R1"])
    assert labels(ctx, "effect") == ["4-6-7 R1: DM", "2-2-7 R1: reduced to 2-2-7"]
    assert [s.rule for s in ctx.trail.freeze() if s.kind == "effect"] == ["A10.62", "A10.3"]
    unit = ctx.game.units["R1"]
    assert (unit.kind, unit.broken, unit.dm) == ("half-squad", True, True)


def test_eliminated_unit_leaves_its_sw_unpossessed_a4_44(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").mg("M1", "R1").game
    ctx = attack(g, [], "1KIA", ["R1", "M1"])  # the SW is no target: one unit, no selection roll
    assert ctx.game.units["M1"].owner is None and ctx.game.units["M1"].location == "B5"
    assert "LMG M1: unpossessed in B5" in labels(ctx, "effect")


def test_fpf_nmc_uses_the_given_original_dr_a8_312(asl_game):
    g = asl_game(phase="MPh").squad("R1", 1, "B5").game
    ctx = AslContext(g.model_copy(deep=True), Roller(ScriptedDice([5, 4])))
    roll = ctx.roller.DR("IFT attack")
    assert morale_check(ctx, ctx.game.units["R1"], kind="NMC", rule="A8.312", roll=roll) is False
    assert steps(ctx, "dice") == [("the attack's Original DR: white 5, colored 4", 9, None, "A8.312")]
    assert ctx.game.units["R1"].broken


def test_unknown_ift_result_is_refused(asl_game):
    g = asl_game(phase="PFPh").squad("R1", 1, "B5").game
    with pytest.raises(InvalidOrder, match="not an IFT result"):
        attack(g, [], "9MC", ["R1"])
