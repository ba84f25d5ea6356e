"""Unit changes (A7.302 Casualty Reduction, A10.3 break, elimination, A19.13 ELR replacement) and
the numbers of data/asl/morale.yaml."""

from bot.core.dice import Roller, ScriptedDice
from bot.core.rulesets.asl.context import AslContext
from bot.core.rulesets.asl.effects import (break_unit, casualty_reduction, elr_replacement, eliminate, pin,
                                           rules)


def context(game):
    return AslContext(game.model_copy(deep=True), Roller(ScriptedDice([])))


def test_casualty_reduction_keeps_id_side_location_markers_and_sws_a7_302(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", type="ger-467", reduces_to="ger-247", cx=True,
                                     fire_marker="prep").mg("M1", "A1").game
    ctx = context(g)
    new = casualty_reduction(ctx, ctx.game.units["A1"])
    assert (new.id, new.side, new.location, new.name, new.kind, new.cx, new.fire_marker) == (
        "A1", 0, "B5", "2-4-7", "half-squad", True, "prep")
    assert ctx.game.units["M1"].owner == "A1"
    assert [(e.unit, e.before, e.after, e.effects) for e in ctx.effects()] == [
        ("A1", "Good Order, CX, Prep Fire", "Good Order, CX, Prep Fire", ("reduced to 2-4-7",))]


def test_casualty_reduction_eliminates_half_squads_crews_and_smc_a7_302(asl_game):
    g = (asl_game(phase="PFPh").unit("H1", 0, "B5", kind="half-squad", name="2-4-7", morale=7)
         .unit("C1", 0, "B5", kind="crew", name="2-2-8", morale=8).leader("L1", 0, "B5").game)
    ctx = context(g)
    for uid in ("H1", "C1", "L1"):
        assert casualty_reduction(ctx, ctx.game.units[uid]) is None
        assert ctx.game.units[uid].eliminated
    assert [s.rule for s in ctx.trail.freeze() if s.kind == "effect"] == ["A7.302"] * 3


def test_break_sets_dm_and_clears_the_pin_a10_3(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", pinned=True).game
    ctx = context(g)
    break_unit(ctx, ctx.game.units["A1"], rule="A10.3")
    unit = ctx.game.units["A1"]
    assert (unit.broken, unit.dm, unit.pinned) == (True, True, False)
    pin(ctx, unit, rule="A7.8")  # a broken unit is not pinned as well
    assert not unit.pinned


def test_elimination_leaves_every_sw_unpossessed_in_the_location_a4_44(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5").mg("M1", "A1").mg("M2", "A1", sw_type="MMG").game
    ctx = context(g)
    eliminate(ctx, ctx.game.units["A1"], rule="A7.301", why="1KIA")
    assert [(ctx.game.units[m].owner, ctx.game.units[m].location) for m in ("M1", "M2")] == [(None, "B5")] * 2


def test_elr_replacement_uses_the_new_types_numbers_a19_13(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", type="rus-447", replaced_by="rus-426", rallied_turn=3).game
    ctx = context(g)
    [new] = elr_replacement(ctx, ctx.game.units["A1"])
    assert (new.id, new.name, new.morale, new.broken_morale, new.quality, new.reduces_to, new.rallied_turn) == (
        "A1", "4-2-6", 6, 6, "conscript", "rus-226", 3)


def test_no_lower_quality_type_means_no_replacement_a19_13(asl_game):
    g = asl_game(phase="PFPh").squad("A1", 0, "B5", type="rus-426").game
    ctx = context(g)
    assert elr_replacement(ctx, ctx.game.units["A1"])[0].name == "4-6-7"
    assert ctx.trail.freeze()[-1].label == "4-6-7 A1: no lower-quality type, so no ELR replacement"


def test_morale_data_numbers():
    data = rules()
    assert (data.rally.terrain_drm, data.rally.dm_drm, data.rally.self_rally_drm) == (-1, 4, 1)
    assert (data.recovery.max_final_dr, data.recovery.cx_drm, data.recovery.night_drm,
            data.recovery.jungle_drm) == (5, 1, 1, 2)
    assert data.portage.capacity == {"squad": 3, "half-squad": 2, "crew": 2, "leader": 1, "hero": 1}
    assert (data.check.casualty_original, data.heat_of_battle.original, data.elr.underlined_morale_elr) == (12, 2, 5)
