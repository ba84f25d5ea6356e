"""/fire and /artillery end to end: the real client, the loopback Discord, a real SQLite file.

Manual dice make every result exact; the embeds are asserted as the JSON the bot posts.
"""

import pytest

from tests.cogs.conftest import ALICE, BOB, CAROL, THREAD
from tests.cogs.helpers import GM_ACTOR, asl_game, cd_game, edit, field, fields, last_entry, nhis_game

ASL_BLUE = 0x4A7AB5  # side 0's colour (bot.render.SIDE_COLOURS)


# --- Advanced Squad Leader -------------------------------------------------------------------


async def test_asl_prep_fire_on_a_stack_with_a_leader_shows_column_drms_and_each_mc(table):
    await asl_game(table, phase="PFPh")
    # IFT DR 4+2; then the 1MCs, leader first: L1 3+2, R1 2+4, R2 5+4
    reply = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    assert not reply.ephemeral
    assert reply.embeds == [{
        "type": "rich",
        "flags": 0,
        "color": ASL_BLUE,
        "title": "8 FP (IFT 8) vs B5: final DR 6 -> 1MC",
        "description": "Advanced Squad Leader · Test · turn 1, Prep Fire Phase · Germans to act",
        "footer": {"text": "log #15"},
        "fields": [
            # each roll named as the short result names it: the dice rolled, then the final DR
            field("Dice", "IFT attack: rolled 4+2 = 6 (white 4, colored 2), final DR 6\n"
                          "MC 8-1 L1: rolled 3+2 = 5 (white 3, colored 2), final DR 6\n"
                          "MC 4-4-7 R1: rolled 2+4 = 6 (white 2, colored 4), final DR 6\n"
                          "MC 4-4-7 R2: rolled 5+4 = 9 (white 5, colored 4), final DR 9\n"
                          "manual dice (given by the players)"),
            # the range typed agrees with the map's count (A4 to B5: two hexes); the line of sight runs
            # along the hexside of A5 and B4, neither of which the game knows: named unknown, not open
            field("Trail", "range 2 (A4 to B5), counted on the map; the typed range 2 agrees  [A7.2 (assumed)]\n"
                           "Target in B5: 4-4-7 R1, 4-4-7 R2, 8-1 L1  [A3.3, seed 003]"),
            field("Line of sight A4 to B5, hex centre to hex centre (los=advise) [A6.1]",
                  "along the hexside of A5 and B4 (blocked only if both sides block): terrain unknown \\| "
                  "terrain unknown -> unknown  [A6.1, B.6]\n"
                  "levels (hills, upper building levels) are not computed: the line is read at ground level  "
                  "[assumed]\n"
                  "read on the map: clear; terrain unknown in A5, B4 (not read as open: check them)  [A6.7]"),
            field("Prep Fire: firepower [A3.3, seed 003]",
                  "4-6-7 A1 FP  4  [A7.2]\n4-6-7 A2 FP  4  [A7.2]\n"
                  "Total FP (fractions kept until the total)  8  [A7.2]\nIFT column  8  (=8)  [A7.2]"),
            field("DRMs [A7.3]",
                  "leadership of 9-1 G1  \\-1  (=-1)  [A7.53]\nTEM: Woods  +1  (=0)  [B.6]\n"
                  "IFT DR: white 4, colored 2  6  [A7.3]\nFinal DR  6  [A7.3]\n"
                  "IFT 8 column, Final DR 6  1MC  [A7.3]"),
            # the heading over the three checks opens the first one's field: no field is empty
            field("1MC (Morale Check): 8-1 L1 [A7.3]",
                  "1MC on 4-4-7 R1, 4-4-7 R2, 8-1 L1 [A7.3]:\nmorale  8  [A10.1]\n1MC  +1  [A7.3]\nDR: white 3, colored 2  5  [A7.3]\n"
                  "Final DR 6 vs morale 8  passes  (=6)  [A7.3]"),
            field("1MC (Morale Check): 4-4-7 R1 [A7.3]",
                  "morale  7  [A10.1]\n1MC  +1  [A7.3]\nleadership of 8-1 L1  -1  [A10.7]\n"
                  "DR: white 2, colored 4  6  [A7.3]\nFinal DR 6 vs morale 7  passes  (=6)  [A7.3]"),
            field("1MC (Morale Check): 4-4-7 R2 [A7.3]",
                  "morale  7  [A10.1]\n1MC  +1  [A7.3]\nleadership of 8-1 L1  -1  [A10.7]\n"
                  "DR: white 5, colored 4  9  [A7.3]\nFinal DR 9 vs morale 7  fails  (=9)  [A7.3]\n"
                  "failed by 2, not more than ELR 3: no replacement  [A19.13]\n4-4-7 R2: broken  [A10.3]"),
            field("Final steps: weapons, Residual FP, fire markers [seed 003]",
                  "4-6-7 A1: marked Prep Fire  [A3.3, seed 003]\n4-6-7 A2: marked Prep Fire  [A3.3, seed 003]\n"
                  "9-1 G1: marked Prep Fire  [A3.3, seed 003]"),
            field("Table", "IFT 8 column, 6 -> 1MC [A7.3]"),
            field("Effects", "4-4-7 R2: Good Order -> broken, DM\n"
                             "4-6-7 A1: marked Prep Fire\n"
                             "4-6-7 A2: marked Prep Fire\n"
                             "9-1 G1: marked Prep Fire"),
        ],
    }]
    game = await table.game()
    assert (game.units["R2"].broken, game.units["R1"].broken, game.units["L1"].broken) == (True, False, False)
    assert [game.units[u].fire_marker for u in ("A1", "A2", "G1")] == ["prep"] * 3
    entry = await last_entry(table)
    assert (entry.seq, entry.command, entry.actor, entry.manual) == (15, "/fire", ALICE, True)
    assert entry.order == {"action": "fire", "firers": ["A1", "A2", "G1"], "target": "B5", "range": 2}
    assert entry.dice == (4, 2, 3, 2, 2, 4, 5, 4)


