"""Company morale [21]: modifiers, the result bands in both directions, demoralized in contact
[21.3.4]; Rally/Regroup [21.4]."""

import pytest

from bot.core.errors import IllegalOrder, InvalidOrder

from .conftest import labels, modifiers, run, steps


def company(cd_game, phase="CommandMorale", turn=1, **options):
    return cd_game(phase=phase, turn=turn, **options) \
        .stand("A1", 0, company="Able").stand("A2", 0, company="Able").stand("G1", 1, company="Fox")


def check(builder, roll, **order):
    return run(builder.game, [roll], action="morale", company="Able", **order)


def test_regular_company_passes_on_6_or_less_by_default(cd_game):
    res = check(company(cd_game), 6)
    assert steps(res.outcome, "base") == [("Morale rating 6 (A1 A1, regular)", 6, 6, "CD [21]")]
    assert steps(res.outcome, "check") == [("d10 6 vs 6 or less (rating 6 +0): passed", 6, 6, "CD [21]")]
    assert res.outcome.headline == "Company Able morale: d10 6 -> passed"
    assert not res.outcome.cells


@pytest.mark.parametrize("roll,mods,result,flags", [
    (7, {}, "pinned", {"pinned": True}),
    (8, {}, "pinned", {"pinned": True}),
    (9, {}, "forced back + shaken", {"shaken": True, "forced_back": True}),
    (10, {}, "forced back + shaken", {"shaken": True, "forced_back": True}),
    (7, {"afv_near": True, "air_attack_near": True}, "forced back + demoralized", {"demoralized": True, "forced_back": True}),
    (8, {"afv_near": True, "air_attack_near": True}, "forced back + demoralized", {"demoralized": True, "forced_back": True}),
    (9, {"afv_near": True, "air_attack_near": True}, "eliminated", {"eliminated": True}),
], ids=["miss1", "miss2", "miss3", "miss4", "miss5", "miss6", "miss7"])
def test_morale_result_by_how_far_the_check_is_missed_21_3(cd_game, roll, mods, result, flags):
    res = check(company(cd_game), roll, **mods)
    missed = roll - 6 - sum(-2 for _ in mods)
    cell = res.outcome.cells[0]
    assert (cell.table, cell.row, cell.result) == ("CD Morale Results [21.3]", str(missed), result)
    for uid in ("A1", "A2"):
        stand = res.game.units[uid]
        assert {k: getattr(stand, k) for k in flags} == flags
    assert res.game.units["G1"] == company(cd_game).game.units["G1"]  # the other company is untouched


@pytest.mark.parametrize("roll,result", [(5, "passed"), (4, "missed by 1: pinned"), (3, "missed by 2: pinned"),
                                         (2, "missed by 3: forced back + shaken"), (1, "missed by 4: forced back + shaken")])
def test_at_least_direction_needs_the_rating_or_more(cd_game, roll, result):
    res = check(company(cd_game, cd_morale_direction="at_least"), roll)
    assert steps(res.outcome, "base")[0][1] == 5
    assert res.outcome.headline == f"Company Able morale: d10 {roll} -> {result}"


def test_at_least_direction_subtracts_modifiers_from_the_roll(cd_game):
    res = check(company(cd_game, cd_morale_direction="at_least"), 1, road_march=True, targeted_by_tot=True)
    assert steps(res.outcome, "check") == [("d10 1 -4 = -3 vs 5 or more: missed by 8", -3, 5, "CD [21]")]
    assert res.game.units["A1"].eliminated


def test_game_options_override_the_ratings(cd_game):
    res = check(company(cd_game, cd_morale_ratings={"regular": 9}), 9)
    assert steps(res.outcome, "base")[0][1] == 9 and res.outcome.headline.endswith("passed")


def test_a_stands_own_morale_number_wins_and_the_worst_rates_the_company(cd_game):
    b = company(cd_game).set("A2", morale=3)
    res = check(b, 4)
    assert steps(res.outcome, "base") == [("Morale rating 3 (A2 A2, regular)", 3, 3, "CD [21]")]
    assert res.outcome.headline == "Company Able morale: d10 4 -> missed by 1: pinned"


def test_a_bad_direction_option_is_refused(cd_game):
    with pytest.raises(InvalidOrder, match="cd_morale_direction"):
        check(company(cd_game, cd_morale_direction="sideways"), 5)


MORALE_MODS = [
    ("in_cover", ("In cover", 2, "CD [14.2.2]")),
    ("enemy_personnel_near", ('Enemy personnel within 12" and LOS', -1, "CD [21.2]")),
    ("afv_near", ('Enemy AFV within 12" and LOS', -2, "CD [21.2]")),
    ("air_attack_near", ('Air attack within 12"', -2, "CD [21.2]")),
    ("road_march", ("In road march", -2, "CD [23.1.2]")),
    ("targeted_by_tot", ("Targeted by TOT mission", -2, "CD [28.3.1]")),
]


@pytest.mark.parametrize("flag,mod", MORALE_MODS, ids=[m[0] for m in MORALE_MODS])
def test_morale_modifier_21(cd_game, flag, mod):
    res = check(company(cd_game), 1, **{flag: True})
    assert modifiers(res.outcome) == [mod]
    assert steps(res.outcome, "check")[0][2] == 6 + mod[1]


