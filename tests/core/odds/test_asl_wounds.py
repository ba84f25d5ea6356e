"""The fast ASL odds with wounds (A17): a leader's Casualty Reduction branches on the Wound Severity
dr, as the real code rolls it, and a second wound's +1 (A17.11); the engine's states and chances
equal those of the real morale code run over every distinct roll. A hero, which the engine carries
as a distribution, is previewed through the real resolver instead."""

from fractions import Fraction

import pytest

from bot.core.odds import preview
from bot.core.rulesets.asl.odds import Engine
from bot.core.rulesets.asl.ruleset import RULESET
from tests.core.asl.conftest import AslBuilder

from .conftest import brute_force, report_states, tallied
from .test_asl_exact import real_effects


def _stack(*, wounded: bool = False, broken: bool = False):
    game = (AslBuilder(phase="PFPh", elr=(3, 2))
            .hex("A1").hex("B5", "stone building")
            .squad("G1", 0, "A1")
            .leader("RL", 1, "B5", morale=8, leadership=-1, wounded=wounded, broken=broken)
            .squad("R1", 1, "B5", name="4-4-7", morale=7, broken_morale=7, type="rus-447",
                   reduces_to="rus-227", replaced_by="rus-426")
            .game)
    game.options["asl_wounds"] = True
    return game


@pytest.mark.parametrize("wounded", [False, True])
@pytest.mark.parametrize("result", ["K/1", "K/3", "1MC", "4MC"])
def test_a_leaders_wound_in_the_fast_engine_matches_the_real_code_a17_11(result, wounded):
    game = _stack(wounded=wounded)
    tally = Engine(game, "B5", 1).run(lambda path: path.ift_result(result, ["RL", "R1"]))
    found = real_effects(game, result, ["RL", "R1"])
    states, broke, any_breaks = tallied(game, found, ["RL", "R1"])
    assert tally.states == {u: {k: v for k, v in d.items() if v} for u, d in states.items()}
    assert (tally.broke, tally.any_breaks) == (broke, any_breaks)


def test_a_broken_leaders_failed_check_wounds_him_or_kills_him_as_brute_force_finds():
    game = _stack(broken=True)
    order = {"action": "morale", "unit": "RL", "check": "NMC"}
    report = preview(game, order)
    found = brute_force(game, order)
    assert report_states(report) == tallied(game, found, ["RL", "R1"])
    # morale 8, no DRM: an Original 12 while broken eliminates him (1/36); 9-11 (9/36) is Casualty
    # Reduction, a wound that kills on a dr of 5 or 6 (2 in 6)
    (leader,) = [u for u in report.units if u.unit == "RL"]
    assert leader.states["eliminated"].p == Fraction(1, 36) + Fraction(9, 36) * Fraction(2, 6)


def test_a_hero_is_previewed_through_the_real_resolver_when_wounds_are_refereed():
    game = _stack()
    assert RULESET._fast(game)  # a leader's wound is the fast engine's
    game.units["RL"].kind = "hero"
    assert not RULESET._fast(game)
    del game.options["asl_wounds"]
    assert RULESET._fast(game)  # a game logged before wounds: the hero is eliminated, as the engine does
