"""Ammo depletion [27.1], indirect fire [17.6] with suppression [17.5, 20], artillery response [17.4]."""

import pytest

from bot.core.errors import IllegalOrder

from .conftest import labels, modifiers, run, steps


def shoot(game, dice):
    return run(game, dice, firer="F", targets=["T"])


def gun(cd_game, caliber, vehicle_type="none", phase="GeneralFire"):
    return cd_game(phase=phase).stand("F", 0, caliber_mm=caliber, vehicle_type=vehicle_type,
                                      to_hit={"short": 6}).stand("T", 1).game


def test_a_natural_1_of_a_20mm_plus_weapon_calls_for_a_depletion_roll_27_1(cd_game):
    res = shoot(gun(cd_game, 75), [1, 7, 2])  # to-hit 1 (hit), depletion 7 <= 7, hit result 2
    assert steps(res.outcome, "base")[-1] == ("Caliber 75mm / 10", 7, 7, "CD [27.1]")
    assert ("7 vs 7 or less: depleted", 7, 7, "CD [27.1]") in steps(res.outcome, "check")
    assert res.game.units["F"].ammo_depleted
    assert [r.purpose for r in res.outcome.rolls] == ["to hit T T", "ammo depletion of F F", "hit result on T T"]


def test_depletion_roll_above_caliber_tenth_holds_27_1(cd_game):
    res = shoot(gun(cd_game, 75), [1, 8, 2])
    assert "8 vs 7 or less: ammunition holds" in labels(res.outcome)
    assert not res.game.units["F"].ammo_depleted


def test_no_depletion_roll_under_20mm_27_1(cd_game):
    res = shoot(gun(cd_game, 15), [1, 2])
    assert not [r for r in res.outcome.rolls if r.purpose.startswith("ammo")]


def test_no_depletion_roll_without_a_natural_1(cd_game):
    res = shoot(gun(cd_game, 75), [2, 2])
    assert len(res.outcome.rolls) == 2


@pytest.mark.parametrize("vehicle,mod,threshold", [("armoured_car", ("Armoured car", 1), 5), ("tank", ("Tank", -1), 3)])
def test_vehicle_modifies_the_depletion_threshold_27_1(cd_game, vehicle, mod, threshold):
    res = shoot(gun(cd_game, 40, vehicle), [1, threshold, 2])
    assert modifiers(res.outcome)[-1] == (*mod, "CD [27.1]")
    assert res.game.units["F"].ammo_depleted
    res = shoot(gun(cd_game, 40, vehicle), [1, threshold + 1, 2])
    assert not res.game.units["F"].ammo_depleted


def test_a_depleted_stand_may_not_fire_27_1(cd_game):
    g = gun(cd_game, 75)
    g.units["F"].ammo_depleted = True
    with pytest.raises(IllegalOrder, match=r"out of ammunition until resupplied \(CD \[27.1\]\)"):
        shoot(g, [5])


def battery(cd_game, phase="Artillery", **stats):
    return cd_game(phase=phase).stand("B", 0, **{"kind": "artillery", "weapon_class": "H", "caliber_mm": 105,
                                                 "idf_to_hit": 6, **stats}) \
        .stand("T", 1).stand("U", 1, kind="afv", armour=4, weight=2).stand("W", 1, kind="afv", armour=1, weight=1)


def idf(game, dice, targets=("T",), **order):
    return run(game, dice, action="indirect_fire", firer="B", targets=list(targets), **order)


def test_idf_hits_on_the_idf_number_or_less_17_6(cd_game):
    res = idf(battery(cd_game).game, [6, 8])
    assert steps(res.outcome)[1:3] == [("IDF to hit T T", None, None, "CD [17.6]"),
                                       ("IDF number of B B", 6, 6, "CD [17.6]")]
    assert res.outcome.cells[0].result == "eliminated"
    assert res.outcome.headline == "B B fires IDF at T T: 1 hit -> eliminated"


def test_idf_miss_still_suppresses_17_5_20(cd_game):
    res = idf(battery(cd_game).game, [7])
    assert not res.outcome.cells
    assert res.game.units["T"].suppressed
    assert res.outcome.effects[0].effects == ("suppressed",)
    assert res.outcome.trail[-1].rule == "CD [17.5, 20]"


