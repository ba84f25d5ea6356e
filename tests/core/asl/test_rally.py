"""Rally (A10.6-A10.63, A10.7) and the DM clean-up at the end of the Rally Phase (A10.62)."""

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder

from .conftest import labels, steps


def rally(game, dice, **order):
    order.setdefault("action", "rally")
    return resolve(game, order, ScriptedDice(dice))


def test_rally_with_a_leader_uses_his_drm_and_clears_broken_but_not_dm_a10_6(asl_game):
    g = (asl_game(phase="RPh").hex("B5", "open").squad("A1", 0, "B5", broken=True, dm=False)
         .leader("L1", 0, "B5", morale=9, leadership=-1).game)
    res = rally(g, [4, 5], unit="A1")
    out = res.outcome
    assert steps(out) == [
        ("Rally: 4-6-7 A1 (rallied by 9-1 L1)", None, None, "A10.6"),
        ("broken-side morale", 8, None, "A10.6"),
        ("leadership of 9-1 L1", -1, None, "A10.7"),
        ("DR: white 4, colored 5", 9, None, "A10.6"),
        ("Final DR 8 vs broken-side morale 8", "passes", 8, "A10.6"),
        ("4-6-7 A1: rallied", None, None, "A10.6"),
    ]
    assert out.headline == "4-6-7 A1 rally (rallied by 9-1 L1): Final DR 8 vs 8 -> rallies"
    assert not res.game.units["A1"].broken


def test_rally_in_woods_gets_minus_1_and_dm_plus_4_a10_61_a10_62(asl_game):
    g = (asl_game(phase="RPh").hex("B5", "woods").squad("A1", 0, "B5", broken=True, dm=True)
         .leader("L1", 0, "B5", morale=9, leadership=-1).game)
    res = rally(g, [2, 3], unit="A1")
    assert steps(res.outcome, "modifier") == [("leadership of 9-1 L1", -1, None, "A10.7"),
                                              ("Woods: rally terrain", -1, None, "A10.61"),
                                              ("Desperation Morale", 4, None, "A10.62")]
    assert steps(res.outcome, "check") == [("Final DR 7 vs broken-side morale 8", "passes", 7, "A10.6")]
    unit = res.game.units["A1"]
    assert (unit.broken, unit.dm) == (False, True)
    assert ("DM stays until the end of the Rally Phase", None, None, "A10.62") in steps(res.outcome, "note")


def test_self_rally_adds_plus_1_where_no_good_order_leader_is_a10_63(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).game
    res = rally(g, [4, 4], unit="A1")
    assert labels(res.outcome, "section") == ["Rally: 4-6-7 A1 (Self-Rally)"]
    assert steps(res.outcome, "modifier") == [("Self-Rally", 1, None, "A10.63")]
    assert steps(res.outcome, "check") == [("Final DR 9 vs broken-side morale 8", "fails", 9, "A10.6")]
    assert res.game.units["A1"].broken
    assert res.outcome.effects[0].effects == ("fails to rally",)


def test_only_one_mmc_self_rally_per_side_per_player_turn_a10_63(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).squad("A2", 0, "C5", broken=True).game
    g = rally(g, [4, 4], unit="A1").game
    with pytest.raises(IllegalOrder, match=r"already tried its one MMC Self-Rally this player turn"):
        rally(g, [1, 1], unit="A2")