async def test_asl_fire_passes_kind_hindrance_and_an_agreed_drm_with_its_reason(table):
    await asl_game(table, phase="PFPh")
    reply = await table.send("fire", {"firers": "A1", "target": "B5", "range": 2, "kind": "prep", "hindrance": 1,
                                      "drm": 1, "reason": "scenario rule: dusk", "dice": "6 5"})
    assert reply.embeds[0]["title"] == "4 FP (IFT 4) vs B5: final DR 14 -> -"
    assert "agreed: scenario rule: dusk  +1" in fields(reply.embeds[0])["DRMs [A7.3]"]
    assert "hindrance, 1 hex(es), typed by the players (the map reads +0)  +1" in fields(reply.embeds[0])["DRMs [A7.3]"]
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firers": ["A1"], "target": "B5", "range": 2, "kind": "prep",
                           "hindrance": 1, "drm": 1, "drm_reason": "scenario rule: dusk"}


async def test_asl_defensive_first_fire_on_the_moving_unit_named_in_options_a8_1(table):
    await asl_game(table, phase="MPh", extra=(edit("A1", moving=True), edit("A2", moving=True)))
    reply = await table.send("fire", {"firers": "R1", "target": "A4", "range": 2, "options": "target_units=A2",
                                      "dice": "6 5"}, user=BOB)
    embed = reply.embeds[0]
    assert embed["title"] == "4 FP (IFT 4) vs A4: final DR 9 -> -"
    assert fields(embed)["Trail"] == ("range 2 (B5 to A4), counted on the map; the typed range 2 agrees  "
                                      "[A7.2 (assumed)]\nTarget in A4 (moving): 4-6-7 A2  [A8.1, seed 003]")
    assert fields(embed)["DRMs [A7.3]"].splitlines()[:2] == [
        "FFMO (moving in Open Ground)  \\-1  (=-1)  [A4.6, seed 003]",
        "FFNAM (not Assault Movement)  \\-1  (=-2)  [A4.6, seed 003]"]
    assert (await last_entry(table)).order == {"action": "fire", "firers": ["R1"], "target": "A4", "range": 2,
                                               "target_units": ["A2"]}
    assert (await table.game()).locations["A4"].residual_fp == 2


