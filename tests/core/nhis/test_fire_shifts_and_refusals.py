"""NHiS fire: the column shifts, the refusals, and what firing does to the firers (seed 001)."""

import pytest

from bot.core.errors import IllegalOrder, InvalidOrder

from .conftest import effects, fire, labels, nhis_game, step


def test_protective_terrain_without_markers_shifts_two_columns_left():
    game = nhis_game().hex("C1", "trees").squad("U1", 0, "A1", fp=10).squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    shift = step(res, "Column shift: C1 is protective terrain")
    assert (shift.value, shift.rule) == (-2, "NHiS DRM list (seed 001)")
    assert res.outcome.headline == "8 FP -> column 8, shifted 2 left -> column 4: 2d6 12 -> no effect"


@pytest.mark.parametrize("terrain,features", [
    ("wooden building", ()), ("huts", ()), ("rough", ()), ("lava rock", ()), ("trees", ()),
    ("brush", ()), ("tall grass", ()), ("open", ("cave",)), ("open", ("wreck",))])
def test_each_terrain_of_the_shift_list_shifts(terrain, features):
    game = nhis_game().hex("C1", terrain, *features).squad("U1", 0, "A1", fp=20).squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "Column shift").value == -2


@pytest.mark.parametrize("terrain", ["open", "beach", "paddy"])
def test_open_terrain_does_not_shift(terrain):
    game = nhis_game().hex("C1", terrain).squad("U1", 0, "A1", fp=8).squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert not [x for x in labels(res) if x.startswith("Column shift")]
    assert res.outcome.cells[0].column == "8"


@pytest.mark.parametrize("marker", ["move", "fire", "charge"])
def test_a_marked_target_loses_the_terrain_shift(marker):
    game = (nhis_game().hex("C1", "trees").squad("U1", 0, "A1", fp=10)
            .squad("J1", 1, "C1", marker=marker).game)
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert f"No terrain shift: squad J1 carries a {marker.title()} marker" in labels(res, "note")
    moving_bonus = 2 if marker in ("move", "charge") else 0
    assert res.outcome.cells[0].column == str(8 + moving_bonus)


def test_infantry_firing_on_a_tank_shifts_two_columns_left():
    game = nhis_game().squad("U1", 0, "A1", fp=8).tank("T1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert step(res, "Column shift: infantry firing on a tank").value == -2
    assert res.outcome.cells[0].column == "4"


def test_a_tank_firing_on_a_tank_does_not_shift():
    game = nhis_game().tank("T0", 0, "A1", fp=8).tank("T1", 1, "C1").game
    res = fire(game, [6, 6], firers=["T0"], target="C1", range=2)
    assert res.outcome.cells[0].column == "8"


def test_the_two_shifts_add_up():
    game = nhis_game().hex("C1", "trees").squad("U1", 0, "A1", fp=14).tank("T1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert res.outcome.headline == "12 FP -> column 12, shifted 4 left -> column 4: 2d6 12 -> no effect"


def test_shifting_off_the_left_edge_has_no_effect_and_rolls_nothing():
    game = nhis_game().hex("C1", "trees").squad("U1", 0, "A1", fp=4).squad("J1", 1, "C1").game
    res = fire(game, [], firers=["U1"], target="C1", range=2)
    assert res.outcome.headline == "2 FP -> column 2, shifted 2 left -> off the table: no effect"
    assert res.outcome.rolls == () and res.outcome.cells == ()


def test_infantry_fire_at_a_mixed_hex_leaves_the_tank_out():
    game = nhis_game().squad("U1", 0, "A1", fp=8).tank("T1", 1, "C1").squad("J1", 1, "C1").game
    res = fire(game, [1, 1], firers=["U1"], target="C1", range=2)
    assert "Infantry fire at a mixed hex attacks the infantry only: tank T1 untouched (assumed)" in labels(res)
    assert res.outcome.cells[0].column == "8"
    assert "T1" not in effects(res) and res.game.units["T1"].reduced is False


# --- refusals ---

def test_a_shaken_unit_may_not_fire():
    game = nhis_game().squad("U1", 0, "A1", shaken=True).squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match=r"squad U1 is Shaken and may not fire \(NHiS Hit result"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2)


def test_a_side_does_not_fire_on_its_own_units():
    game = nhis_game().squad("U1", 0, "A1").squad("U2", 0, "C1").game
    with pytest.raises(IllegalOrder, match="only friendly units in C1: no enemy to fire at"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2)


def test_fire_at_an_empty_hex_is_refused():
    game = nhis_game().squad("U1", 0, "A1").hex("C1").game
    with pytest.raises(IllegalOrder, match="no unit in C1"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2)


def test_an_unknown_hex_is_named():
    game = nhis_game().squad("U1", 0, "A1").game
    with pytest.raises(InvalidOrder, match="no location 'Z9'") as err:
        fire(game, [3, 4], firers=["U1"], target="Z9", range=2)
    assert err.value.field == "target"


def test_an_unknown_firer_is_named():
    game = nhis_game().squad("U1", 0, "A1").squad("J1", 1, "C1").game
    with pytest.raises(InvalidOrder, match="no unit 'U9'"):
        fire(game, [3, 4], firers=["U9"], target="C1", range=2)


def test_firers_of_both_sides_are_refused():
    game = nhis_game().squad("U1", 0, "A1").squad("J2", 1, "A1").squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match="both sides"):
        fire(game, [3, 4], firers=["U1", "J2"], target="C1", range=2)


