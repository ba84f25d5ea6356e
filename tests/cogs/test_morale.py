"""/morale end to end: ASL and NHiS unit checks, Command Decision company checks."""

import pytest

from tests.cogs.conftest import ALICE, BOB, THREAD
from tests.cogs.helpers import asl_game, cd_game, edit, field, fields, last_entry, nhis_game, until_allowed

RUSSIAN_RED = 0xB5533C  # side 1's colour (bot.render.SIDE_COLOURS)


async def test_asl_1mc_with_an_agreed_drm_breaks_the_squad_a10_1(table):
    await asl_game(table, phase="PFPh")
    reply = await table.send("morale", {"unit": "R1", "check": "MC", "n": 1, "drm": 1, "reason": "scenario rule",
                                        "dice": "3 4"}, user=BOB)
    assert reply.embeds == [{
        "type": "rich",
        "flags": 0,
        "color": RUSSIAN_RED,
        "title": "4-4-7 R1: 1MC (Morale Check), Final DR 8 vs 7 -> fails",
        "description": "Advanced Squad Leader · Test · turn 1, Prep Fire Phase · Germans to act",
        "footer": {"text": "log #15"},
        "fields": [
            field("Dice", "MC 4-4-7 R1: rolled 3+4 = 7 (white 3, colored 4), final DR 8\nmanual dice (given by the players)"),
            field("1MC (Morale Check): 4-4-7 R1 [A10.1]",
                  "morale  7  [A10.1]\n1MC  +1  [A10.1]\nleadership of 8-1 L1  -1  [A10.7]\n"
                  "agreed: scenario rule  +1\nDR: white 3, colored 4  7  [A10.1]\n"
                  "Final DR 8 vs morale 7  fails  (=8)  [A10.1]\n"
                  "failed by 1, not more than ELR 3: no replacement  [A19.13]\n4-4-7 R1: broken  [A10.3]"),
            field("Effects", "4-4-7 R1: Good Order -> broken, DM"),
        ],
    }]
    assert (await table.game()).units["R1"].broken
    entry = await last_entry(table)
    assert (entry.command, entry.actor, entry.manual) == ("/morale", BOB, True)
    assert entry.order == {"action": "morale", "unit": "R1", "check": "MC", "n": 1, "drm": 1,
                           "drm_reason": "scenario rule"}


async def test_asl_check_defaults_to_an_nmc_helped_by_the_leader_a10_7(table):
    await asl_game(table, phase="PFPh")
    reply = await table.send("morale", {"unit": "A1", "dice": "3 4"})
    assert reply.embeds[0]["title"] == "4-6-7 A1: Normal Morale Check, Final DR 6 vs 7 -> passes"
    assert fields(reply.embeds[0])["Normal Morale Check: 4-6-7 A1 [A10.1]"] == (
        "morale  7  [A10.1]\nleadership of 9-1 G1  -1  [A10.7]\nDR: white 3, colored 4  7  [A10.1]\n"
        "Final DR 6 vs morale 7  passes  (=6)  [A10.1]")


async def test_morale_without_dice_rolls_system_dice_and_logs_manual_false(table):
    await asl_game(table, phase="PFPh")
    reply = await table.send("morale", {"unit": "A1"})
    entry = await last_entry(table)
    white, colored = entry.dice
    assert fields(reply.embeds[0])["Dice"] == (f"NMC 4-6-7 A1: rolled {white}+{colored} = {white + colored} "
                                               f"(white {white}, colored {colored}), final DR {white + colored - 1}")  # 9-1 G1
    assert entry.manual is False


@pytest.mark.parametrize(("options", "user", "says"), [
    ({"unit": "R1", "dice": "3 4"}, ALICE, "4-4-7 R1 belongs to Russians; you play Germans"),
    ({"unit": "Q7", "dice": "3 4"}, ALICE, "no unit 'Q7' in this game"),
    ({"company": "Able", "dice": "3 4"}, ALICE,
     "'company' is not used in Advanced Squad Leader games (only in Command Decision: Test of Battle)"),
    ({"unit": "A1", "hit": 2, "dice": "3 4"}, ALICE,
     "'hit' is not used in Advanced Squad Leader games (only in No Honor in Surrender)"),
    ({"unit": "A1", "options": "in_cover=yes"}, ALICE,
     "'options' is not used in Advanced Squad Leader games (only in No Honor in Surrender and Command Decision: "
     "Test of Battle)"),
    ({"dice": "3 4"}, ALICE, "'unit' is required in Advanced Squad Leader: the unit that checks"),
    ({"unit": "A1", "reason": "because"}, ALICE, "'reason' explains an extra 'drm': give the drm too"),
], ids=["other-side", "unknown-unit", "company-in-asl", "hit-in-asl", "cd-option-in-asl", "no-unit",
        "reason-without-drm"])
async def test_asl_morale_refused(table, options, user, says):
    await asl_game(table, phase="PFPh")
    assert says in await table.refused("morale", options, user=user)


