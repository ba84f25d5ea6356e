"""The Hit Results chart [19.1] and AP hits [19.1.1], checked against the digest."""

import pytest
from pydantic import ValidationError

from bot.core.rulesets.cd import tables

from .conftest import run, steps

# The digest's chart typed in again (not read from the data file), so a wrong cell in
# data/cd/hit_results.yaml fails here: quality -> (no effect up to, forced back up to).
DIGEST = {"green": (1, 5), "trained": (2, 6), "regular": (3, 6), "experienced": (4, 7),
          "veteran": (5, 7), "elite": (6, 8)}


def expected(quality: str, roll: int) -> str:
    none_max, back_max = DIGEST[quality]
    return "no effect" if roll <= none_max else "forced back" if roll <= back_max else "eliminated"


CELLS = [(q, r) for q in DIGEST for r in range(1, 11)]


def one_hit(cd_game, dice, target_stats=None, firer_stats=None, **order):
    """A 1-ROF firer that always hits (to-hit 10) at one target: dice = [to-hit, hit result...]."""
    g = cd_game().stand("F", 0, **{"to_hit": {"short": 10}, **(firer_stats or {})}) \
        .stand("T", 1, **(target_stats or {})).game
    return g, run(g, dice, firer="F", targets=["T"], **order)


@pytest.mark.parametrize("quality,roll", CELLS, ids=[f"{q}-{r}" for q, r in CELLS])
def test_hit_result_cell_matches_the_digest_19_1(cd_game, quality, roll):
    _, res = one_hit(cd_game, [5, roll], {"quality": quality})
    cell = res.outcome.cells[0]
    assert (cell.table, cell.column, cell.row, cell.rule) == ("CD Hit Results [19.1]", quality, str(roll), "CD [19.1]")
    assert cell.result == expected(quality, roll)
    stand = res.game.units["T"]
    assert (stand.eliminated, stand.forced_back) == (cell.result == "eliminated", cell.result == "forced back")


@pytest.mark.parametrize("quality,eliminated,forced_back", [
    ("green", 5, 4), ("trained", 4, 4), ("regular", 4, 3), ("experienced", 3, 3), ("veteran", 3, 2),
    ("elite", 2, 2)])
def test_exact_counts_over_the_ten_faces_19_1(quality, eliminated, forced_back):
    results = [tables.hit_results().read(quality, roll) for roll in range(1, 11)]
    assert results.count("eliminated") == eliminated
    assert results.count("forced back") == forced_back
    assert results.count("no effect") == 10 - eliminated - forced_back


def test_a_regular_stand_is_eliminated_in_exactly_4_of_10(cd_game):
    outcomes = [one_hit(cd_game, [5, roll], {"quality": "regular"})[1].game.units["T"].eliminated
                for roll in range(1, 11)]
    assert outcomes.count(True) == 4


def test_soft_vehicles_read_the_green_column_whatever_their_quality_19_1(cd_game):
    _, res = one_hit(cd_game, [5, 6], {"kind": "vehicle", "quality": "elite"})
    assert res.outcome.cells[0].column == "green"
    assert res.outcome.cells[0].result == "eliminated"


def test_a_forced_back_hit_marks_the_stand_for_this_turn(cd_game):
    _, res = one_hit(cd_game, [5, 5], {"quality": "regular"})
    assert res.game.units["T"].forced_back
    effect = res.outcome.effects[0]
    assert (effect.unit, effect.before, effect.after, effect.effects) == \
        ("T", "Good Order", "Good Order, forced back", ("forced back",))


def test_an_eliminated_stand_records_the_turn(cd_game):
    _, res = one_hit(cd_game, [5, 9])
    assert res.game.units["T"].eliminated and res.game.units["T"].eliminated_turn == 1


AFV = {"kind": "afv", "quality": "regular", "armour": 4, "weight": 2}
AP_GUN = {"weapon_class": "A", "penetration": {"short": 6, "long": 3}, "to_hit": {"short": 10, "long": 10}}


def test_ap_hit_modified_by_armour_and_penetration_19_1_1(cd_game):
    _, res = one_hit(cd_game, [5, 4], AFV, AP_GUN)  # 4 - 4 + 6 = 6: regular forced back
    assert steps(res.outcome)[-4:-2] == [
        ("Armour value of T T", -4, 0, "CD [19.1.1]"), ("Penetration at short", 6, 6, "CD [19.1.1]")]
    assert res.outcome.cells[0].row == "4 -4 +6 = 6"
    assert res.outcome.cells[0].result == "forced back"


def test_ap_hit_with_low_penetration_bounces(cd_game):
    _, res = one_hit(cd_game, [5, 9], AFV, AP_GUN, range_band="long")  # 9 - 4 + 3 = 8 -> eliminated
    assert res.outcome.cells[0].result == "eliminated"
    _, res = one_hit(cd_game, [5, 3], AFV, AP_GUN, range_band="long")  # 3 - 4 + 3 = 2 -> no effect
    assert res.outcome.cells[0].result == "no effect"
    assert not res.game.units["T"].forced_back


def test_natural_10_eliminates_at_close_range_19_1_1(cd_game):
    heavy = {**AFV, "armour": 12}  # 10 - 12 + 6 = 4: no effect but for the natural 10
    _, res = one_hit(cd_game, [5, 10], heavy, AP_GUN, close_range=True)
    assert res.outcome.cells[0].result == "eliminated"
    assert res.outcome.cells[0].rule == "CD [19.1.1]"
    assert "Natural 10 on the penetration roll at close range: eliminated" in [s.label for s in res.outcome.trail]


def test_natural_10_at_other_ranges_at_least_forces_back_19_1_1(cd_game):
    heavy = {**AFV, "armour": 12}
    _, res = one_hit(cd_game, [5, 10], heavy, AP_GUN)
    assert res.outcome.cells[0].result == "forced back"
    assert res.outcome.cells[0].row == "10 -12 +6 = 4 (natural 10)"
    assert res.game.units["T"].forced_back and not res.game.units["T"].eliminated


def test_non_ap_hits_on_an_afv_take_no_modifiers_19_1_1(cd_game):
    _, res = one_hit(cd_game, [5, 4], AFV, {"weapon_class": "S"})
    assert not [s for s in res.outcome.trail if s.label.startswith(("Armour", "Penetration"))]
    assert res.outcome.cells[0].row == "4"


def test_an_ap_weapon_at_a_soft_target_takes_no_modifiers(cd_game):
    _, res = one_hit(cd_game, [5, 7], {"quality": "regular"}, AP_GUN)
    assert res.outcome.cells[0].row == "7" and res.outcome.cells[0].result == "eliminated"


def test_hits_after_the_target_is_eliminated_are_spent(cd_game):
    g = cd_game().stand("F", 0, rof=3, to_hit={"short": 10}).stand("T", 1).game
    res = run(g, [2, 3, 4, 9], firer="F", targets=["T"])
    assert len(res.outcome.cells) == 1
    assert res.outcome.trail[-2].label == "T T is already eliminated: the hit is spent"
    assert res.outcome.unused_dice == ()


def test_the_chart_data_forbids_unknown_keys():
    data = tables.hit_results().model_dump()
    data["columns"]["regular"]["typo"] = 1
    with pytest.raises(ValidationError):
        tables.HitResults.model_validate(data)


def test_the_chart_needs_every_quality():
    data = tables.hit_results().model_dump()
    del data["columns"]["elite"]
    with pytest.raises(ValidationError, match="one column per quality"):
        tables.HitResults.model_validate(data)
