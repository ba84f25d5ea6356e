"""NHiS Hit / Hit-n results and the /morale action (seed 001): 1d6 + n against morale."""

import pytest

from bot.core.errors import IllegalOrder

from .conftest import act, effects, fire, labels, nhis_game, step

HIT = "NHiS Hit result (seed 001)"


def morale(game, die, unit="J1", hit=0, **extra):
    return act(game, [die], {"action": "morale", "unit": unit, "hit": hit, **extra})


def test_a_hit_1_check_against_morale_5_passes_in_4_of_6():
    game = nhis_game().squad("J1", 1, "C1", morale=5).game
    passes = sum(morale(game, die, hit=1).game.units["J1"] == game.units["J1"] for die in range(1, 7))
    assert passes == 4


def test_the_check_shows_the_die_the_hit_number_and_the_morale():
    game = nhis_game().squad("J1", 1, "C1", morale=5).game
    res = morale(game, 4, hit=1)
    assert [(s.kind, s.label, s.value) for s in res.outcome.trail] == [
        ("section", "Morale check (Hit-1): squad J1", None),
        ("base", "Morale of squad J1", 5),
        ("dice", "1d6", 4),
        ("modifier", "Hit-1", 1),
        ("check", "5 vs 5: passes", "pass"),
    ]
    assert res.outcome.headline == "squad J1 morale check (Hit-1): 1d6 4 + 1 = 5 vs 5 -> passes"
    assert all(s.rule == HIT for s in res.outcome.trail)


def test_a_shakeable_unit_that_fails_is_shaken_and_its_impulse_ends():
    game = nhis_game().squad("J1", 1, "C1", moving=True).game
    res = morale(game, 6)
    unit = res.game.units["J1"]
    assert unit.shaken and not unit.moving and not unit.reduced
    assert effects(res)["J1"] == ("Shaken; its impulse ends",)
    assert res.outcome.effects[0].before == "Prepared, moving" and res.outcome.effects[0].after == "Shaken"


def test_a_shaken_unit_shaken_again_is_reduced_and_stays_shaken():
    res = morale(nhis_game().squad("J1", 1, "C1", shaken=True).game, 6)
    unit = res.game.units["J1"]
    assert unit.shaken and unit.reduced and not unit.eliminated
    assert effects(res)["J1"] == ("Shaken again: reduced, stays Shaken",)


def test_a_reduced_shaken_unit_shaken_again_is_eliminated():
    res = morale(nhis_game().squad("J1", 1, "C1", shaken=True, reduced=True).game, 6)
    assert res.game.units["J1"].eliminated
    assert effects(res)["J1"] == ("reduced and Shaken again: eliminated",)


def test_a_reduced_unit_checks_on_its_reduced_morale_and_is_only_shaken():
    game = nhis_game().squad("J1", 1, "C1", morale=5, reduced=True, reduced_morale=3).game
    res = morale(game, 4)
    assert step(res, "Morale of squad J1 (reduced)").value == 3
    assert res.game.units["J1"].shaken and res.game.units["J1"].reduced


def test_an_unshakable_unit_that_fails_is_reduced():
    res = morale(nhis_game().squad("J1", 1, "C1", shakeable=False).game, 6)
    unit = res.game.units["J1"]
    assert unit.reduced and not unit.shaken
    assert effects(res)["J1"] == ("Unshakable, fails: reduced",)


def test_a_reduced_unshakable_unit_that_fails_is_eliminated():
    res = morale(nhis_game().squad("J1", 1, "C1", shakeable=False, reduced=True).game, 6)
    assert res.game.units["J1"].eliminated
    assert effects(res)["J1"] == ("Unshakable, fails: already reduced, eliminated",)


def test_a_moving_unshakable_unit_that_fails_must_stop():
    res = morale(nhis_game().squad("J1", 1, "C1", shakeable=False, moving=True).game, 6)
    assert not res.game.units["J1"].moving
    assert effects(res)["J1"] == ("Unshakable, fails: reduced", "must stop moving (it failed while moving)")


def test_a_banzai_charging_unit_that_fails_keeps_moving():
    game = nhis_game().squad("J1", 1, "C1", shakeable=False, moving=True, banzai=True).game
    res = morale(game, 6)
    assert res.game.units["J1"].moving and res.game.units["J1"].reduced
    assert "squad J1 is Banzai Charging and keeps moving" in labels(res, "note")


def test_a_banzai_charge_stops_when_a_flamethrower_caused_the_check():
    game = nhis_game().squad("J1", 1, "C1", shakeable=False, moving=True, banzai=True).game
    res = morale(game, 6, flamethrower=True)
    assert not res.game.units["J1"].moving
    assert effects(res)["J1"][-1] == "must stop moving (the check was caused by a flamethrower)"


