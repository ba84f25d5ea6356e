"""NHiS Damaged / Damaged-2 / Damaged-3 results (seed 001): damage points at random, every unit
one before any a second, then Shakeable units Shaken and unreduced Unshakable units checking."""

from .conftest import effects, fire, labels, nhis_game

DAMAGE = "NHiS Damaged result (seed 001)"
FP_FOR = {1: 4, 2: 6, 3: 16}  # on open ground at range 2, 2d6 2 reads D / D-2 / D-3


def shoot(points, *targets, dice=()):
    """U1 fires at C1 holding ``targets`` (uid, stats) with 2d6 1+1, then ``dice``."""
    b = nhis_game().squad("U1", 0, "A1", fp=FP_FOR[points])
    for uid, stats in targets:
        b.squad(uid, 1, "C1", **stats)
    return fire(b.game, [1, 1, *dice], firers=["U1"], target="C1", range=2)


def test_damaged_on_one_unit_reduces_it_then_shakes_it_without_a_roll():
    res = shoot(1, ("J1", {}))
    assert res.outcome.headline == "4 FP -> column 4: 2d6 2 -> Damaged"
    assert effects(res)["J1"] == ("damage point: reduced", "Shaken (no check)")
    assert len(res.outcome.rolls) == 1  # the fire roll only: one unit needs no allocation die


def test_a_damage_point_on_a_reduced_unit_eliminates_it():
    res = shoot(1, ("J1", {"reduced": True}))
    assert res.game.units["J1"].eliminated
    assert effects(res)["J1"] == ("damage point: already reduced, eliminated",)


def test_damaged_over_two_units_is_allocated_by_a_d6_each_highest_takes_it():
    res = shoot(1, ("J1", {}), ("J2", {}), dice=[2, 5])
    assert [(s.label, s.value) for s in res.outcome.trail if s.kind == "dice"][1:] == [
        ("Round 1 allocation d6 for squad J1", 2), ("Round 1 allocation d6 for squad J2", 5)]
    assert effects(res)["J2"] == ("damage point: reduced", "Shaken (no check)")
    assert effects(res)["J1"] == ("Shaken (no check)",)
    assert [r.purpose for r in res.outcome.rolls] == [
        "fire on C1", "damage allocation squad J1", "damage allocation squad J2"]


def test_a_tie_for_the_point_is_rolled_again_and_every_die_is_shown():
    res = shoot(1, ("J1", {}), ("J2", {}), ("J3", {}), dice=[5, 5, 2, 1, 4])
    assert "Tie at 5 for 1 point: squad J1, squad J2 roll again" in labels(res, "note")
    assert [r.dice[0] for r in res.outcome.rolls[1:]] == [5, 5, 2, 1, 4]
    assert res.game.units["J2"].reduced and not res.game.units["J1"].reduced
    assert res.outcome.unused_dice == ()


def test_damaged_2_on_one_unit_reduces_then_eliminates_it():
    res = shoot(2, ("J1", {}))
    assert res.outcome.cells[0].result == "Damaged-2"
    assert "Round 2: 1 point for 1 unit: each takes one, no roll needed" in labels(res, "note")
    assert effects(res)["J1"] == ("damage point: reduced", "damage point: already reduced, eliminated")


def test_damaged_2_on_two_units_gives_each_one_point_without_a_roll():
    res = shoot(2, ("J1", {}), ("J2", {}))
    assert "Round 1: 2 points for 2 units: each takes one, no roll needed" in labels(res, "note")
    assert res.game.units["J1"].reduced and res.game.units["J2"].reduced
    assert not res.game.units["J1"].eliminated and not res.game.units["J2"].eliminated
    assert len(res.outcome.rolls) == 1


def test_damaged_2_on_three_units_goes_to_the_two_highest_dice():
    res = shoot(2, ("J1", {}), ("J2", {}), ("J3", {}), dice=[6, 2, 4])
    assert [res.game.units[u].reduced for u in ("J1", "J2", "J3")] == [True, False, True]
    assert all(res.game.units[u].shaken for u in ("J1", "J2", "J3"))