async def test_fire_without_dice_rolls_system_dice_and_logs_manual_false(table):
    await asl_game(table, phase="PFPh")
    reply = await table.send("fire", {"firers": "A1", "target": "B5"})
    embed = reply.embeds[0]
    dice_lines = fields(embed)["Dice"].splitlines()
    assert dice_lines[0].startswith("IFT attack: rolled ") and ", final DR " in dice_lines[0]
    assert "manual dice (given by the players)" not in dice_lines
    entry = await last_entry(table)
    assert entry.manual is False and entry.command == "/fire"
    white, colored = entry.dice[:2]  # the logged dice are the ones shown
    assert dice_lines[0].startswith(f"IFT attack: rolled {white}+{colored} = {white + colored} "
                                    f"(white {white}, colored {colored}), final DR ")


# --- refusals: a red private embed, the game and its log untouched ----------------------------


@pytest.mark.parametrize(("options", "user", "says"), [
    ({"firers": "R1", "target": "A4", "range": 2}, ALICE, "4-4-7 R1 belongs to Russians; you play Germans"),
    ({"firers": "A1", "target": "B5", "range": 2}, CAROL, "only the players of this game give orders here"),
    ({"firers": "Z9", "target": "B5", "range": 2}, ALICE, "no unit 'Z9' in this game"),
    ({"firers": "A1", "target": "B5", "range": 20}, ALICE, "range 20 was typed, but the map counts 2 from A4 to B5"),
    ({"firers": "A1", "target": "B5", "range": 2, "band": "short"}, ALICE,
     "'band' is not used in Advanced Squad Leader games (only in Command Decision: Test of Battle)"),
    ({"firers": "A1", "target": "B5", "range": 2, "options": "cover=hard"}, ALICE,
     "'options': 'cover' is not an option of this order here (options: los\\_confirmed, target\\_units)"),
    ({"firers": "A1", "target": "B5", "range": 2, "drm": 1}, ALICE, "an extra 'drm' needs a 'reason'"),
    ({"firers": "A1", "target": "B5", "range": 2, "dice": "4 9"}, ALICE, "a d6 reads 1 to 6"),
], ids=["other-side", "not-a-player", "unknown-unit", "beyond-twice-range", "band-in-asl", "cd-option-in-asl",
        "drm-without-reason", "impossible-die"])
async def test_asl_fire_refused(table, options, user, says):
    await asl_game(table, phase="PFPh")
    assert says in await table.refused("fire", options, user=user)


async def test_asl_fire_refused_in_the_rally_phase(table):
    await asl_game(table, phase="RPh")
    text = await table.refused("fire", {"firers": "A1", "target": "B5", "range": 2, "dice": "3 3"})
    assert text == ("fire attacks are made only in the Prep Fire Phase, Movement Phase, Defensive Fire Phase or "
                    "Advancing Fire Phase; this is the Rally Phase (seed 003): the next Prep Fire Phase comes as each "
                    "side ends its part with /done (the game master may jump there with /game phase to:PFPh)")


async def test_a_negative_range_from_a_client_skipping_discords_checks_is_refused_by_the_rules(table):
    await asl_game(table, phase="PFPh")
    text = await table.refused("fire", {"firers": "A1", "target": "B5", "range": -1}, check=False)
    assert text == "'range' must be at least 0, not '-1'"


async def test_fire_in_a_channel_without_a_game(table):
    await asl_game(table)
    text = await table.refused("fire", {"firers": "A1", "target": "B5", "range": 2}, channel=THREAD)
    assert text == "There is no game in this channel: start one with /game new"


# --- No Honor in Surrender -------------------------------------------------------------------