def test_a_prepared_leader_adds_his_leadership_to_a_squad():
    game = nhis_game().squad("J1", 1, "C1", morale=5).leader("L1", 1, "C1", leadership=2).game
    res = morale(game, 6, hit=1)
    s = step(res, "Leadership of leader L1 (Prepared)")
    assert (s.kind, s.value, s.total) == ("modifier", 2, 7)
    assert step(res, "7 vs 7").label == "7 vs 7: passes"


def test_the_best_of_several_prepared_leaders_is_used():
    game = (nhis_game().squad("J1", 1, "C1").leader("L1", 1, "C1", leadership=1)
            .leader("L2", 1, "C1", leadership=2).game)
    assert step(morale(game, 1), "Leadership of").label == "Leadership of leader L2 (Prepared)"


def test_a_shaken_leader_lends_no_leadership():
    game = nhis_game().squad("J1", 1, "C1").leader("L1", 1, "C1", shaken=True).game
    res = morale(game, 6)
    assert "leader L1 is Shaken and lends no leadership" in labels(res, "note")
    assert not [x for x in labels(res) if x.startswith("Leadership")]
    assert res.game.units["J1"].shaken


def test_a_leader_does_not_add_leadership_to_his_own_or_another_leaders_check():
    game = nhis_game().leader("L1", 1, "C1").leader("L2", 1, "C1", leadership=3).game
    assert not [x for x in labels(morale(game, 1, unit="L1")) if x.startswith("Leadership")]


def test_a_leader_of_another_side_lends_nothing():
    game = nhis_game().squad("J1", 1, "C1").leader("L1", 0, "C1").game
    assert not [x for x in labels(morale(game, 1)) if x.startswith("Leadership")]


def test_an_eliminated_unit_takes_no_check():
    with pytest.raises(IllegalOrder, match="eliminated"):
        morale(nhis_game().squad("J1", 1, "C1", eliminated=True).game, 1)


# --- Hit results from fire: every unit in the hex checks, leaders first ---

def hit_1_game(**leader):
    # U1 (4 FP) at range 2 on open ground: 2d6 5 on the 4 column is Hit-1
    return (nhis_game().squad("U1", 0, "A1", fp=4)
            .squad("J1", 1, "C1", morale=5).leader("L1", 1, "C1", morale=5, **leader).game)


def test_on_a_hit_leaders_check_first():
    res = fire(hit_1_game(), [2, 3, 1, 1], firers=["U1"], target="C1", range=2)
    assert res.outcome.headline == "4 FP -> column 4: 2d6 5 -> Hit-1"
    assert labels(res, "section")[1:] == ["Morale check (Hit-1): leader L1", "Morale check (Hit-1): squad J1"]


def test_a_leader_who_has_just_failed_is_shaken_and_lends_nothing():
    # L1: 6 + 1 > 5, Shaken; J1 then checks without him: 4 + 1 = 5 vs 5
    res = fire(hit_1_game(), [2, 3, 6, 4], firers=["U1"], target="C1", range=2)
    assert res.game.units["L1"].shaken
    assert "leader L1 is Shaken and lends no leadership" in labels(res, "note")
    assert step(res, "5 vs 5").label == "5 vs 5: passes"
    assert effects(res) == {"L1": ("Shaken; its impulse ends",), "U1": ("marked Fire",)}


def test_a_leader_who_passes_lends_his_leadership_to_the_squads_check():
    res = fire(hit_1_game(leadership=1), [2, 3, 1, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "7 vs 6").label == "7 vs 6: fails"
    assert step(res, "Leadership of leader L1 (Prepared)").value == 1


def test_an_unshakable_leader_who_fails_stays_prepared_and_lends_his_reduced_rating():
    game = hit_1_game(shakeable=False, leadership=2, reduced_leadership=1)
    res = fire(game, [2, 3, 6, 5], firers=["U1"], target="C1", range=2)
    assert res.game.units["L1"].reduced and not res.game.units["L1"].shaken
    assert step(res, "Leadership of leader L1 (Prepared)").value == 1
    assert step(res, "6 vs 6").label == "6 vs 6: passes"


def test_a_plain_hit_adds_nothing_to_the_die():
    # 2d6 6 on the 4 column is Hit: the check is the die alone
    res = fire(hit_1_game(), [3, 3, 5, 5], firers=["U1"], target="C1", range=2)
    assert res.outcome.cells[0].result == "Hit"
    assert labels(res, "check")[1:] == ["5 vs 5: passes", "5 vs 6: passes"]


def test_a_tank_takes_the_check_as_an_unshakable_unit_without_leadership():
    game = nhis_game().tank("T0", 0, "A1", fp=4).tank("T1", 1, "C1").leader("L1", 1, "C1").game
    res = fire(game, [2, 3, 1, 6], firers=["T0"], target="C1", range=2)
    assert res.game.units["T1"].reduced and not res.game.units["T1"].shaken
    assert not [x for x in labels(res) if x.startswith("Leadership")]
