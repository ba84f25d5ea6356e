"""ASL odds are exact: the fast engine against brute force through the real resolver.

Small cases run ``api.resolve`` with ScriptedDice over every dice sequence (conftest.brute_force);
stacks with leaders, whose trees are too large for that, are checked result by result against the
real ``morale.apply_ift_result`` run over every distinct roll (enumerate.BranchRoller).
"""

from fractions import Fraction
from itertools import product

import pytest

from bot.core.copying import tree_copy
from bot.core.dice import Roller
from bot.core.errors import IllegalOrder
from bot.core.odds import preview
from bot.core.rulesets.asl.odds import Engine, selection_odds
from bot.core.odds.enumerate import BranchRoller, Leaf, leaves
from bot.core.odds.generic import result_of
from bot.core.rulesets.asl import morale
from bot.core.rulesets.asl.context import AslContext
from tests.core.asl.conftest import AslBuilder

from .conftest import brute_force, report_states, tallied


def test_nmc_against_morale_7_passes_in_21_of_36_a10_1():
    game = AslBuilder(phase="PFPh").squad("A1", 0, "B5").game
    report = preview(game, {"action": "morale", "unit": "A1", "check": "NMC"})
    # an Original 2 is Heat of Battle in full ASL (A15): it passes too
    assert report.results["passes"].p + report.results["Heat of Battle"].p == Fraction(21, 36)
    assert report.units[0].states["unharmed"].p == Fraction(21, 36)
    assert report.units[0].states["broken"].p == Fraction(14, 36)  # 12 is Original 12: reduced
    assert report.units[0].states["reduced"].p == Fraction(1, 36)
    found = brute_force(game, {"action": "morale", "unit": "A1", "check": "NMC"})
    assert len(found) == 36
    assert report_states(report) == tallied(game, found, ["A1"])


def _one_on_one():
    b = (AslBuilder(phase="PFPh", elr=(3, 2))
         .hex("A1").hex("B5", "woods")
         .squad("G1", 0, "A1", quality="green")  # green: cowers two columns (A7.9)
         .mg("LMG", "G1", sw_type="LMG", fp=2, rof=2)
         .squad("R1", 1, "B5", name="4-4-7", morale=7, broken_morale=7, type="rus-447",
                reduces_to="rus-227", replaced_by="rus-426"))
    return b.game, {"action": "fire", "firers": ["G1", "LMG"], "target": "B5", "range": 2}


def test_a_one_unit_attack_and_its_checks_match_every_dice_sequence_a7_3():
    game, order = _one_on_one()
    report = preview(game, order)
    found = brute_force(game, order)
    assert sum(leaf.probability for leaf in found) == 1
    assert report_states(report) == tallied(game, found, ["R1"])
    results: dict[str, Fraction] = {}
    for leaf in found:
        key = result_of(leaf.outcome) if leaf.outcome.cells else "-"
        results[key] = results.get(key, Fraction(0)) + leaf.probability
    assert {k: v.p for k, v in report.results.items()} == {("no effect" if k == "-" else k): v
                                                          for k, v in results.items()}
    # MG breakdown (A.11) and rate of fire (A9.2), leaf by leaf
    malfunctions = sum(leaf.probability for leaf in found
                       if leaf.game.units["LMG"].malfunctioned)
    kept = sum(leaf.probability for leaf in found
               if any(s.label.startswith("LMG LMG ROF") and s.value == "kept" for s in leaf.outcome.trail))
    (mg,) = report.weapons
    # a green user lowers B12 to B11 (A19.32): DR 11-12; ROF 2 kept on colored 1-2 unless doubles cower
    assert (mg.malfunctions.p, mg.keeps_rof.p) == (malfunctions, kept) == (Fraction(3, 36), Fraction(10, 36))
    cowered = sum(leaf.probability for leaf in found if any("cowering" in s.label for s in leaf.outcome.trail))
    assert report.cowers.p == cowered == Fraction(6, 36)


def _stack(elr=2):
    return (AslBuilder(phase="PFPh", elr=(3, elr))
            .hex("A1").hex("B5", "stone building")
            .squad("G1", 0, "A1")
            .leader("RL", 1, "B5", morale=8, leadership=-1)
            .squad("R1", 1, "B5", name="4-4-7", morale=7, broken_morale=7, type="rus-447",
                   reduces_to="rus-227", replaced_by="rus-426")
            .game)


def real_effects(game, result, targets) -> list[Leaf]:
    """morale.apply_ift_result run over every distinct roll, through the real code. Each branch gets
    the resolver's own independent copy (``tree_copy``, equal to a deep copy: tests/core/
    test_working_copy.py), six times faster than ``model_copy(deep=True)`` over ~70,000 branches."""
    path: list[int] = []
    found = []
    while True:
        roller = BranchRoller(path)
        work = tree_copy(game)
        morale.apply_ift_result(AslContext(work, roller), result, [work.units[t] for t in targets])
        found.append(Leaf(roller.probability, None, work))
        del path[len(roller.widths):]
        while path and path[-1] + 1 >= roller.widths[len(path) - 1]:
            path.pop()
        if not path:
            return found
        path[-1] += 1


