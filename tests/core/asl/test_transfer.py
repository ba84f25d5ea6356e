"""Support weapon transfer and recovery by phase (A4.43-.44, seed 002 Table 7)."""

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder

from .conftest import labels, steps


def order(game, dice, action, **fields):
    return resolve(game, {"action": action, **fields}, ScriptedDice(dice))


def two_squads(asl_game, phase, **kw):
    return asl_game(phase=phase, **kw).squad("A1", 0, "B5").squad("A2", 0, "B5").mg("M1", "A1", portage=1)


def test_transfer_in_the_rally_phase_is_the_sole_action_of_both_units_table_7_a(asl_game):
    g = two_squads(asl_game, "RPh").game
    res = order(g, [], "transfer", weapon="M1", to="A2")
    out = res.outcome
    assert ("Table 7 case A: sole RPh action", None, None, "A4.43 / seed 002 Table 7") in steps(out, "note")
    assert labels(out, "effect") == ["LMG M1: transferred from 4-6-7 A1 to 4-6-7 A2"]
    assert out.rolls == ()
    assert res.game.units["M1"].owner == "A2"
    with pytest.raises(IllegalOrder, match="already spent its sole Rally Phase action"):
        order(res.game, [], "transfer", weapon="M1", to="A1")


def test_transfer_at_the_start_of_the_friendly_advance_phase_table_7_c(asl_game):
    g = two_squads(asl_game, "APh").game
    res = order(g, [], "transfer", weapon="M1", to="A2")
    assert ("Table 7 case C: at the start of the APh, before advancing", None, None,
            "A4.43 / seed 002 Table 7") in steps(res.outcome, "note")
    assert res.game.units["M1"].owner == "A2"


def test_transfer_refused_in_the_enemy_advance_phase_table_7_c(asl_game):
    g = two_squads(asl_game, "APh", active_side=1).game
    with pytest.raises(IllegalOrder, match="not the enemy's"):
        order(g, [], "transfer", weapon="M1", to="A2")


def test_transfer_refused_in_the_movement_phase_table_7(asl_game):
    g = two_squads(asl_game, "MPh").game
    with pytest.raises(IllegalOrder, match=r"sub-unit is created, or when a leader or hero takes it from a friendly "
                                           r"broken unit \(A4.43 / seed 002 Table 7 T, G\)"):
        order(g, [], "transfer", weapon="M1", to="A2")


@pytest.mark.parametrize("phase", ["RtPh", "DFPh", "PFPh", "AFPh", "CCPh"])
def test_transfer_refused_where_table_7_has_none(asl_game, phase):
    g = two_squads(asl_game, phase).game
    with pytest.raises(IllegalOrder, match=f"no SW transfer in the {phase}"):
        order(g, [], "transfer", weapon="M1", to="A2")


def test_leader_takes_a_broken_units_sw_in_the_mph_with_a_recovery_dr_table_7_g(asl_game):
    g = (asl_game(phase="MPh").squad("A1", 0, "B5", broken=True).mg("M1", "A1", portage=1)
         .leader("L1", 0, "B5").game)
    res = order(g, [5], "transfer", weapon="M1", to="L1")
    out = res.outcome
    assert ("Table 7 case G: no MF spent", None, None, "A4.44 / seed 002 Table 7") in steps(out, "note")
    assert steps(out, "dice") == [("recovery dr", 5, None, "A4.44 / seed 002 Table 7")]
    assert steps(out, "check") == [("Final dr 5 vs 5", "recovered", 5, "A4.44 / seed 002 Table 7")]
    assert res.game.units["M1"].owner == "L1"


def test_only_a_leader_or_hero_takes_a_broken_units_sw_table_7_e(asl_game):
    g = asl_game(phase="MPh").squad("A1", 0, "B5", broken=True).mg("M1", "A1").squad("A2", 0, "B5").game
    with pytest.raises(IllegalOrder, match="only a leader or hero may take"):
        order(g, [1], "transfer", weapon="M1", to="A2")


