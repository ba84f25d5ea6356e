"""Every kind of result of the three rulesets fits a phone (issue 30, item 3): its title and its footer
within 60 characters (bot/render.py RESULT_LINE), the rest of a longer title opening the first line;
the standard ASL fire in at most 8 lines. The real client against the loopback Discord, each result
read as posted (outcome first) and with the game option details=always (the whole trail in the
channel), whose titles are split the same way."""

from __future__ import annotations

import pytest

from bot.render import RESULT_LINE
from tests.cogs.conftest import ALICE, BOB
from tests.cogs.helpers import INITIATIVE_TO_SIDE_0, edit, gm, start_game, terrain, unit, until_allowed
from tests.cogs.test_result_layout import phone_lines

LONG_PURPOSE = "SSR 3: the reinforcements enter on the east edge on a DR of 7 or less"


def fits(reply, kind: str) -> list[dict]:
    """The reply was posted (not refused) and each of its embeds has a title and a footer of one line."""
    assert not reply.ephemeral, (kind, reply.embeds)
    for embed in reply.embeds:
        assert len(embed["title"]) <= RESULT_LINE, (kind, embed["title"])
        footer = embed.get("footer", {}).get("text", "")
        assert len(footer) <= RESULT_LINE, (kind, footer)
    return reply.embeds


def goes_on(embed: dict, headline_end: str) -> None:
    """A title cut to fit: what it left out opens the description, nothing lost."""
    said = embed["title"] + " " + embed["description"].splitlines()[0]
    assert headline_end in said, (embed["title"], embed["description"])


DETAILS = pytest.mark.parametrize("details", [False, True], ids=["outcome-first", "details-always"])


@DETAILS
async def test_asl_fire_morale_rally_close_combat_and_public_roll(table, details):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("A2", 0, "A4", "ger-467"), unit("G1", 0, "A4", "ger-9-1"),
        unit("A3", 0, "A4", "ger-467", broken=True), unit("A5", 0, "C5", "ger-467"),
        unit("R1", 1, "B5", "rus-447"), unit("R2", 1, "B5", "rus-447"), unit("L1", 1, "B5", "rus-8-1"),
        unit("R3", 1, "C5", "rus-447"), terrain("B5", "woods"),
    ], phase="RPh", options={"elr": [3, 3]}, details=details)
    [rally] = fits(await table.send("rally", {"unit": "A3", "leader": "G1", "dice": "3 4"}), "rally")
    assert rally["title"] == "4-6-7 A3 rally (rallied by 9-1 G1)"  # 62 characters whole: split at ': '
    goes_on(rally, "Final DR 6 vs 8 -> rallies")
    await gm(table, {"action": "phase", "to": "PFPh"}, "/game phase")
    fits(await table.send("morale", {"unit": "A1", "check": "NMC", "dice": "2 2"}), "morale")
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    [fire] = fits(fired, "fire")
    if not details:
        assert len(phone_lines(fire)) <= 8  # the standard ASL fire: a leader, three firers, three checks
    rolled = await table.send("roll public", {"dice": "2d6", "purpose": LONG_PURPOSE, "rolled": "3 4"})
    [roll] = fits(rolled, "/roll public")
    goes_on(roll, "east edge on a DR of 7 or less: 7 (3 + 4)")
    await gm(table, {"action": "phase", "to": "CCPh"}, "/game phase")
    fits(await table.send("close-combat", {"attackers": "A5", "targets": "R3"}), "close combat declared")
    # both attacks in one title of 120 characters: "Close Combat in C5: ... at 1:1" and the rest below
    [melee] = fits(await table.send("close-combat", {"attackers": "R3", "targets": "A5", "dice": "3 6 5 3"},
                                    user=BOB), "close combat")
    assert melee["title"] == "Close Combat in C5: 4-6-7 A5 vs 4-4-7 R3 at 1:1"
    goes_on(melee, "final DR 9 -> no effect; 4-4-7 R3 vs 4-6-7 A5 at 1:1: final DR 8 -> no effect")


async def nhis_hill(table, details: bool):
    """The sample's first hexes: M1, M2 and L1 in 0303, M3 in 0304; the Japanese J1 in 0405."""
    await start_game(table, "nhis", ["US Marines", "Japanese"], [
        unit("M1", 0, "0303", "us-rifle-squad"), unit("M2", 0, "0303", "us-30cal-mg"),
        unit("L1", 0, "0303", "us-leader"), unit("M3", 0, "0304", "us-rifle-squad"),
        unit("U2", 0, "0303", "us-rifle-squad", shaken=True),
        unit("J1", 1, "0405", "jp-rifle-squad"), terrain("0405", "open"), terrain("0404", "open"),
    ], phase="Operations", details=details)


