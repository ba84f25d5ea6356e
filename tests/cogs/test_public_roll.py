"""/roll public end to end (issue 25): dice for what the referee does not rule on, in every
ruleset's game, rolled in the open with the game's committed dice (or the players' manual dice),
logged with their purpose, in the export, re-derived by /log verify; /help command:roll finds it
beside /roll secret, which keeps working."""

from __future__ import annotations

import json

import pytest

from bot.core.dice import derive_die
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game, cd_game, fields, last_entry, nhis_game
from tests.cogs.test_committed_dice import end_turn, fixed_seeds, verify

GAMES = {"asl": (asl_game, "Germans"), "nhis": (nhis_game, "US"), "cd": (cd_game, "Americans")}


@pytest.mark.parametrize("ruleset", sorted(GAMES))
async def test_a_public_roll_uses_the_games_committed_dice_and_is_logged_exported_and_verified(table, ruleset):
    seeds = fixed_seeds(table)
    start, side = GAMES[ruleset]
    await start(table)
    reply = await table.send("roll public", {"dice": "2d6", "purpose": "sniper dr"}, user=ALICE)
    assert not reply.ephemeral, reply.embeds
    entry = await last_entry(table)
    dice = [derive_die(seeds[0], entry.game_id, entry.seq, entry.interaction_id, entry.dice_proof["contributions"],
                       i, 6) for i in range(2)]
    assert reply.embeds[0]["title"] == f"{side} roll 2d6 for sniper dr: {sum(dice)} ({dice[0]} + {dice[1]})"
    assert (entry.command, entry.actor, entry.manual, list(entry.dice)) == ("/roll public", ALICE, False, dice)
    assert entry.order == {"action": "roll", "side": 0, "dice": "2d6", "purpose": "sniper dr"}
    assert entry.dice_proof["sides"] == [6, 6]  # committed dice: the proof lists each die's faces
    text = json.dumps(reply.embeds)
    assert "A public roll: the referee does not apply it" in text
    exported = await table.send("log export", {"format": "json"}, user=CAROL)
    logged = json.loads(exported.files[0].data)["entries"][-1]
    assert (logged["command"], logged["dice"], logged["order"]["purpose"]) == ("/roll public", dice, "sniper dr")
    assert (await verify(table))["title"] == "The log checks out"
    await end_turn(table)  # the turn's seed is revealed: anyone can re-derive the roll's dice
    assert (await verify(table))["title"] == "The log checks out"


async def test_manual_dice_are_honoured_and_checked_against_the_dice_asked_for(table):
    await asl_game(table, phase="PFPh")
    # the Russians roll in the Germans' Prep Fire Phase: a public roll is any side's, in any step
    reply = await table.send("roll public", {"dice": "3d6", "purpose": "SSR: reinforcements", "rolled": "6 2 5"},
                             user=BOB)
    assert reply.embeds[0]["title"] == "Russians roll 3d6 for SSR: reinforcements: 13 (6 + 2 + 5)"
    assert fields(reply.embeds[0])["Dice"].startswith("SSR: reinforcements: rolled 6+2+5 = 13 (3d6)")
    entry = await last_entry(table)
    assert (entry.manual, list(entry.dice), entry.actor) == (True, [6, 2, 5], BOB)
    one = await table.send("roll public", {"dice": "d10", "purpose": "random event", "rolled": "10"}, user=BOB)
    assert one.embeds[0]["title"] == "Russians roll d10 for random event: 10"
    assert await table.refused("roll public", {"dice": "2d6", "purpose": "x", "rolled": "3"}, user=BOB) == (
        "the dice given ran out (1 given) at roll 1, the 2d6 for x: give at least 1 more (the next one is a d6; "
        "more rolls may follow), in the order the preview lists, or leave 'rolled' out to let the bot roll")
    assert await table.refused("roll public", {"dice": "d6", "purpose": "x", "rolled": "7"}, user=BOB) == (
        "die #1 given is 7, but a d6 reads 1 to 6")
    assert (await verify(table))["title"] == "The log checks out"


@pytest.mark.parametrize(("dice", "says"), [
    ("d20", "the bot rolls d6 and d10, the dice of its games, not d20: roll those at the table"),
    ("13d6", "a roll is 1 to 12 dice, not 13"),
    ("0d6", "a roll is 1 to 12 dice, not 0"),
    ("two dice", "'two dice' is not a roll: write it as 2d6, d6 or 1d10 (how many dice, d, their faces)"),
])
async def test_a_roll_the_bot_does_not_make_is_refused_in_words(table, dice, says):
    await asl_game(table)
    before = await table.snapshot()
    assert await table.refused("roll public", {"dice": dice, "purpose": "x"}) == says
    assert await table.snapshot() == before


async def test_the_game_master_rolls_for_none_or_for_a_side_and_a_player_only_for_their_own(table):
    await asl_game(table)
    mine = await table.as_gm("roll public", {"dice": "d6", "purpose": "weather", "rolled": "4"})
    assert mine.embeds[0]["title"] == "The game master rolls d6 for weather: 4"
    for_side = await table.as_gm("roll public", {"dice": "d6", "purpose": "sniper", "rolled": "2", "side": "Russians"})
    assert for_side.embeds[0]["title"] == "Russians roll d6 for sniper: 2"
    assert await table.refused("roll public", {"dice": "d6", "purpose": "x", "side": "Russians"}, user=ALICE) == (
        "this roll belongs to Russians; you play Germans")
    assert await table.refused("roll public", {"dice": "d6", "purpose": "x"}, user=CAROL) == (
        "only the players of this game give orders here: join a side first (anyone may look at the game and its "
        "log)")


async def test_help_for_roll_shows_the_public_and_the_secret_roll(table):
    await asl_game(table)
    reply = await table.send("help", {"command": "roll"})
    titles = [e["title"] for e in reply.embeds]
    assert any("/roll public" in t for t in titles) and any("/roll secret" in t for t in titles), titles
    assert "did you mean" not in json.dumps(reply.embeds)
    public = await table.send("help", {"command": "roll public"})
    assert "for what the referee does not rule on" in json.dumps(public.embeds)


async def test_a_secret_roll_still_works_beside_the_public_one(table):
    await cd_game(table)
    await table.send("roll public", {"dice": "2d6", "purpose": "open"})
    reply = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    entry = await last_entry(table)
    assert reply.embeds[0]["title"] == f"Americans rolled 2d6 in secret for spotting G1 (#{entry.seq})"
    assert (await verify(table))["title"] == "The log checks out"