async def test_an_n_above_seven_from_a_client_skipping_discords_checks_is_refused(table):
    await asl_game(table, phase="PFPh")
    text = await table.refused("morale", {"unit": "A1", "check": "MC", "n": 9}, check=False)
    assert text == "'n' must be at most 7, not '9'"


async def test_morale_in_a_channel_without_a_game(table):
    text = await table.refused("morale", {"unit": "A1"}, channel=THREAD)
    assert text == "There is no game in this channel: start one with /game new"


async def test_nhis_hit_2_check_adds_two_to_the_die_and_the_leader_helps(table):
    await nhis_game(table)
    reply = await table.send("morale", {"unit": "U1", "hit": 2, "dice": "3"})
    rule = "NHiS Hit result (seed 001)"
    assert fields(reply.embeds[0]) == {
        "Dice": "morale check US Marine rifle squad U1: rolled 3 (d6)\nmanual dice (given by the players)",
        f"Morale check (Hit-2): US Marine rifle squad U1 [{rule}]":
            f"Morale of US Marine rifle squad U1  5  (=5)  [{rule}]\n"
            f"Leadership of US Marine leader UL (Prepared)  +1  (=6)  [{rule}]\n1d6  3  (=3)  [{rule}]\n"
            f"Hit-2  +2  (=5)  [{rule}]\n5 vs 6: passes  pass  [{rule}]",
    }
    assert reply.embeds[0]["title"] == "US Marine rifle squad U1 morale check (Hit-2)"  # within 60 characters
    assert reply.embeds[0]["description"].splitlines()[0] == "1d6 3 + 2 = 5 vs 6 -> passes"
    assert (await last_entry(table)).order == {"action": "morale", "unit": "U1", "hit": 2}


async def test_nhis_morale_refuses_an_asl_check_kind(table):
    await nhis_game(table)
    assert await table.refused("morale", {"unit": "U1", "check": "PTC"}) == (
        "'check' is not used in No Honor in Surrender games (only in Advanced Squad Leader)")


async def test_cd_company_morale_with_the_cards_modifiers_as_options(table):
    await cd_game(table, phase="CommandMorale", extra=(edit("G1", pinned=True, pinned_turn=1),))
    await until_allowed(table, "morale", 1)  # Side B's part of the phase
    reply = await table.send("morale", {"company": "Kampf", "options": "in_cover=yes", "dice": "3"}, user=BOB)
    assert reply.embeds[0]["title"] == "Company Kampf morale: d10 3 -> passed"
    assert reply.embeds[0]["color"] == RUSSIAN_RED
    assert fields(reply.embeds[0])["Morale check: company Kampf (2 stands) [CD [21]]"] == (
        "Morale rating 7 (German rifle platoon G1, experienced)  7  (=7)  [CD [21]]\n"
        "In cover  +2  (=2)  [CD [14.2.2]]\nCompany pinned  -2  (=0)  [CD [21.3.2]]\n"
        "Morale roll, company Kampf  3  [CD [21]]\nd10 3 vs 7 or less (rating 7 +0): passed  3  (=7)  [CD [21]]")
    entry = await last_entry(table)
    assert entry.order == {"action": "morale", "company": "Kampf", "in_cover": True}
    assert (await table.game()).units["G1"].morale_checked_turn == 1


@pytest.mark.parametrize(("options", "user", "says"), [
    ({"unit": "G1", "dice": "3"}, BOB,
     "'unit' is not used in Command Decision: Test of Battle games (only in Advanced Squad Leader and No Honor "
     "in Surrender)"),
    ({"company": "Kampf", "dice": "3"}, ALICE, "company Kampf belongs to Germans; you play Americans"),
    ({"company": "Baker", "dice": "3"}, BOB, "no company 'Baker' in this game (companies: Able, Arty, Kampf)"),
    ({"company": "Kampf", "options": "flamethrower=yes"}, BOB, "'options': 'flamethrower' is not an option"),
], ids=["unit-in-cd", "other-side", "unknown-company", "nhis-option-in-cd"])
async def test_cd_morale_refused(table, options, user, says):
    await cd_game(table, phase="CommandMorale")
    assert says in await table.refused("morale", options, user=user)


async def test_cd_morale_refused_outside_the_command_and_morale_phase(table):
    await cd_game(table, phase="GeneralFire")
    assert await table.refused("morale", {"company": "Kampf", "dice": "3"}, user=BOB) == (
        "a company checks morale only in the Command & Morale Phase; this is the General Fire Phase (CD [21]): "
        "the next Command & Morale Phase comes as each side ends its part with /done (the game master may jump "
        "there with /game phase to:CommandMorale)")


async def test_company_autocomplete_lists_the_games_companies(table):
    await cd_game(table)
    assert await table.autocomplete("morale", {"company": ""}, focused="company") == [
        {"name": "Able (Americans, 2 stands)", "value": "Able"},
        {"name": "Arty (Americans, 1 stand)", "value": "Arty"},
        {"name": "Kampf (Germans, 2 stands)", "value": "Kampf"}]
    assert await table.autocomplete("morale", {"company": "ka"}, focused="company") == [
        {"name": "Kampf (Germans, 2 stands)", "value": "Kampf"}]