def test_each_stand_forced_back_and_eliminated_this_turn_counts_21_1_1(cd_game):
    b = company(cd_game, turn=3).stand("A3", 0, company="Able", eliminated=True, eliminated_turn=3) \
        .stand("A4", 0, company="Able", eliminated=True, eliminated_turn=2).set("A1", forced_back=True) \
        .set("A2", forced_back=True)
    res = check(b, 1)
    assert modifiers(res.outcome) == [("Stand of the company forced back this turn x2", -2, "CD [21.1.1]"),
                                      ("Stand of the company eliminated this turn x1", -2, "CD [21.1.1]")]


@pytest.mark.parametrize("state,mod", [("pinned", -2), ("shaken", -3), ("demoralized", -4)])
def test_the_companys_worst_state_modifies_the_check_21_3(cd_game, state, mod):
    b = company(cd_game).set("A1", **{"pinned": True, state: True})
    res = check(b, 1)
    assert [m[1] for m in modifiers(res.outcome)] == [mod]


def test_a_demoralized_company_in_contact_is_eliminated_21_3_4(cd_game):
    b = company(cd_game).set("A1", demoralized=True).set("A2", demoralized=True)
    res = check(b, 1, in_contact=True)  # passes, but still demoralized and in contact
    assert all(res.game.units[u].eliminated for u in ("A1", "A2"))
    assert res.outcome.headline == "Company Able morale: d10 1 -> eliminated (demoralized in contact)"
    assert res.outcome.effects[0].effects == ("eliminated (demoralized in contact)",)
    assert res.outcome.trail[-1].rule == "CD [21.3.4]"


def test_becoming_demoralized_in_contact_eliminates(cd_game):
    res = check(company(cd_game), 7, afv_near=True, air_attack_near=True, in_contact=True)
    assert res.game.units["A1"].eliminated and res.game.units["A1"].demoralized


def test_a_demoralized_company_out_of_contact_survives(cd_game):
    b = company(cd_game).set("A1", demoralized=True)
    res = check(b, 1)
    assert not res.game.units["A1"].eliminated


def test_passing_removes_a_pin_from_an_earlier_turn_21_3_2(cd_game):
    b = company(cd_game, turn=2).set("A1", pinned=True, pinned_turn=1)
    res = check(b, 1)
    assert not res.game.units["A1"].pinned
    assert res.outcome.effects[0].effects == ("pin removed (passed)",)


def test_a_company_checks_once_a_turn(cd_game):
    res = check(company(cd_game), 1)
    with pytest.raises(IllegalOrder, match=r"already checked morale this turn \(CD \[21\]\)"):
        run(res.game, [1], action="morale", company="able")


def test_morale_is_checked_in_the_command_and_morale_phase(cd_game):
    with pytest.raises(IllegalOrder, match=r"only in the Command & Morale Phase; this is the General Fire Phase \(CD \[21\]\)"):
        check(company(cd_game, phase="GeneralFire"), 1)


def test_an_unknown_company_lists_the_companies(cd_game):
    with pytest.raises(InvalidOrder, match=r"no company 'Baker' in this game \(companies: Able, Fox\)"):
        run(company(cd_game).game, [1], action="morale", company="Baker")


# --- Rally/Regroup [21.4] ---


def rally(builder):
    return run(builder.game, [], action="rally", company="Able")


def test_rally_removes_pinned_and_shaken_21_4(cd_game):
    b = company(cd_game, phase="Movement").set("A1", pinned=True).set("A2", shaken=True)
    res = rally(b)
    assert not any(res.game.units[u].pinned or res.game.units[u].shaken for u in ("A1", "A2"))
    assert [e.effects for e in res.outcome.effects] == [("pinned -> good order",), ("shaken -> good order",)]
    assert res.outcome.headline == "Company Able rallies: now good order"


def test_rally_steps_demoralized_back_to_shaken_21_4(cd_game):
    b = company(cd_game, phase="Movement").set("A1", demoralized=True).set("A2", demoralized=True)
    res = rally(b)
    assert res.game.units["A1"].shaken and not res.game.units["A1"].demoralized
    assert res.outcome.effects[0].after == "shaken"
    assert "Rallying: no move, and fire only in contact this turn" in labels(res.outcome)


def test_rally_with_nothing_to_rally_from_is_refused(cd_game):
    with pytest.raises(IllegalOrder, match="nothing to rally from"):
        rally(company(cd_game, phase="Movement"))


def test_rally_takes_effect_in_the_movement_phase(cd_game):
    with pytest.raises(IllegalOrder, match=r"\(CD \[21.4\]\)"):
        rally(company(cd_game, phase="GeneralFire").set("A1", pinned=True))


def test_a_rallying_stand_fires_only_in_contact_with_minus_2_21_4(cd_game):
    b = company(cd_game, phase="Movement").set("A1", pinned=True)
    g = rally(b).game
    g.phase = "GeneralFire"
    with pytest.raises(IllegalOrder, match=r"only in contact \(CD \[21.4\]\)"):
        run(g, [5], firer="A1", targets=["G1"])
    res = run(g, [10], firer="A1", targets=["G1"], in_contact=True)
    assert ("Firer under a Rally/Regroup order", -2, "CD [21.4]") in modifiers(res.outcome)
