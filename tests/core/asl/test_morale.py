"""Morale Checks and task checks taken on their own (/morale): A10.1, A10.2, A10.31, A19.13, A15.

Every check goes through ``bot.core.api.resolve`` with scripted dice (white die, colored die).
"""

from itertools import product

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder, InvalidOrder

from .conftest import labels, steps


def morale(game, dice, **order):
    order.setdefault("action", "morale")
    return resolve(game, order, ScriptedDice(dice))


def effects_of(out):
    return {e.unit: (e.before, e.after, e.effects) for e in out.effects}


def test_nmc_against_morale_7_passes_in_exactly_21_of_36_drs_a10_1(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").game
    passed = 0
    for white, colored in product(range(1, 7), repeat=2):
        res = morale(g, [white, colored], unit="A1", check="NMC")
        passed += not res.game.units["A1"].broken
    assert passed == 21


def test_nmc_pass_records_base_dice_and_check_a10_1(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").game
    out = morale(g, [3, 4], unit="A1", check="NMC").outcome
    assert steps(out) == [
        ("Normal Morale Check: 4-6-7 A1", None, None, "A10.1"),
        ("morale", 7, None, "A10.1"),
        ("DR: white 3, colored 4", 7, None, "A10.1"),
        ("Final DR 7 vs morale 7", "passes", 7, "A10.1"),
    ]
    assert out.headline == "4-6-7 A1: Normal Morale Check, Final DR 7 vs 7 -> passes"
    assert out.effects == ()  # a check taken on its own never pins on a pass


def test_failed_mc_breaks_with_dm_and_leadership_applies_a10_3(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").leader("L1", 0, "B5", morale=9, leadership=-1).game
    res = morale(g, [5, 3], unit="A1", check="MC", n=1)
    out = res.outcome
    assert steps(out, "modifier") == [("1MC", 1, None, "A10.1"), ("leadership of 9-1 L1", -1, None, "A10.7")]
    assert steps(out, "check") == [("Final DR 8 vs morale 7", "fails", 8, "A10.1")]
    assert effects_of(out) == {"A1": ("Good Order", "broken, DM", ("broken",))}
    assert res.game.units["A1"].broken and res.game.units["A1"].dm


def test_broken_leader_gives_no_leadership_drm_a10_7(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").leader("L1", 0, "B5", broken=True).game
    out = morale(g, [3, 3], unit="A1", check="NMC").outcome
    assert steps(out, "modifier") == []


def test_broken_unit_failing_mc_suffers_casualty_reduction_a10_3(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", type="ger-467", reduces_to="ger-247", broken=True).game
    res = morale(g, [5, 5], unit="A1", check="NMC")
    assert steps(res.outcome, "base") == [("broken-side morale", 8, None, "A10.1")]
    assert labels(res.outcome, "effect") == ["2-4-7 A1: reduced to 2-4-7"]
    unit = res.game.units["A1"]
    assert (unit.kind, unit.name, unit.broken, unit.fp, unit.range) == ("half-squad", "2-4-7", True, 2, 4)


def test_original_12_casualty_reduction_and_broken_a10_31(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", type="ger-467", reduces_to="ger-247").game
    res = morale(g, [6, 6], unit="A1", check="NMC", drm=-6, drm_reason="test")
    out = res.outcome
    assert "Original 12: Casualty Reduction and broken (eliminated if already broken)" in labels(out, "note")
    assert labels(out, "effect") == ["2-4-7 A1: reduced to 2-4-7", "2-4-7 A1: broken"]
    assert effects_of(out)["A1"] == ("Good Order", "broken, DM", ("reduced to 2-4-7", "broken"))
    assert res.game.units["A1"].kind == "half-squad"


def test_original_12_eliminates_a_broken_unit_a10_31(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", broken=True).game
    res = morale(g, [6, 6], unit="A1", check="NMC")
    assert labels(res.outcome, "effect") == ["4-6-7 A1: eliminated (Original 12 while broken)"]
    assert res.game.units["A1"].eliminated


def test_elr_failure_replaces_with_lower_quality_a19_13(asl_game):
    g = asl_game(phase="PFPh", elr=(2, 3)).squad("A1", 0, "B5", type="ger-467", replaced_by="ger-447").game
    res = morale(g, [6, 5], unit="A1", check="MC", n=1)  # Final 12 vs 7: failed by 5 > ELR 2
    out = res.outcome
    assert ("failed by 5, more than ELR 2", None, None, "A19.13") in steps(out, "note")
    assert labels(out, "effect") == ["4-4-7 A1: ELR: 4-6-7 replaced by 4-4-7", "4-4-7 A1: broken"]
    unit = res.game.units["A1"]
    assert (unit.type, unit.name, unit.range, unit.quality, unit.broken, unit.side, unit.location) == (
        "ger-447", "4-4-7", 4, "second_line", True, 0, "B5")


def test_failing_by_exactly_the_elr_is_no_replacement_a19_13(asl_game):
    g = asl_game(phase="PFPh", elr=(3, 3)).squad("A1", 0, "B5", type="ger-467", replaced_by="ger-447").game
    res = morale(g, [5, 5], unit="A1", check="NMC")  # 10 vs 7: failed by 3, not more than 3
    assert res.game.units["A1"].type == "ger-467"
    assert ("failed by 3, not more than ELR 3: no replacement", None, None, "A19.13") in steps(res.outcome, "note")


def test_underlined_morale_squad_becomes_two_broken_half_squads_a19_13(asl_game):
    g = asl_game(phase="PFPh", elr=(None, None)).squad(
        "R1", 1, "C3", name="4-5-8", morale=8, type="rus-458", reduces_to="rus-248", morale_underlined=True).game
    res = morale(g, [6, 5], unit="R1", check="MC", n=3)  # Final 14 vs 8: failed by 6 > ELR 5
    out = res.outcome
    assert ("failed by 6, more than ELR 5 (underlined morale)", None, None, "A19.13") in steps(out, "note")
    assert labels(out, "effect") == ["2-4-8 R1: ELR: becomes two half-squads (2-4-8 R1, 2-4-8 R1b)",
                                     "2-4-8 R1b: created by ELR failure", "2-4-8 R1: broken", "2-4-8 R1b: broken"]
    first, second = res.game.units["R1"], res.game.units["R1b"]
    assert (first.kind, second.kind, first.broken, second.broken) == ("half-squad", "half-squad", True, True)
    assert (second.side, second.location) == (1, "C3")


def test_leaders_are_exempt_from_elr_a19_13(asl_game):
    g = asl_game(phase="PFPh", elr=(0, 0)).leader("L1", 0, "B5", morale=8, leadership=0, replaced_by="ger-7-0").game
    res = morale(g, [6, 5], unit="L1", check="NMC")
    assert res.game.units["L1"].name == "8-0" and res.game.units["L1"].broken
    assert not [s for s in res.outcome.trail if s.rule == "A19.13"]


def test_heat_of_battle_original_2_in_full_asl_a15(asl_game):
    g = asl_game(phase="PFPh", variant="full").squad("A1", 0, "B5").game
    res = morale(g, [1, 1], unit="A1", check="MC", n=7)  # Final 9 vs 7 would fail
    out = res.outcome
    assert steps(out, "check") == [("Final DR 9 vs morale 7", "Heat of Battle", 9, "A15")]
    assert any(label.startswith("Original 2: Heat of Battle (A15)") for label in labels(out, "note"))
    assert effects_of(out)["A1"][2] == ("Heat of Battle (A15)",)
    assert not res.game.units["A1"].broken


def test_starter_kit_has_no_heat_of_battle_a15(asl_game):
    g = asl_game(phase="PFPh", variant="starter").squad("A1", 0, "B5").game
    res = morale(g, [1, 1], unit="A1", check="MC", n=7)
    assert steps(res.outcome, "check") == [("Final DR 9 vs morale 7", "fails", 9, "A10.1")]
    assert res.game.units["A1"].broken


def test_pin_task_check_failure_pins_without_breaking_a7_8(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").game
    res = morale(g, [4, 4], unit="A1", check="PTC")
    assert steps(res.outcome, "check") == [("Final DR 8 vs morale 7", "fails", 8, "A7.8")]
    assert effects_of(res.outcome) == {"A1": ("Good Order", "Good Order, pinned", ("pinned",))}


def test_leader_eliminated_causes_llmc_with_reversed_modifier_a10_2(asl_game):
    g = (asl_game(phase="PFPh").leader("L1", 0, "B5", morale=9, leadership=-1, broken=True)
         .squad("A1", 0, "B5").squad("A2", 0, "B5", morale=9, name="4-6-9").game)
    res = morale(g, [6, 6, 3, 4], unit="L1", check="NMC")  # Original 12 on a broken leader
    out = res.outcome
    assert "Leader loss: 9-1 L1 eliminated -> LLMC for units of lower morale" in labels(out, "section")
    assert "1 LLMC (Leader Loss Morale Check): 4-6-7 A1" in labels(out, "section")
    assert ("the lost leader's modifier reversed", 1, None, "A10.2") in steps(out, "modifier")
    assert steps(out, "check")[-1] == ("Final DR 8 vs morale 7", "fails", 8, "A10.2")
    assert res.game.units["A1"].broken
    assert not any("A2" in label for label in labels(out, "section"))  # morale 9 is not lower


def test_zero_leader_eliminated_gives_an_nmc_llmc_a10_2(asl_game):
    g = asl_game(phase="PFPh").leader("L1", 0, "B5", morale=8, leadership=0, broken=True).squad("A1", 0, "B5").game
    out = morale(g, [6, 6, 3, 3], unit="L1", check="NMC").outcome
    assert "Leader Loss Morale Check: 4-6-7 A1" in labels(out, "section")
    assert [m for m in steps(out, "modifier") if m[0] == "the lost leader's modifier reversed"] == []


def test_leader_breaking_causes_lltc_and_failure_pins_a10_2(asl_game):
    g = asl_game(phase="PFPh").leader("L1", 0, "B5", morale=8, leadership=-1).squad("A1", 0, "B5").game
    res = morale(g, [5, 5, 4, 4], unit="L1", check="NMC")
    out = res.outcome
    assert "Leader loss: 8-1 L1 broken -> LLTC for units of lower morale" in labels(out, "section")
    assert steps(out, "check") == [("Final DR 10 vs morale 8", "fails", 10, "A10.1"),
                                   ("Final DR 8 vs morale 7", "fails", 8, "A10.2")]
    assert effects_of(out)["A1"] == ("Good Order", "Good Order, pinned", ("pinned",))
    assert not res.game.units["A1"].broken


def test_morale_refusals_leave_the_game_unchanged(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", broken=True).mg("M1", "A1").game
    before = g.model_dump()
    with pytest.raises(IllegalOrder, match=r"broken: a broken unit takes no Pin Task Check \(A7.8\)"):
        morale(g, [1, 1], unit="A1", check="PTC")
    with pytest.raises(InvalidOrder, match="support weapon"):
        morale(g, [1, 1], unit="M1", check="NMC")
    with pytest.raises(InvalidOrder, match="'n' is the \\+n of an MC"):
        morale(g, [1, 1], unit="A1", check="NMC", n=2)
    assert g.model_dump() == before
