"""Rate of fire [13.5]: the firer's ROF dice and their modifiers; dice aimed round-robin."""

from .conftest import labels, modifiers, run, steps

MISS = 10  # with to-hit 6 a 10 always misses, so each test scripts only the ROF dice


def rof_of(res) -> int:
    return next(s.total for s in res.outcome.trail if s.label == "ROF dice")


def fire(cd_game, dice, firer=None, targets=("T",), phase="GeneralFire", **order):
    b = cd_game(phase=phase).stand("F", 0, **{"rof": 2, **(firer or {})})
    for t in ("T", "U", "V"):
        b.stand(t, 1)
    return run(b.game, dice, firer="F", targets=list(targets), **order)


def test_base_rof_is_the_stands_rof_13_5(cd_game):
    res = fire(cd_game, [MISS, MISS])
    assert steps(res.outcome)[2] == ("ROF of F F", 2, 2, "CD [13.5]")
    assert rof_of(res) == 2 and len(res.outcome.rolls) == 2


def test_elite_quality_adds_a_die_13_5(cd_game):
    res = fire(cd_game, [MISS] * 3, {"quality": "elite"})
    assert ("Elite", 1, "CD [13.5]") in modifiers(res.outcome)
    assert rof_of(res) == 3


def test_elite_rof_flag_adds_a_die_13_5(cd_game):
    res = fire(cd_game, [MISS] * 3, {"elite_rof": True, "quality": "regular"})
    assert rof_of(res) == 3


def test_op_fire_adds_a_die_13_5(cd_game):
    res = fire(cd_game, [MISS] * 3, phase="OpFire")
    assert ("Op Fire", 1, "CD [13.5]") in modifiers(res.outcome)
    assert rof_of(res) == 3


def test_passengers_lose_a_die_and_get_no_op_fire_bonus_13_5(cd_game):
    res = fire(cd_game, [MISS], phase="OpFire", passenger=True)
    assert modifiers(res.outcome)[0] == ("Passenger (no Op Fire bonus)", -1, "CD [13.5]")
    assert "Passengers get no Op Fire bonus" in labels(res.outcome)
    assert rof_of(res) == 1


def test_human_wave_adds_a_die_in_close_assault_13_5(cd_game):
    res = fire(cd_game, [MISS] * 3, close_assault=True, human_wave=True)
    assert ("Human Wave (close assault)", 1, "CD [13.5]") in modifiers(res.outcome)
    assert rof_of(res) == 3


def test_multiple_targets_lose_a_die_13_5(cd_game):
    res = fire(cd_game, [MISS] * 2, {"rof": 3}, targets=("T", "U"))
    assert ("Multiple targets", -1, "CD [13.5]") in modifiers(res.outcome)
    assert rof_of(res) == 2


def test_multiple_targets_in_contact_keep_every_die_16_3(cd_game):
    res = fire(cd_game, [MISS] * 3, {"rof": 3}, targets=("T", "U"), in_contact=True)
    assert not modifiers(res.outcome)[:1] or modifiers(res.outcome)[0][0] != "Multiple targets"
    assert "Multiple targets in contact: no ROF penalty" in labels(res.outcome)
    assert rof_of(res) == 3


def test_rof_is_at_least_one_die(cd_game):
    res = fire(cd_game, [MISS], {"rof": 1}, targets=("T", "U"), passenger=True)
    assert ("At least 1 die", 1, 1, "CD [13.5]") in steps(res.outcome, "check")
    assert rof_of(res) == 1


def test_personnel_close_assault_vs_afv_fires_one_die_13_5(cd_game):
    g = cd_game().stand("F", 0, rof=3).stand("T", 1, kind="afv").game
    res = run(g, [MISS], firer="F", targets=["T"], close_assault=True)
    assert ("Personnel in close assault vs AFV: at most 1 die", 1, 1, "CD [13.5]") in steps(res.outcome, "check")
    assert rof_of(res) == 1


def test_a_battalion_gun_fires_one_die_13_5(cd_game):
    res = fire(cd_game, [MISS], {"rof": 3, "battalion_gun": True, "kind": "gun"})
    assert rof_of(res) == 1


def test_dice_are_aimed_at_the_targets_in_turn(cd_game):
    res = fire(cd_game, [MISS] * 4, {"rof": 5}, targets=("T", "U", "V"))
    assert [s.label for s in res.outcome.trail if s.kind == "dice"] == [
        "ROF die 1 at T T", "ROF die 2 at U U", "ROF die 3 at V V", "ROF die 4 at T T"]
    assert [r.purpose for r in res.outcome.rolls] == ["to hit T T", "to hit U U", "to hit V V", "to hit T T"]


def test_headline_counts_dice_and_hits(cd_game):
    res = fire(cd_game, [3, MISS, 5])
    assert res.outcome.headline == "F F fires 2 ROF at T T: 1 hit -> forced back"
    assert res.outcome.actor_side == 0
    res = fire(cd_game, [MISS, MISS])
    assert res.outcome.headline == "F F fires 2 ROF at T T: no hits"