def test_a_charging_unit_must_be_a_firer():
    game = nhis_game().squad("U1", 0, "A1").squad("J1", 1, "C1").game
    with pytest.raises(InvalidOrder, match="'U7' in charging is not one of the firers"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2, charging=["U7"])


def test_fire_happens_in_the_operations_phase():
    game = nhis_game(phase="Rally").squad("U1", 0, "A1").squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match=r"units fire only in the Operations Phase; this is the Rally Phase \(NHiS sequence of play \(assumed\)\)"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2)


def test_a_unit_marked_fire_has_fired_this_turn():
    game = nhis_game().squad("U1", 0, "A1", marker="fire").squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match="marked Fire: it has fired this turn"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=2)


def test_fire_into_the_firers_own_hex_is_melee():
    game = nhis_game().squad("U1", 0, "C1").squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match="melee"):
        fire(game, [3, 4], firers=["U1"], target="C1", range=0)


def test_a_leader_has_no_firepower_to_fire_with():
    game = nhis_game().leader("L1", 0, "A1").squad("J1", 1, "C1").game
    with pytest.raises(IllegalOrder, match="leader L1 has no Firepower"):
        fire(game, [3, 4], firers=["L1"], target="C1", range=2)


def test_the_game_given_is_unchanged_when_the_dice_run_out_mid_attack():
    # 2d6 5 on the 4 column is Hit-1: J1 fails (6 + 1 > 5) and is changed on the working copy,
    # then J2's check finds no die: the error leaves the caller's game exactly as it was
    game = nhis_game().squad("U1", 0, "A1").squad("J1", 1, "C1").squad("J2", 1, "C1").game
    before = game.model_copy(deep=True)
    with pytest.raises(InvalidOrder, match="dice given ran out"):
        fire(game, [2, 3, 6], firers=["U1"], target="C1", range=2)
    assert game == before


# --- the firers ---

def test_firers_are_marked_fire():
    game = nhis_game().squad("U1", 0, "A1").squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert res.game.units["U1"].marker == "fire"
    assert effects(res)["U1"] == ("marked Fire",)
    assert res.outcome.actor_side == 0


def test_a_moving_firer_keeps_its_move_marker():
    game = nhis_game().squad("U1", 0, "A1", marker="move").squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert res.game.units["U1"].marker == "move" and "U1" not in effects(res)