async def test_nhis_adjacent_fire_hits_and_the_target_checks_morale(table):
    await nhis_game(table)
    reply = await table.send("fire", {"firers": "U1", "target": "B1", "range": 1, "dice": "3 4 5"})
    rule_fire, rule_drm = "NHiS Fire Table (seed 001)", "NHiS DRM list (seed 001)"
    assert reply.embeds == [{
        "type": "rich",
        "flags": 0,
        "color": ASL_BLUE,
        "title": "6 FP -> column 6: 2d6 7 -> Hit",
        "description": "No Honor in Surrender · Test · turn 1, Operations Phase, impulse 1 · US to act",
        "footer": {"text": "log #9"},
        "fields": [
            field("Dice", "fire on B1: rolled 3+4 = 7 (2d6)\nmorale check Japanese rifle squad J1: rolled 5 (d6)\n"
                          "manual dice (given by the players)"),
            # A1 and B1 are not NHiS hex numbers (CCRR): the range is the players', and so is the line of sight
            field("Trail", "range 1 (A1 to B1), typed by the players: the map cannot place A1  "
                           "[NHiS Fire, seed 001 (assumed)]\nline of sight A1 to B1 not read: the map cannot place "
                           "both  [NHiS Terrain Chart, seed 001 (assumed: hex centre to hex centre)]"),
            field(f"Fire on B1 at range 1 [{rule_fire}]",
                  "Activation: hex A1 (U1, U2, UL), the one of impulse 1 of US  [NHiS impulse activation (assumed)]\n"
                  "Impulse 1 of US  [NHiS sequence of play (assumed)]\n"
                  f"FP of US Marine rifle squad U1  3  [{rule_drm}]\nFirepower  3  (=3)  [{rule_drm}]\n"
                  f"Target in an adjacent hex  +3  (=6)  [{rule_drm}]\n"
                  "Cover Factor of B1: Open Ground 0  +0  (=6)  [NHiS Terrain Chart (seed 001)]\n"
                  f"Final FP  6  (=6)  [{rule_drm}]\nFP 6 -> column 6  6  [{rule_fire}]\n"
                  f"2d6 3 + 4  7  (=7)  [{rule_fire}]\nColumn 6, roll 7: Hit  Hit  [{rule_fire}]"),
            field("Morale check (Hit): Japanese rifle squad J1 [NHiS Hit result (seed 001)]",
                  "Morale of Japanese rifle squad J1  5  (=5)  [NHiS Hit result (seed 001)]\n"
                  "1d6  5  (=5)  [NHiS Hit result (seed 001)]\n5 vs 5: passes  pass  [NHiS Hit result (seed 001)]\n"
                  f"US Marine rifle squad U1: marked Fire  [{rule_fire}, assumed]"),
            field("Table", f"NHiS Fire Table 6 column, 7 -> Hit [{rule_fire}]"),
            field("Effects", "US Marine rifle squad U1: marked Fire"),
        ],
    }]
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firers": ["U1"], "target": "B1", "range": 1}
    assert (await table.game()).units["U1"].marker == "fire"


async def test_nhis_fire_takes_its_modifiers_as_options(table):
    await nhis_game(table)
    await table.send("fire", {"firers": "U1", "target": "B1", "range": 1, "options": "charging=U1 from_lower=yes",
                              "dice": "6 6"})
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firers": ["U1"], "target": "B1", "range": 1, "charging": ["U1"],
                           "from_lower": True}


@pytest.mark.parametrize(("options", "says"), [
    ({"firers": "U1", "target": "B1", "range": 1, "kind": "prep"},
     "'kind' is not used in No Honor in Surrender games (only in Advanced Squad Leader)"),
    ({"firers": "U1", "target": "B1", "range": 1, "options": "op_fire=yes"},
     "'options': 'op\\_fire' is not an option of this order here (options: charging, beyond\\_visibility, "
     "from\\_lower, flamethrower, los\\_confirmed)"),  # as posted: underscores escaped for markdown
    ({"firers": "J1", "target": "A1", "range": 1}, "Japanese rifle squad J1 belongs to Japan; you play US"),
], ids=["asl-kind", "cd-option", "other-side"])
async def test_nhis_fire_refused(table, options, says):
    await nhis_game(table)
    assert says in await table.refused("fire", options)