def test_self_rally_refused_where_a_good_order_leader_is_a10_63(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5").game
    with pytest.raises(IllegalOrder, match=r"may Self-Rally only where none is \(A10.63\)"):
        rally(g, [1, 1], unit="A1", self_rally=True)


def test_broken_leader_self_rallies_without_the_plus_1(asl_game):
    g = asl_game(phase="RPh").leader("L1", 0, "B5", morale=8, leadership=-1, broken=True).game
    res = rally(g, [3, 4], unit="L1")
    assert labels(res.outcome, "section") == ["Rally: 8-1 L1 (Self-Rally)"]
    assert steps(res.outcome, "modifier") == []
    assert not res.game.units["L1"].broken


def test_a_broken_leader_cannot_rally_others_before_himself_a10_6(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5", broken=True).game
    with pytest.raises(IllegalOrder, match="must rally himself before he rallies others"):
        rally(g, [1, 1], unit="A1", leader="L1")


def test_rally_original_12_is_casualty_reduction_a10_6(asl_game):
    g = (asl_game(phase="RPh").squad("A1", 0, "B5", broken=True, type="ger-467", reduces_to="ger-247")
         .leader("L1", 0, "B5", leadership=-2, morale=10).game)
    res = rally(g, [6, 6], unit="A1")
    assert ("Original 12: Casualty Reduction", None, None, "A10.6") in steps(res.outcome, "note")
    assert labels(res.outcome, "effect") == ["2-4-7 A1: reduced to 2-4-7"]
    assert (res.game.units["A1"].kind, res.game.units["A1"].broken) == ("half-squad", True)


def test_rally_original_2_in_full_asl_is_heat_of_battle_a15(asl_game):
    g = (asl_game(phase="RPh", variant="full").squad("A1", 0, "B5", broken=True, dm=True, broken_morale=5)
         .leader("L1", 0, "B5", leadership=1, morale=6).game)
    res = rally(g, [1, 1], unit="A1")  # 2 +1 +4 = 7 > 5 would fail
    assert steps(res.outcome, "check") == [("Final DR 7 vs broken-side morale 5", "Heat of Battle", 7, "A15")]
    assert res.outcome.effects[0].effects == ("Heat of Battle (A15)", "rallied")


def test_one_rally_attempt_per_unit_per_player_turn_a10_6(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5").game
    g = rally(g, [6, 5], unit="A1").game
    assert g.units["A1"].broken
    with pytest.raises(IllegalOrder, match=r"already tried to rally this player turn \(A10.6\)"):
        rally(g, [1, 1], unit="A1")


def test_rally_refused_outside_the_rally_phase_and_game_unchanged_a10_6(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", broken=True).game
    before = g.model_dump()
    with pytest.raises(IllegalOrder, match=r"only in the Rally Phase; this is the Prep Fire Phase \(A10.6\)"):
        rally(g, [1, 1], unit="A1")
    assert g.model_dump() == before


def test_rally_refused_for_a_good_order_unit_a10_6(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5").game
    with pytest.raises(IllegalOrder, match="is not broken"):
        rally(g, [1, 1], unit="A1")


def test_dm_comes_off_at_the_end_of_the_rally_phase_a10_62(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True, dm=True).squad("R1", 1, "C5", dm=True).game
    res = resolve(g, {"action": "phase"}, ScriptedDice([]))
    assert [s.label for s in res.outcome.trail if s.kind == "marker"] == ["4-6-7 A1: DM removed",
                                                                         "4-6-7 R1: DM removed"]
    assert any("does not track which enemy units are Known" in s.label for s in res.outcome.trail if s.kind == "note")
    assert not res.game.units["A1"].dm and res.game.units["A1"].broken
    assert [(e.unit, e.before, e.after) for e in res.outcome.effects] == [
        ("A1", "broken, DM", "broken"), ("R1", "Good Order, DM", "Good Order")]


def test_rally_bookkeeping_resets_for_the_next_player_turn_a10_6(asl_game):
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).game
    g = rally(g, [6, 5], unit="A1").game
    g = resolve(g, {"action": "phase", "to": "RPh"}, ScriptedDice([])).game  # the Russian player turn
    assert (g.active_side, g.units["A1"].rallied_turn, "asl_self_rally" in g.options) == (1, None, False)
    res = rally(g, [2, 2], unit="A1")  # both sides rally in every RPh
    assert not res.game.units["A1"].broken


def test_rally_bookkeeping_round_trips_through_json(asl_game):
    from bot.core.game import Game
    g = asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).game
    after = rally(g, [4, 4], unit="A1").game
    assert after.options["asl_self_rally"] == {"0": after.turn * 2 + after.active_side}
    assert Game.model_validate_json(after.model_dump_json()) == after