def test_damaged_3_on_two_units_gives_each_one_before_any_gets_a_second():
    res = shoot(3, ("J1", {}), ("J2", {}), dice=[3, 5])
    assert res.outcome.cells[0].result == "Damaged-3"
    assert effects(res)["J1"] == ("damage point: reduced", "Shaken (no check)")
    assert effects(res)["J2"] == ("damage point: reduced", "damage point: already reduced, eliminated")
    assert [s.label for s in res.outcome.trail if s.kind == "dice"][1:] == [
        "Round 2 allocation d6 for squad J1", "Round 2 allocation d6 for squad J2"]


def test_damaged_3_on_one_unit_loses_the_points_left_once_it_is_gone():
    res = shoot(3, ("J1", {}))
    assert "1 damage point lost: no unit left in the hex" in labels(res, "note")
    assert res.game.units["J1"].eliminated


def test_an_already_shaken_unit_loses_no_further_step_from_the_shaking():
    res = shoot(1, ("J1", {}), ("J2", {"shaken": True}), dice=[6, 1])
    assert "squad J2 is already Shaken: no further loss" in labels(res, "note")
    assert "J2" not in effects(res) and not res.game.units["J2"].reduced


def test_unreduced_unshakable_units_check_morale_with_a_prepared_leader_leaders_first():
    b = nhis_game().squad("U1", 0, "A1", fp=4)
    b.squad("J1", 1, "C1", shakeable=False).squad("J2", 1, "C1", shakeable=False)
    b.leader("JL", 1, "C1", shakeable=False, leadership=1)
    # allocation: J1 6, J2 1, JL 2 -> J1 reduced; JL checks (1d6 3 vs 5), then J2 (1d6 6 vs 5 + 1)
    res = fire(b.game, [1, 1, 6, 1, 2, 3, 6], firers=["U1"], target="C1", range=2)
    assert labels(res, "section")[2:] == ["Morale check (Damaged): leader JL", "Morale check (Damaged): squad J2"]
    assert labels(res, "check")[-2:] == ["3 vs 5: passes", "6 vs 6: passes"]
    assert effects(res) == {"J1": ("damage point: reduced",), "U1": ("marked Fire",)}
    assert all(s.rule == DAMAGE for s in res.outcome.trail if s.kind == "check" and s.unit in ("J2", "JL"))


def test_a_shakeable_leader_shaken_by_the_damage_lends_nothing_to_the_unshakable_check():
    b = nhis_game().squad("U1", 0, "A1", fp=4)
    b.squad("J1", 1, "C1", shakeable=False).squad("J2", 1, "C1", shakeable=False).leader("JL", 1, "C1")
    res = fire(b.game, [1, 1, 6, 1, 2, 6], firers=["U1"], target="C1", range=2)
    assert effects(res)["JL"] == ("Shaken (no check)",)
    assert "leader JL is Shaken and lends no leadership" in labels(res, "note")
    assert effects(res)["J2"] == ("Unshakable, fails: reduced",)


def test_a_moving_unshakable_unit_failing_after_damage_stops_unless_banzai():
    b = nhis_game().squad("U1", 0, "A1", fp=2)  # + 2 on the moving target: the 4 column, D on 2
    b.squad("J1", 1, "C1", shakeable=False).squad("J2", 1, "C1", shakeable=False, moving=True, banzai=True)
    res = fire(b.game, [1, 1, 6, 1, 6], firers=["U1"], target="C1", range=2)
    assert res.outcome.cells[0].result == "Damaged"
    assert res.game.units["J2"].moving and res.game.units["J2"].reduced
    assert "squad J2 is Banzai Charging and keeps moving" in labels(res, "note")
    flame = fire(b.game, [1, 1, 6, 1, 6], firers=["U1"], target="C1", range=2, flamethrower=True)
    assert not flame.game.units["J2"].moving
    assert effects(flame)["J2"][-1] == "must stop moving (the check was caused by a flamethrower)"
