"""No surprises (issue 15): a unit nobody named that fires says so in the trail, with the reason."""

from __future__ import annotations

from bot.core.dice import ScriptedDice
from tests.cogs.conftest import refusal
from tests.cogs.helpers import asl_game, cd_game, last_entry
from tests.cogs.test_odds import previewed


def notes(entry) -> list[str]:
    return [s["label"] for s in entry.outcome["trail"] if s["kind"] == "note"]


async def test_naming_only_a_support_weapon_says_its_possessor_fires_with_it(table):
    await asl_game(table)
    await table.send("fire", {"firers": "A2 MG1", "target": "B5", "dice": "5 6 6 6 6 6 6 6"})
    entry = await last_entry(table)
    assert ("4-6-7 A1 possesses LMG MG1 and fires it: its own 4 FP joins the group and it is marked as having "
            "fired (named: LMG MG1 only)") in notes(entry)
    step = next(s for s in entry.outcome["trail"] if s["label"].startswith("4-6-7 A1 possesses"))
    assert step["rule"] == "seed 003 (assumed: data/asl/ift.yaml)" and step["unit"] == "A1"
    assert (await table.game()).units["A1"].fire_marker == "prep"


async def test_naming_the_possessor_too_needs_no_explanation(table):
    await asl_game(table)
    await table.send("fire", {"firers": "A1 MG1", "target": "B5", "dice": "5 6 6 6 6 6 6 6"})
    assert not [n for n in notes(await last_entry(table)) if "possesses" in n]


def dice_steps(entry) -> list[tuple[str, int]]:
    return [(s["label"], s["value"]) for s in entry.outcome["trail"] if s["kind"] == "dice"]


async def test_cd_manual_dice_go_to_the_hit_result_before_an_ammo_depletion_roll(table):
    game = await cd_game(table)
    assert game.options["cd_depletion_after_hits"] is True  # every game created today
    await table.send("fire", {"firers": "S1", "target": "G1", "band": "short", "dice": "1 9 4 2"})
    entry = await last_entry(table)
    assert dice_steps(entry) == [("ROF die 1 at German rifle platoon G1", 1),
                                 ("ROF die 2 at German rifle platoon G1", 9),
                                 ("Hit result on German rifle platoon G1 (experienced)", 4),
                                 ("Depletion roll for M4 Sherman S1", 2)]
    assert (await table.game()).units["S1"].ammo_depleted
    assert (await table.bot.referee.verify(table.channel)).ok


def test_a_cd_game_created_before_keeps_its_order_of_dice():
    from bot.core import api

    game = api.new_game("cd", sides=["Americans", "Germans"])  # no cd_depletion_after_hits: as logged before
    for order in ({"action": "unit_add", "id": "S1", "side": 0, "location": "X1", "type": "m4-sherman-75"},
                  {"action": "unit_add", "id": "G1", "side": 1, "location": "X2", "type": "ger-rifle"},
                  {"action": "phase", "to": "GeneralFire"}):
        game = api.resolve(game, order, ScriptedDice([6, 3])).game
    outcome = api.resolve(game, {"action": "fire", "firer": "S1", "targets": ["G1"], "range_band": "short"},
                          ScriptedDice([1, 9, 2, 4])).outcome
    assert [s.label for s in outcome.trail if s.kind == "dice"][2] == "Depletion roll for M4 Sherman S1"


async def test_the_preview_lists_the_dice_in_the_order_manual_dice_are_used(table):
    await cd_game(table)
    embed = await previewed(table, "fire", {"firers": "S1", "target": "G1", "band": "short"})
    plan = {f["name"]: f["value"] for f in embed["fields"]}["Dice, in the order they are used"]
    assert plan.split("\n") == [
        "1. d10 for to hit German rifle platoon G1 (1 d10)", "2. d10 for to hit German rifle platoon G1 (1 d10)",
        "then, when a result calls for them:", "- d10 for hit result on German rifle platoon G1 (1 d10)",
        "- d10 for ammo depletion of M4 Sherman S1 (1 d10)",
        "2 to 5 dice on the paths tried; manual dice (the 'dice' option) go to the rolls in this order"]


async def test_running_out_of_manual_dice_says_for_which_roll_and_how_many_more(table):
    await asl_game(table)
    reply = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3"})
    assert refusal(reply) == (
        "the dice given ran out (3 given) at roll 2, the DR for MC 8-1 L1: give at least 1 more (the next one is a d6; "
        "more rolls may follow), in the order the preview lists, or leave 'dice' out to let the bot roll")