# --- Command Decision ------------------------------------------------------------------------


async def test_cd_direct_fire_rolls_rof_to_hit_and_hit_results(table):
    await cd_game(table, cd_simultaneous_fire="none")  # each result at once (test_cd_turn.py: at the phase's end)
    reply = await table.send("fire", {"firers": "S1", "target": "G1", "band": "short", "dice": "3 4 5 6"})
    g1 = "German rifle platoon G1"
    hit = "CD Hit Results [19.1] experienced"
    assert reply.embeds == [{
        "type": "rich",
        "flags": 0,
        "color": ASL_BLUE,
        # the title within one line of a phone (60 characters): the rest opens the description
        "title": "M4 Sherman S1 fires 2 ROF at German rifle platoon G1",
        "description": "2 hits -> forced back, forced back\n"
                       "Command Decision: Test of Battle · Test · turn 1, General Fire Phase, Side A · Americans to act",
        "footer": {"text": "log #10"},
        "fields": [
            field("Dice", f"to hit {g1}: rolled 3 (d10)\nto hit {g1}: rolled 4 (d10)\n"
                          f"hit result on {g1}: rolled 5 (d10)\nhit result on {g1}: rolled 6 (d10)\n"
                          "manual dice (given by the players)"),
            field("Rate of fire [CD [13.5]]",
                  f"M4 Sherman S1 fires at {g1} [CD [13]]:\nROF of M4 Sherman S1  2  (=2)  [CD [13.5]]\nROF dice  2  (=2)  [CD [13.5]]"),
            field(f"To hit {g1} [CD [14.2.1]]",
                  "To-hit of M4 Sherman S1 at short  6  (=6)  [CD [14.2.1]]\n"
                  f"Hits {g1} on 6 or less  6  (=6)  [CD [14.2.1]]\n"
                  f"ROF die 1 at {g1}  3  [CD [14.2.1]]\n3 vs 6 or less: hit  3  (=6)  [CD [14.2.1]]\n"
                  f"ROF die 2 at {g1}  4  [CD [14.2.1]]\n4 vs 6 or less: hit  4  (=6)  [CD [14.2.1]]"),
            field(f"Hit results on {g1}: 2 hit(s) [CD [19.1]]",
                  f"Hit result on {g1} (experienced)  5  [CD [19.1]]\n"
                  f"{hit}, 5: forced back  forced back  [CD [19.1]]\n{g1}: forced back  [CD [19.1]]\n"
                  f"Hit result on {g1} (experienced)  6  [CD [19.1]]\n"
                  f"{hit}, 6: forced back  forced back  [CD [19.1]]\n{g1}: forced back  [CD [19.1]]"),
            field("Table", f"{hit} column, 5 -> forced back [CD [19.1]]\n"
                           f"{hit} column, 6 -> forced back [CD [19.1]]"),
            field("Effects", f"{g1}: Good Order -> Good Order, forced back"),
        ],
    }]
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firer": "S1", "targets": ["G1"], "range_band": "short"}
    assert (await table.game()).units["G1"].forced_back


async def test_cd_fire_takes_cover_and_op_fire_as_options(table):
    await cd_game(table)
    await table.send("fire", {"firers": "P1", "target": "G1 G2", "band": "medium", "options": "cover=hard",
                              "dice": "9 9"})
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firer": "P1", "targets": ["G1", "G2"], "range_band": "medium",
                           "cover": "hard"}