@DETAILS
async def test_nhis_activation_fire_morale_and_public_roll(table, details):
    await nhis_hill(table, details)
    # 'Impulse 1: US Marine leader L1 activates 0303 (M1, M2, L1, U2) and 0304 (M3)': 69 characters
    [activated] = fits(await table.send("activate", {"leader": "L1", "units": "M3"}, user=ALICE), "activation")
    goes_on(activated, "0304 (M3)")
    fits(await table.send("fire", {"firers": "M1 M3", "target": "0405", "dice": "6 6"}, user=ALICE), "fire")
    # 'US Marine rifle squad M1 morale check (Hit-2): 1d6 3 + 2 = 5 vs 6 -> passes': split at ': '
    [morale] = fits(await table.send("morale", {"unit": "M1", "hit": 2, "dice": "3"}, user=ALICE), "morale")
    assert morale["title"] == "US Marine rifle squad M1 morale check (Hit-2)"
    fits(await table.send("roll public", {"dice": "d6", "purpose": LONG_PURPOSE, "rolled": "4"}), "/roll public")


@DETAILS
async def test_nhis_opportunity_fire_and_rally(table, details):
    await nhis_hill(table, details)
    fits(await table.send("move", {"units": "M3", "to": "0404"}, user=ALICE), "move")
    fired = await table.send("fire", {"firers": "J1", "target": "0404", "range": 1, "dice": "3 4 6"}, user=BOB)
    fits(fired, "opportunity fire")
    await gm(table, {"action": "phase", "to": "Rally"}, "/game phase")
    await until_allowed(table, "rally", 0)
    fits(await table.send("rally", {"unit": "U2", "dice": "3"}, user=ALICE), "rally")


@DETAILS
async def test_cd_artillery_fire_company_check_and_public_roll(table, details):
    await start_game(table, "cd", ["Americans", "Germans"], [
        unit("S1", 0, "X1", "m4-sherman-75", company="Able"), unit("P1", 0, "X1", "us-rifle", company="Able"),
        unit("B1", 0, "X1", "us-105mm-battery", company="Arty"),
        unit("G1", 1, "X2", "ger-rifle", company="Kampf"), unit("G2", 1, "X2", "ger-rifle", company="Kampf"),
        edit("G1", pinned=True, pinned_turn=1),
    ], phase="Artillery", details=details)
    # 'Supporting artillery response for US 105mm battery: d10 1 -> responds, place the template'
    [response] = fits(await table.send("artillery response", {"firer": "B1", "support": "supporting",
                                                              "dice": "1"}), "artillery response")
    goes_on(response, "d10 1 -> responds, place the template")
    # 126 characters, its first ': ' after 83: the title goes on after the targets' comma
    fired = await table.send("artillery fire", {"firer": "B1", "targets": "G1 G2", "cover": "medium", "dice": "2 9 4"})
    [idf] = fits(fired, "artillery")
    assert idf["title"] == "US 105mm battery B1 fires IDF at German rifle platoon G1,"
    goes_on(idf, "German rifle platoon G2: 1 hit -> German rifle platoon G1: no effect")
    await gm(table, {"action": "phase", "to": "GeneralFire"}, "/game phase", dice=INITIATIVE_TO_SIDE_0)
    [fire] = fits(await table.send("fire", {"firers": "P1", "target": "G1 G2", "band": "medium", "dice": "9"}),
                  "fire at two stands")
    goes_on(fire, "German rifle platoon G2: no hits")
    # two rolls to hit against one number: both read alike, the cover's -2 in the number, not on one roll
    [shot] = fits(await table.send("fire", {"firers": "S1", "target": "G1", "band": "short",
                                            "options": "cover=medium", "dice": "9 8"}), "fire of ROF 2")
    if not details:
        assert shot["description"].splitlines()[1:3] == [
            "🎲 to hit German rifle platoon G1: rolled 9, 9 vs 3 or less: miss",
            "🎲 to hit German rifle platoon G1: rolled 8, 8 vs 3 or less: miss"]
    fits(await table.send("roll public", {"dice": "d10", "purpose": LONG_PURPOSE, "rolled": "7"}), "/roll public")
    await gm(table, {"action": "phase", "to": "CommandMorale"}, "/game phase")
    await until_allowed(table, "morale", 1)
    fits(await table.send("morale", {"company": "Kampf", "options": "in_cover=yes", "dice": "3"}, user=BOB),
         "company check")
