"""/transfer and /recover end to end: ASL support weapons (A4.43-A4.44, seed 002 Table 7)."""

import pytest

from tests.cogs.conftest import ALICE, BOB, THREAD
from tests.cogs.helpers import asl_game, cd_game, field, fields, last_entry, nhis_game

GERMAN_BLUE = 0x4A7AB5  # side 0's colour (bot.render.SIDE_COLOURS)
TABLE_7 = "A4.43 / seed 002 Table 7"


async def test_transfer_in_the_rally_phase_is_both_units_sole_action_table_7_a(table):
    await asl_game(table, phase="RPh")
    reply = await table.send("transfer", {"weapon": "MG1", "to": "A2"})
    assert reply.embeds == [{
        "type": "rich",
        "flags": 0,
        "color": GERMAN_BLUE,
        "title": "LMG MG1 passes from 4-6-7 A1 to 4-6-7 A2",
        "description": "Advanced Squad Leader · Test · turn 1, Rally Phase, ATTACKER's part · Germans to act",
        "footer": {"text": "log #14"},
        "fields": [
            field(f"Transfer of LMG MG1: 4-6-7 A1 -> 4-6-7 A2 [{TABLE_7}]",
                  f"Table 7 case A: sole RPh action  [{TABLE_7}]\n"
                  f"LMG MG1: transferred from 4-6-7 A1 to 4-6-7 A2  [{TABLE_7}]"),
            field("Effects", "LMG MG1: transferred from 4-6-7 A1 to 4-6-7 A2"),
        ],
    }]
    assert (await table.game()).units["MG1"].owner == "A2"
    entry = await last_entry(table)
    assert (entry.command, entry.order, entry.dice, entry.manual) == (
        "/transfer", {"action": "transfer", "weapon": "MG1", "to": "A2"}, (), False)
    # the sole RPh action is spent: handing it back is refused, and changes nothing
    assert await table.refused("transfer", {"weapon": "MG1", "to": "A1"}) == (
        f"4-6-7 A2 has already spent its sole Rally Phase action ({TABLE_7})")


async def test_transfer_refused_in_the_prep_fire_phase_table_7(table):
    await asl_game(table, phase="PFPh")
    assert await table.refused("transfer", {"weapon": "MG1", "to": "A2"}) == (
        "it is the Prep Fire Phase, Germans to act: Germans may not transfer now (A3); Germans may transfer in the "
        "Rally Phase (ATTACKER's part), Movement Phase and Advance Phase of this turn")


@pytest.mark.parametrize(("options", "user", "says"), [
    ({"weapon": "MG1", "to": "A2"}, BOB, "4-6-7 A1 belongs to Germans; you play Russians"),
    ({"weapon": "MG9", "to": "A2"}, ALICE, "no unit 'MG9' in this game"),
], ids=["other-side", "unknown-weapon"])
async def test_transfer_refused(table, options, user, says):
    await asl_game(table, phase="RPh")
    assert says in await table.refused("transfer", options, user=user)


async def test_recover_an_unpossessed_sw_with_a_recovery_dr_a4_44(table):
    await asl_game(table, phase="RPh")
    reply = await table.send("recover", {"weapon": "MG2", "unit": "A2", "dice": "2"})
    embed = reply.embeds[0]
    assert embed["title"] == "4-6-7 A2 recovers LMG MG2"
    assert fields(embed)["Dice"] == "recovery by 4-6-7 A2: rolled 2 (dr), final dr 2\nmanual dice (given by the players)"
    assert (await table.game()).units["MG2"].owner == "A2"
    entry = await last_entry(table)
    assert (entry.command, entry.order, entry.dice, entry.manual) == (
        "/recover", {"action": "recover", "weapon": "MG2", "unit": "A2"}, (2,), True)


async def test_recover_without_dice_rolls_system_dice_and_logs_manual_false(table):
    await asl_game(table, phase="RPh")
    await table.send("recover", {"weapon": "MG2", "unit": "A2"})
    entry = await last_entry(table)
    assert entry.manual is False and len(entry.dice) == 1 and 1 <= entry.dice[0] <= 6


@pytest.mark.parametrize(("options", "user", "says"), [
    ({"weapon": "MG2", "unit": "R1", "dice": "2"}, ALICE, "4-4-7 R1 belongs to Russians; you play Germans"),
    ({"weapon": "MG2", "unit": "A9", "dice": "2"}, ALICE, "no unit 'A9' in this game"),
    ({"weapon": "MG2", "unit": "A2", "dice": "8"}, ALICE, "die #1 given is 8, but a d6 reads 1 to 6"),
], ids=["other-side", "unknown-unit", "impossible-die"])
async def test_recover_refused(table, options, user, says):
    await asl_game(table, phase="RPh")
    assert says in await table.refused("recover", options, user=user)


async def test_recover_refused_for_a_weapon_its_holder_can_transfer(table):
    await asl_game(table, phase="RPh")
    assert await table.refused("recover", {"weapon": "MG1", "unit": "A2", "dice": "2"}) == (
        "4-6-7 A1 holds LMG MG1 and is in Good Order: that is a transfer (/transfer), not a recovery "
        f"({TABLE_7})")


@pytest.mark.parametrize(("setup", "command", "options", "plays"), [
    (nhis_game, "transfer", {"weapon": "U1", "to": "UL"}, "No Honor in Surrender"),
    (cd_game, "recover", {"weapon": "S1", "unit": "P1"}, "Command Decision: Test of Battle"),
], ids=["transfer-in-nhis", "recover-in-cd"])
async def test_support_weapons_are_refused_outside_asl(table, setup, command, options, plays):
    await setup(table)
    assert await table.refused(command, options) == (
        f"/{command} is only for Advanced Squad Leader games; this channel plays {plays} "
        "(its weapons belong to the units themselves)")


async def test_transfer_in_a_channel_without_a_game(table):
    text = await table.refused("transfer", {"weapon": "MG1", "to": "A2"}, channel=THREAD)
    assert text == "There is no game in this channel: start one with /game new"


async def test_weapon_autocomplete_offers_only_support_weapons_with_their_holder(table):
    await asl_game(table, phase="RPh")
    assert await table.autocomplete("transfer", {"weapon": ""}, focused="weapon") == [
        {"name": "MG1 (LMG, held by A1, A4)", "value": "MG1"}, {"name": "MG2 (LMG, unpossessed, A4)", "value": "MG2"}]
    assert await table.autocomplete("recover", {"weapon": "unposs"}, focused="weapon") == [
        {"name": "MG2 (LMG, unpossessed, A4)", "value": "MG2"}]