@pytest.mark.parametrize("result", ["4MC", "1MC", "NMC", "PTC", "1KIA", "2KIA"])
def test_a_leader_and_squad_under_each_ift_result_match_the_real_morale_code_a10_7_a10_2(result):
    game = _stack()
    engine = Engine(game, "B5", 1)
    tally = engine.run(lambda path: path.ift_result(result, ["RL", "R1"]))
    found = real_effects(game, result, ["RL", "R1"])
    states, broke, any_breaks = tallied(game, found, ["RL", "R1"])
    assert tally.states == {u: {k: v for k, v in d.items() if v} for u, d in states.items()}
    assert (tally.broke, tally.any_breaks) == (broke, any_breaks)


def test_k2_with_random_selection_on_two_squads_matches_the_real_code_a7_302():
    game = (AslBuilder(phase="PFPh", elr=(3, 0)).hex("B5", "open")
            .squad("R1", 1, "B5", type="ger-467", reduces_to="ger-247", replaced_by="ger-447")
            .squad("R2", 1, "B5", morale=6, broken_morale=6, name="4-4-6").game)
    tally = Engine(game, "B5", 1).run(lambda path: path.ift_result("K/2", ["R1", "R2"]))
    states, broke, any_breaks = tallied(game, real_effects(game, "K/2", ["R1", "R2"]), ["R1", "R2"])
    assert tally.states == {u: {k: v for k, v in d.items() if v} for u, d in states.items()}
    assert (tally.broke, tally.any_breaks) == (broke, any_breaks)


def test_an_underlined_squad_failing_elr_becomes_two_broken_half_squads_a19_13():
    game = (AslBuilder(phase="PFPh", elr=(3, 3)).hex("B5")
            .leader("RL", 1, "B5", morale=9, leadership=-2)
            .squad("R1", 1, "B5", type="rus-458", name="4-5-8", morale=8, broken_morale=8,
                   morale_underlined=True, reduces_to="rus-248").game)
    tally = Engine(game, "B5", 1).run(lambda path: path.ift_result("4MC", ["RL", "R1"]))
    states, broke, any_breaks = tallied(game, real_effects(game, "4MC", ["RL", "R1"]), ["RL", "R1"])
    assert tally.states == {u: {k: v for k, v in d.items() if v} for u, d in states.items()}
    assert (tally.broke, tally.any_breaks) == (broke, any_breaks)


def test_a_leader_checking_alone_brings_leader_loss_checks_on_lower_morale_units_a10_2():
    game = _stack()
    order = {"action": "morale", "unit": "RL", "check": "MC", "n": 2}
    report = preview(game, order)
    assert report_states(report) == tallied(game, brute_force(game, order), ["RL", "R1"])


def test_a_leader_rolling_original_12_on_his_rally_is_eliminated_and_the_others_take_an_llmc_a10_6():
    game = _stack()
    game.phase = "RPh"
    game.units["RL"].broken = True
    report = preview(game, {"action": "rally", "unit": "RL"})
    found = list(leaves(game, {"action": "rally", "unit": "RL"}))
    assert report_states(report) == tallied(game, found, ["RL", "R1"])
    assert report.results["Casualty Reduction"].p == Fraction(1, 36)
    assert report.units[0].states["eliminated"].p == Fraction(1, 36)


def test_random_selection_odds_include_ties_a_9():
    odds = {chosen: p for p, chosen in selection_odds(2, 1)}
    assert odds == {(0,): Fraction(15, 36), (1,): Fraction(15, 36), (0, 1): Fraction(6, 36)}
    for candidates in (2, 3, 4):  # the closed form against every dr of every candidate
        for count in range(1, candidates):
            seen: dict[tuple[int, ...], Fraction] = {}
            for drs in product(range(1, 7), repeat=candidates):
                cut = sorted(drs, reverse=True)[count - 1]
                chosen = tuple(i for i, dr in enumerate(drs) if dr >= cut)
                seen[chosen] = seen.get(chosen, Fraction(0)) + Fraction(1, 6 ** candidates)
            assert {c: p for p, c in selection_odds(candidates, count)} == seen


def test_random_selection_among_too_many_units_is_refused_not_guessed():
    with pytest.raises(IllegalOrder):
        selection_odds(9, 1)


def test_the_preview_rolls_no_dice_and_leaves_the_game_as_it_was():
    game, order = _one_on_one()
    before = game.model_dump_json()
    preview(game, order)
    assert game.model_dump_json() == before
    assert Roller  # the engines use their own branching rollers, never a dice source


def test_final_protective_fire_counts_the_firers_nmc_on_the_attacks_own_dr_a8_312():
    game = (AslBuilder(phase="MPh", active_side=1, elr=(3, 2))
            .hex("A1").hex("B5", "open")
            .squad("G1", 0, "A1", fire_marker="final")
            .squad("R1", 1, "B5", name="4-4-7", morale=7, broken_morale=7, moving=True).game)
    order = {"action": "fire", "kind": "fpf", "firers": ["G1"], "target": "B5", "range": 1}
    report = preview(game, order)  # through the real resolver: the firer checks on the same DR
    assert [u.unit for u in report.units] == ["R1", "G1"]
    assert report_states(report) == tallied(game, brute_force(game, order), ["R1", "G1"])
    # 36 attack DRs; the 27 that leave a result on the target bring its check (11 totals): 9 + 27 x 11
    assert report.method == "exact enumeration of 306 dice outcomes through the resolver"