@pytest.mark.parametrize(("options", "says"), [
    ({"firers": "S1", "target": "G1", "range": 3}, "'range' is not used in Command Decision: Test of Battle games"),
    ({"firers": "S1 P1", "target": "G1", "band": "short"}, "in Command Decision one stand fires per order"),
    ({"firers": "S1", "target": "G1"}, "'band' is required in Command Decision"),
    ({"firers": "S1", "target": "G1", "band": "extreme"}, "its bands: close, short, medium, long"),
    ({"firers": "G1", "target": "S1", "band": "short"}, "German rifle platoon G1 belongs to Germans"),
], ids=["range-in-cd", "two-firers", "no-band", "unknown-band", "other-side"])
async def test_cd_fire_refused(table, options, says):
    await cd_game(table)
    assert says in await table.refused("fire", options)


async def test_cd_indirect_fire_suppresses_the_stands_under_the_template(table):
    await cd_game(table, phase="Artillery")
    await table.send("artillery response", {"firer": "B1", "dice": "5"})  # organic: answers on 1-5 [17.4]
    reply = await table.send("artillery fire", {"firer": "B1", "targets": "G1 G2", "cover": "medium",
                                                "dice": "2 9 4"})
    embed = reply.embeds[0]
    # no ': ' within 60 characters: the title goes on after the list's comma
    assert embed["title"] == "US 105mm battery B1 fires IDF at German rifle platoon G1,"
    assert embed["description"].splitlines()[0] == "German rifle platoon G2: 1 hit -> German rifle platoon G1: no effect"
    fired = "US 105mm battery B1 fires IDF at German rifle platoon G1, German rifle platoon G2 [CD [17.6]]"
    assert fields(embed)[fired] == ("Organic artillery answered this turn; mission 1 of its ROF 1 this phase  "
                                    "[CD [13.5, 17.6]]")
    assert fields(embed)["IDF to hit German rifle platoon G1 [CD [17.6]]"].splitlines()[:3] == [
        "IDF number of US 105mm battery B1  6  (=6)  [CD [17.6]]",
        "Personnel in medium cover  -2  (=4)  [CD [17.6]]",
        "Hits German rifle platoon G1 on 4 or less  4  (=4)  [CD [17.6]]"]
    assert fields(embed)["Dice"].splitlines()[:3] == [
        "IDF to hit German rifle platoon G1: rolled 2 (d10)", "IDF to hit German rifle platoon G2: rolled 9 (d10)",
        "hit result on German rifle platoon G1: rolled 4 (d10)"]
    entry = await last_entry(table)
    assert (entry.command, entry.manual) == ("/artillery fire", True)
    assert entry.order == {"action": "indirect_fire", "firer": "B1", "targets": ["G1", "G2"], "cover": "medium"}
    game = await table.game()
    assert game.units["G2"].suppressed


async def test_cd_artillery_response_rolls_one_d10_against_the_support_number(table):
    await cd_game(table, phase="Artillery")
    reply = await table.send("artillery response", {"firer": "B1", "support": "supporting", "dice": "1"})
    embed = reply.embeds[0]
    assert embed["title"] == "Supporting artillery response for US 105mm battery"
    assert embed["description"].splitlines()[0] == "d10 1 -> responds, place the template"
    trail = fields(embed)["Artillery response: US 105mm battery B1 [CD [17.4]]"].splitlines()
    assert trail[1] == "Response roll for US 105mm battery B1  1  [CD [17.4]]"
    assert trail[-2:] == ["US 105mm battery B1: place the IDF template  [CD [17.4]]",
                          "US 105mm battery B1 fires its mission this turn (/artillery fire)  [CD [17.4]]"]
    entry = await last_entry(table)
    assert entry.order == {"action": "artillery_response", "firer": "B1", "support": "supporting"}


async def test_indirect_fire_refused_outside_the_artillery_and_op_fire_phases(table):
    await cd_game(table, phase="GeneralFire")
    text = await table.refused("artillery fire", {"firer": "B1", "targets": "G1", "dice": "2"})
    assert text == ("indirect fire is resolved only in the Artillery & Air Phase or Opportunity Fire Phase; this is the "
                    "General Fire Phase (CD [17.6]): the next Artillery & Air Phase comes as each side ends its "
                    "part with /done (the game master may jump there with /game phase to:Artillery)")


