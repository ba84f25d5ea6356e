"""Wounds (A17): Casualty Reduction of a single-man counter is a wound, its Wound Severity dr
deciding (1-4 wounded, 5-6 mortal, +1 when wounded again: A17.11); a wounded man's morale and a
leader's leadership one worse, once only (A17.3); an unwounded hero failing an MC is wounded
instead of broken (A17.1); a game logged before wounds eliminates the SMC as it was played."""

from __future__ import annotations

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice

from .conftest import AslBuilder, labels, steps


def _game(*, wounds: bool = True, **leader):
    leader = {"morale": 8, "leadership": -1, **leader}
    b = (AslBuilder(phase="PFPh")
         .leader("RL", 1, "B5", name="8-1", **leader)
         .squad("R1", 1, "B5", name="4-4-6", morale=6, broken_morale=6))
    if wounds:
        b.game.options["asl_wounds"] = True
    return b.game


def check(game, unit: str, dice: list[int], **order):
    return resolve(game, {"action": "morale", "unit": unit, **order}, ScriptedDice(dice))


@pytest.mark.parametrize(("dr", "wounded"), [(1, True), (4, True), (5, False), (6, False)])
def test_the_wound_severity_dr_wounds_on_1_to_4_and_kills_on_5_and_6_a17_11(dr, wounded):
    # broken, fails: Casualty Reduction (A10.3); if he dies, the 4-4-6 takes a Leader Loss MC (two dice more)
    res = check(_game(broken=True), "RL", [5, 5, dr] + ([] if dr < 5 else [1, 1]))
    leader = res.game.units["RL"]
    assert (leader.wounded, leader.eliminated) == (wounded, not wounded)
    assert ("Wound Severity dr", dr, None, "A17.11") in steps(res.outcome)
    verdict = "wounded (1-4)" if wounded else "mortal (5+)"
    assert (f"Final dr {dr}", verdict, dr, "A17.11") in steps(res.outcome)
    if wounded:  # morale 8 -> 7, leadership -1 -> 0 (A17.3); no Leader Loss check for a wound
        assert (leader.morale, leader.leadership) == (7, 0)
        assert not any("LL" in label for label in labels(res.outcome))
    else:  # eliminated: the 4-4-6 of lower morale takes a Leader Loss MC (A10.2)
        assert "8-1 RL: eliminated (mortal wound)" in labels(res.outcome)


@pytest.mark.parametrize(("dr", "eliminated"), [(3, False), (4, True)])
def test_a_second_wound_adds_one_to_the_dr_and_takes_nothing_more_a17_11_a17_3(dr, eliminated):
    game = _game(broken=True, wounded=True, morale=7, leadership=0)
    res = check(game, "RL", [6, 5, dr] + ([1, 1] if eliminated else []))
    assert ("already wounded", 1, None, "A17.11") in steps(res.outcome)
    leader = res.game.units["RL"]
    assert leader.eliminated == eliminated
    if not eliminated:
        assert (leader.morale, leader.leadership, leader.wounded) == (7, 0, True)
        assert "8-1 RL: wounded again: no further loss of morale or leadership" in labels(res.outcome)


def test_a_game_logged_before_wounds_eliminates_the_leader_without_a_dr():
    res = check(_game(wounds=False, broken=True), "RL", [5, 5, 1, 1])
    assert res.game.units["RL"].eliminated and not res.game.units["RL"].wounded
    assert not any("Wound" in label for label in labels(res.outcome))
    assert len(res.outcome.rolls) == 2  # the leader's check and the 4-4-6's Leader Loss MC: no wound dr


def test_a_wounded_leaders_leadership_is_the_drm_he_gives_a10_7():
    game = _game(wounded=True, morale=7, leadership=0)
    res = check(game, "R1", [3, 3])
    assert ("leadership of 8-1 RL", 0, None, "A10.7") in steps(res.outcome)


def test_an_original_12_on_a_good_order_leader_wounds_and_breaks_him():
    res = check(_game(), "RL", [6, 6, 2, 1, 1])
    leader = res.game.units["RL"]
    assert (leader.wounded, leader.broken, leader.eliminated, leader.morale) == (True, True, False, 7)
    assert "8-1 RL: broken" in labels(res.outcome)


def test_a_rallying_leaders_original_12_wounds_him_a10_6():
    game = _game(broken=True)
    game.phase = "RPh"
    res = resolve(game, {"action": "rally", "unit": "RL"}, ScriptedDice([6, 6, 3]))
    leader = res.game.units["RL"]
    assert (leader.wounded, leader.broken, leader.eliminated) == (True, True, False)


def test_an_unwounded_hero_failing_an_mc_is_wounded_instead_of_broken_a17_1():
    b = AslBuilder(phase="PFPh").unit("H1", 0, "A4", kind="hero", name="1-4-9", fp=1, range=4, morale=9)
    b.game.options["asl_wounds"] = True
    res = check(b.game, "H1", [5, 5, 2], check="MC", n=1)  # 10 +1 > 9: fails
    hero = res.game.units["H1"]
    assert (hero.wounded, hero.broken, hero.morale) == (True, False, 8)
    assert "1-4-9 H1: a failed MC (an unwounded hero is wounded instead of broken) wounds a single-man counter" \
        in labels(res.outcome)
    again = check(res.game, "H1", [5, 5], check="MC", n=1)  # wounded: he breaks now
    assert again.game.units["H1"].broken and not again.game.units["H1"].eliminated


def test_a_half_squad_is_still_eliminated_by_casualty_reduction():
    b = AslBuilder(phase="PFPh").unit("R9", 1, "B5", kind="half-squad", name="2-4-7", fp=2, range=4, morale=7,
                                      broken=True)
    b.game.options["asl_wounds"] = True
    res = check(b.game, "R9", [5, 5])
    assert res.game.units["R9"].eliminated and len(res.outcome.rolls) == 1