def test_transfer_refused_in_the_phase_the_sw_was_recovered_table_7_note_3(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5").squad("A2", 0, "B5").unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    g = order(g, [3], "recover", weapon="M1", unit="A1").game
    assert g.units["M1"].owner == "A1"
    with pytest.raises(IllegalOrder, match=r"recovered this phase and may not be transferred in it "
                                           r"\(A4.43 / seed 002 Table 7 \*3\)"):
        order(g, [], "transfer", weapon="M1", to="A2")


def test_transfer_refused_over_portage_capacity_a4_42(asl_game):
    g = (asl_game(phase="RPh").squad("A1", 0, "B5").leader("L1", 0, "B5")
         .mg("M1", "A1", sw_type="MMG", portage=4).game)
    with pytest.raises(IllegalOrder, match=r"would carry 4 PP with MMG M1, over its portage capacity of 1 \(A4.42\)"):
        order(g, [], "transfer", weapon="M1", to="L1")


def test_transfer_refused_to_a_pinned_unit_table_7_a(asl_game):
    g = two_squads(asl_game, "RPh").set("A2", pinned=True).game
    with pytest.raises(IllegalOrder, match="is pinned"):
        order(g, [], "transfer", weapon="M1", to="A2")


def test_recovery_in_the_mph_without_cx_table_7_d(asl_game):
    g = asl_game(phase="MPh").squad("A1", 0, "B5").unit(
        "M1", 1, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    res = order(g, [5], "recover", weapon="M1", unit="A1")
    out = res.outcome
    assert steps(out, "modifier") == []
    assert ("leadership does not modify a recovery dr", None, None, "A4.44 / seed 002 Table 7 *2") in steps(out, "note")
    assert labels(out, "effect") == ["LMG M1: captured", "LMG M1: recovered by 4-6-7 A1"]
    sw = res.game.units["M1"]
    assert (sw.owner, sw.side, sw.captured) == ("A1", 0, True)


def test_recovery_with_cx_adds_plus_1_and_fails_on_final_6_table_7_note_2(asl_game):
    g = asl_game(phase="MPh").squad("A1", 0, "B5", cx=True).unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    res = order(g, [5], "recover", weapon="M1", unit="A1")
    assert steps(res.outcome, "modifier") == [("CX", 1, None, "A4.44 / seed 002 Table 7 *2")]
    assert steps(res.outcome, "check") == [("Final dr 6 vs 5", "fails", 6, "A4.44 / seed 002 Table 7")]
    assert res.game.units["M1"].owner is None
    assert res.outcome.headline == "4-6-7 A1 fails to recover LMG M1"


def test_one_recovery_attempt_per_unit_per_sw_per_mph_table_7_d(asl_game):
    g = asl_game(phase="MPh").squad("A1", 0, "B5").unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    g = order(g, [6], "recover", weapon="M1", unit="A1").game
    with pytest.raises(IllegalOrder, match="already tried to recover LMG M1 this MPh"):
        order(g, [1], "recover", weapon="M1", unit="A1")


def test_recovery_refused_for_a_pinned_unit_and_game_unchanged_table_7_note_4(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", pinned=True).unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    before = g.model_dump()
    with pytest.raises(IllegalOrder, match=r"is pinned: only unpinned units do this \(A4.44 / seed 002 Table 7 \*4\)"):
        order(g, [1], "recover", weapon="M1", unit="A1")
    assert g.model_dump() == before


def test_recovery_refused_with_an_armed_enemy_in_the_location_table_7_note_4(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5").squad("R1", 1, "B5").unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game
    with pytest.raises(IllegalOrder, match="an armed enemy unit, is in B5"):
        order(g, [1], "recover", weapon="M1", unit="A1")


def test_in_the_rout_phase_only_a_leader_or_hero_recovers_table_7_f(asl_game):
    g = (asl_game(phase="RtPh").squad("A1", 0, "B5").leader("L1", 0, "B5")
         .unit("M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1).game)
    with pytest.raises(IllegalOrder, match="only a leader or hero may recover"):
        order(g, [1], "recover", weapon="M1", unit="A1")
    res = order(g, [2], "recover", weapon="M1", unit="L1")
    assert res.game.units["M1"].owner == "L1"
    assert any(label.startswith("Table 7 case F") for label in labels(res.outcome, "note"))


def test_night_and_jungle_recovery_drms_from_the_game_options_table_7_note_2(asl_game):
    b = asl_game(phase="RPh").squad("A1", 0, "B5").unit(
        "M1", 0, "B5", kind="sw", name="LMG", sw_type="LMG", fp=2, range=6, portage=1)
    b.game.options.update(night=True, jungle=True)
    res = order(b.game, [2], "recover", weapon="M1", unit="A1")
    assert steps(res.outcome, "modifier") == [("night", 1, None, "A4.44 / seed 002 Table 7 *2"),
                                              ("jungle, kunai or bamboo", 2, None, "A4.44 / seed 002 Table 7 *2")]
    assert steps(res.outcome, "check") == [("Final dr 5 vs 5", "recovered", 5, "A4.44 / seed 002 Table 7")]


def test_leader_recovers_from_a_broken_unit_as_his_sole_rph_action_table_7_e(asl_game):
    g = (asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).mg("M1", "A1", portage=1)
         .leader("L1", 0, "B5").game)
    res = order(g, [4], "recover", weapon="M1", unit="L1")
    assert "Table 7 case E: sole RPh action" in labels(res.outcome, "note")
    assert labels(res.outcome, "effect") == ["LMG M1: recovered by 8-1 L1 from 4-6-7 A1"]
    assert res.game.units["L1"].rph_action_turn is not None