@pytest.mark.parametrize("command", ["artillery fire", "artillery response"])
async def test_artillery_is_refused_in_an_asl_game(table, command):
    await asl_game(table)
    options = {"firer": "A1", "targets": "R1"} if command == "artillery fire" else {"firer": "A1"}
    assert await table.refused(command, options) == (
        f"/{command} is only for Command Decision: Test of Battle games; this channel plays Advanced Squad "
        "Leader (fire with /fire)")


@pytest.mark.parametrize(("command", "options", "says"), [
    ("artillery fire", {"firer": "B9", "targets": "G1", "dice": "2"}, "no unit 'B9' in this game"),
    ("artillery fire", {"firer": "S1", "targets": "G1", "dice": "2"}, "M4 Sherman S1 has no indirect-fire number"),
    ("artillery response", {"firer": "B1", "dice": "11"}, "'dice' takes die faces from 1 to 10"),
], ids=["unknown-battery", "no-idf-number", "impossible-die"])
async def test_artillery_refused(table, command, options, says):
    await cd_game(table, phase="Artillery")
    assert says in await table.refused(command, options)


async def test_artillery_in_a_channel_without_a_game(table):
    text = await table.refused("artillery response", {"firer": "B1"}, channel=THREAD)
    assert text == "There is no game in this channel: start one with /game new"


async def test_artillery_response_for_the_other_sides_battery_is_refused(table):
    await cd_game(table, phase="Artillery")
    text = await table.refused("artillery response", {"firer": "B1", "dice": "1"}, user=BOB)
    assert text == "US 105mm battery B1 belongs to Americans; you play Germans"


# --- autocomplete ----------------------------------------------------------------------------


async def test_firers_autocomplete_completes_the_last_id_and_keeps_the_others(table):
    await asl_game(table)
    choices = await table.autocomplete("fire", {"firers": "A1 MG"}, focused="firers")
    assert choices == [{"name": "A1 MG1 (LMG, Germans, A4)", "value": "A1 MG1"},
                       {"name": "A1 MG2 (LMG, Germans, A4)", "value": "A1 MG2"}]


async def test_target_autocomplete_offers_locations_in_asl_and_stands_in_cd(table):
    await asl_game(table)
    assert await table.autocomplete("fire", {"target": "B"}, focused="target") == [
        {"name": "B5 (woods)", "value": "B5"}]
    await table.bot.referee.end_game(table.channel, GM_ACTOR)
    await cd_game(table)
    assert await table.autocomplete("fire", {"target": "G1 G"}, focused="target") == [
        {"name": "G1 G1 (German rifle platoon, Germans, X2)", "value": "G1 G1"},
        {"name": "G1 G2 (German rifle platoon, Germans, X2)", "value": "G1 G2"}]


async def test_cd_target_autocomplete_offers_only_the_named_firers_enemies(table):
    await cd_game(table, phase="Artillery")
    enemies = [{"name": "G1 (German rifle platoon, Germans, X2)", "value": "G1"},
               {"name": "G2 (German rifle platoon, Germans, X2)", "value": "G2"}]
    assert await table.autocomplete("fire", {"firers": "S1", "target": ""}, focused="target") == enemies
    assert await table.autocomplete("artillery fire", {"firer": "B1", "targets": ""}, focused="targets") == enemies


async def test_band_autocomplete_offers_the_named_firers_to_hit_numbers(table):
    await cd_game(table)
    choices = await table.autocomplete("fire", {"firers": "S1", "band": ""}, focused="band")
    assert choices == [{"name": "close (hits on 7)", "value": "close"}, {"name": "short (hits on 6)", "value": "short"},
                       {"name": "medium (hits on 5)", "value": "medium"}, {"name": "long (hits on 3)", "value": "long"}]
    assert await table.autocomplete("fire", {"firers": "P1", "band": "me"}, focused="band") == [
        {"name": "medium (hits on 3)", "value": "medium"}]