IDF_CASES = [
    ("medium cover", {}, "T", {"cover": "medium"}, [("Personnel in medium cover", -2)]),
    ("hard cover", {}, "T", {"cover": "hard"}, [("Personnel in hard cover", -3)]),
    ("fortification", {}, "T", {"cover": "fortification"}, [("Personnel in fortification", -5)]),
    ("firer pinned", {"pinned": True}, "T", {}, [("Firer pinned", -2)]),
    ("dedicated battery", {}, "T", {"dedicated_battery": True}, [("Dedicated battery", 2)]),
    ("veteran", {"quality": "veteran"}, "T", {}, [("Elite/Veteran firer", 1)]),
    ("elite", {"quality": "elite"}, "T", {}, [("Elite/Veteran firer", 1)]),
    ("trained", {"quality": "trained"}, "T", {}, [("Trained/Green firer", -1)]),
    ("green", {"quality": "green"}, "T", {}, [("Trained/Green firer", -1)]),
    ("suppressed", {"suppressed": True}, "T", {}, [("Firer suppressed", -2)]),
    ("vs AFV", {}, "U", {}, [("vs AFV of weight class 2", -2)]),
    ("vs weak AFV", {}, "W", {}, [("vs weak AFV", 1), ("vs AFV of weight class 1", -1)]),
    ("AFV ignores personnel cover", {}, "U", {"cover": "hard"}, [("vs AFV of weight class 2", -2)]),
]


@pytest.mark.parametrize("stats,target,order,mods", [c[1:] for c in IDF_CASES], ids=[c[0] for c in IDF_CASES])
def test_idf_to_hit_modifier_17_6(cd_game, stats, target, order, mods):
    res = idf(battery(cd_game, **stats).game, [10], targets=(target,), **order)
    assert modifiers(res.outcome) == [(*m, "CD [17.6]") for m in mods]
    assert steps(res.outcome, "check")[0][2] == 6 + sum(v for _, v in mods)


def test_idf_hit_takes_no_ap_modifiers(cd_game):
    res = idf(battery(cd_game).game, [1, 5, 7], targets=("U",))  # 1 hits (6-2), depletion 5 <= 10, result 7
    assert res.outcome.cells[0].row == "7"
    assert res.game.units["B"].ammo_depleted


def test_idf_rolls_one_die_per_stand_and_only_the_first_can_deplete_27_1(cd_game):
    res = idf(battery(cd_game).game, [9, 1, 2], targets=("T", "U"))  # U hit by its natural 1; no depletion
    assert [r.purpose for r in res.outcome.rolls] == ["IDF to hit T T", "IDF to hit U U", "hit result on U U"]
    assert not res.game.units["B"].ammo_depleted
    assert res.outcome.headline == "B B fires IDF at T T, U U: 1 hit -> U U: no effect"


def test_h_and_i_fire_does_not_deplete_27_1(cd_game):
    res = idf(battery(cd_game).game, [1, 2], h_and_i=True)
    assert "H&I fire does not deplete ammunition" in labels(res.outcome)
    assert not res.game.units["B"].ammo_depleted


def test_a_stand_without_an_idf_number_may_not_fire_idf_17_6(cd_game):
    g = battery(cd_game, idf_to_hit=None).game
    with pytest.raises(IllegalOrder, match=r"has no indirect-fire number \(CD \[17.6\]\)"):
        idf(g, [5])


def test_idf_is_refused_in_the_general_fire_phase(cd_game):
    with pytest.raises(IllegalOrder, match=r"only in the Artillery & Air Phase or Opportunity Fire Phase; this is the General Fire Phase \(CD \[17.6\]\)"):
        idf(battery(cd_game, phase="GeneralFire").game, [5])


@pytest.mark.parametrize("support,need", [("organic", 5), ("supporting", 3), ("h_and_i", 3)])
def test_artillery_response_succeeds_on_its_number_or_less_17_4(cd_game, support, need):
    g = battery(cd_game).game
    ok = run(g, [need], action="artillery_response", firer="B", support=support)
    assert steps(ok.outcome, "check") == [(f"{need} vs {need} or less: responds", need, need, "CD [17.4]")]
    assert labels(ok.outcome, "marker") == ["B B: place the IDF template"]
    fail = run(g, [need + 1], action="artillery_response", firer="B", support=support)
    assert fail.outcome.headline.endswith(f"d10 {need + 1} -> no response this turn")
    assert labels(fail.outcome, "marker") == []


def test_organic_artillery_responds_in_exactly_5_of_10_17_4(cd_game):
    g = battery(cd_game).game
    ok = [run(g, [r], action="artillery_response", firer="B").outcome.headline.endswith("template") for r in range(1, 11)]
    assert ok.count(True) == 5
