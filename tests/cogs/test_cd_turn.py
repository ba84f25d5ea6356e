"""What a Command Decision turn needs between the rolls (issue 25; seed 004), end to end through the
real bot and the loopback Discord: a battery fires only after a successful response roll and at
most its ROF a phase [17.4, 13.5], /help suggests only what would be accepted, both sides' General
Fire takes effect at the phase's end (4B), /done waits for the companies that must check morale or
the game master's waiver (5B), the sample scenario's side quality and hedgerow read by fire
[19.1, 14.2.1], and /log verify replays every new kind of entry."""

from __future__ import annotations

import json

from tests.cogs.conftest import ALICE, BOB, GM
from tests.cogs.helpers import cd_game, edit, fields, unit
from tests.cogs.test_committed_dice import verify
from tests.cogs.test_help import text
from tests.cogs.test_scenario import SAMPLES, attach


async def played(table, command: str, options: dict | None = None, *, user: int = ALICE):
    reply = await table.send(command, options, user=user)
    assert not reply.ephemeral, reply.embeds
    return reply


def trail(reply) -> str:
    return "\n".join(f"{name}\n{value}" for name, value in fields(reply.embeds[0]).items()).replace("\\_", "_")


async def test_artillery_fires_only_after_its_response_and_at_most_its_rof_and_help_says_so(table):
    # 1-A sorts before the battery B1: /help used to suggest '/artillery response firer:1-A'
    await cd_game(table, phase="Artillery", extra=(unit("1-A", 0, "X1", "us-rifle", company="Able"),))
    shown = text(await table.send("help"))
    americans = shown.split("Americans may now\n")[1].split("\n\n")[0]
    assert "`/artillery response firer:B1`" in americans and "firer:1-A" not in americans
    assert "/artillery fire" not in americans  # no battery has answered yet
    assert await table.refused("artillery response", {"firer": "1-A", "dice": "1"}) == (
        "US rifle platoon 1-A is not artillery (it has no indirect-fire number): only a battery answers a call for "
        "fire (CD [17.4])")
    assert await table.refused("artillery fire", {"firer": "B1", "targets": "G1 G2", "dice": "2 9 5"}) == (
        "US 105mm battery B1 has not answered a call for fire this turn: roll its response first (/artillery "
        "response firer:B1; organic artillery answers on 1-5, supporting on 1-3, CD [17.4])")
    failed = await played(table, "artillery response", {"firer": "B1", "support": "supporting", "dice": "4"})
    assert failed.embeds[0]["title"] == "Supporting artillery response for US 105mm battery"
    assert failed.embeds[0]["description"].startswith("d10 4 -> no response this turn\n")
    assert await table.refused("artillery fire", {"firer": "B1", "targets": "G1 G2", "dice": "2 9 5"}) == (
        "US 105mm battery B1's response roll this turn failed (no response): it fires no mission until next turn's "
        "Artillery & Air Phase (CD [17.4])")
    assert "one roll a battery a turn" in await table.refused("artillery response", {"firer": "B1", "dice": "1"})
    assert "/artillery fire" not in text(await table.send("help")).split("Americans may now\n")[1].split("\n\n")[0]


async def test_a_battery_that_answered_fires_once_with_rof_1(table):
    await cd_game(table, phase="Artillery")
    await played(table, "artillery response", {"firer": "B1", "dice": "5"})  # organic: 5 answers
    shown = text(await table.send("help")).split("Americans may now\n")[1].split("\n\n")[0]
    assert "`/artillery fire firer:B1 targets:G1`" in shown
    fired = await played(table, "artillery fire", {"firer": "B1", "targets": "G1 G2", "dice": "9 9"})
    assert "Organic artillery answered this turn; mission 1 of its ROF 1 this phase  [CD [13.5, 17.6]]" in \
        trail(fired)
    assert await table.refused("artillery fire", {"firer": "B1", "targets": "G1", "dice": "2 5"}) == (
        "US 105mm battery B1 has fired 1 mission this phase, its rate of fire (ROF 1): it fires again in a later "
        "phase (CD [13.5, 17.6])")
    assert (await verify(table))["title"] == "The log checks out"


async def test_both_sides_general_fire_takes_effect_at_the_end_of_the_phase(table):
    await cd_game(table)
    # S1: two hits on G1, hit results 8 and 9: eliminated (experienced: 8+), then a spent hit
    shot = await played(table, "fire", {"firers": "S1", "target": "G1", "band": "short", "dice": "3 4 8"})
    assert shot.embeds[0]["title"] == "M4 Sherman S1 fires 2 ROF at German rifle platoon G1"
    assert shot.embeds[0]["description"].startswith("2 hits -> eliminated (takes effect at the end of the phase)\n")
    shown = trail(shot)
    assert "German rifle platoon G1: eliminated: takes effect at the end of the phase  [CD [19.1]]" in shown
    assert "German rifle platoon G1: Good Order -> Good Order, eliminated at the end of the phase" in shown
    # the short status counts the units; the list of them, each with what its stand holds until the
    # phase ends, is behind its Units button (tests/cogs/test_game.py)
    status = await table.send("game status")
    units = await table.fake.click(status.message, f"units:{await table.bot.referee.game_id(table.channel)}",
                                   user_id=BOB)
    assert units.ephemeral
    board = text(units)
    assert "German rifle platoon G1 (Germans): eliminated at the end of the phase" in board, board
    await played(table, "done")
    # Side B: G1, eliminated at the phase's end, still fires in it
    answer = await played(table, "fire", {"firers": "G1", "target": "P1", "band": "short", "dice": "2 9 9"},
                          user=BOB)
    assert answer.embeds[0]["title"] == "German rifle platoon G1 fires 2 ROF at US rifle platoon P1"
    assert answer.embeds[0]["description"].startswith("1 hit -> eliminated (takes effect at the end of the phase)\n")
    ended = await played(table, "done", user=BOB)
    shown = trail(ended)
    assert ("End of the General Fire Phase: its fire takes effect [CD 2C (Prep Fire: both sides resolve), 4B "
            "(General Fire: assumed)]") in shown
    assert "German rifle platoon G1: eliminated (fire of the General Fire Phase)" in shown
    assert "US rifle platoon P1: eliminated (fire of the General Fire Phase)" in shown
    game = await table.game()
    assert game.units["G1"].eliminated and game.units["P1"].eliminated and game.phase == "CommandMorale"
    assert (await verify(table))["title"] == "The log checks out"


async def test_done_waits_for_the_company_checks_due_then_a_check_or_the_game_masters_waiver(table):
    await cd_game(table, extra=(edit("B1", pinned=True),))  # the battery pinned in an earlier turn
    await played(table, "fire", {"firers": "P1", "target": "G1", "band": "short", "dice": "9 9"})  # a miss
    await played(table, "done")
    await played(table, "fire", {"firers": "G2", "target": "S1", "band": "short", "dice": "9 9"}, user=BOB)
    entered = await played(table, "done", user=BOB)
    assert ("Americans must check morale (5B): company Able (fired upon); /morale company:<name> for each (or the "
            "game master waives one with /company waive) before /done") in trail(entered)
    assert await table.refused("done") == (
        "Americans must check morale before they end the Command & Morale Phase: company Able (fired upon) (CD 5B "
        "[21]); /morale company:Able, or the game master waives it with /company waive company:Able")
    shown = text(await table.send("help")).split("Americans may now\n")[1].split("\n\n")[0]
    assert "`/morale company:Able`" in shown and "/company waive" not in shown  # the game master's, not a side's
    await played(table, "company near", {"company": "Arty"})  # the battery is within 12" of the enemy too
    assert "company Arty (within 12\" of the enemy)" in await table.refused("done")
    await played(table, "morale", {"company": "Able", "dice": "1"})
    assert await table.refused("company waive", {"company": "Arty"}) == (
        "only the game master may waive a company's required morale check: it corrects the game, it is not a move")
    waived = await played(table, "company waive", {"company": "Arty", "reason": "out of sight"}, user=GM)
    assert waived.embeds[0]["title"] == "Company Arty: morale check waived by the game master"
    assert "The game master's reason: out of sight  [CD 5B [21] (waived by the game master)]" in trail(waived)
    moved = await played(table, "done")
    assert moved.embeds[0]["title"] == "Turn 1, Command & Morale Phase, Side B: Germans to act"
    # the Germans were fired upon too: their company checks before they end the turn
    assert "company Kampf (fired upon)" in await table.refused("done", user=BOB)
    await played(table, "morale", {"company": "Kampf", "dice": "1"}, user=BOB)
    ended = await played(table, "done", user=BOB)
    # 5B: a pin from an earlier turn comes off when the company made no check (Arty's was waived)
    assert "US 105mm battery B1: pin removed, no morale check this turn  [CD [21.3.2]]" in trail(ended)
    game = await table.game()
    assert game.turn == 2 and not game.units["B1"].pinned
    assert (await verify(table))["title"] == "The log checks out"


async def test_the_sample_scenarios_veteran_germans_and_hedgerow_in_the_artillery_trail(table):
    loaded = await table.as_gm("scenario load", {"file": attach(SAMPLES["cd"])})
    assert not loaded.ephemeral, loaded.embeds
    await table.send("game join", {"side": "Americans"}, user=ALICE)
    # the whole trail in the reply; the players throw their own dice (a game created now takes
    # manual_dice=none, and the sample file sets no dice option: the game master allows them)
    await table.as_gm("game options", {"set": "details=always manual_dice=all"})
    await played(table, "artillery response", {"firer": "RA1", "dice": "2"})
    # G1 hit (3 vs 6 -2 medium cover), G2 missed; the hit result 5: no effect on a veteran
    fired = await played(table, "artillery fire", {"firer": "RA1", "targets": "G1 G2", "dice": "3 9 5"})
    shown = trail(fired)
    assert ("German rifle platoon G1 in hedge-1: hedgerow gives medium cover (data/cd/cover.yaml, assumed)  "
            "[CD [14.2.1, 17.6]]") in shown
    assert "Personnel in medium cover  -2  (=4)  [CD [17.6]]" in shown
    assert ("German rifle platoon G1 is veteran: the quality of the Germans in the scenario (its counter reads "
            "experienced)  [CD [14.2.1, 19.1, 21]: the scenario's side quality (a stand's own wins: assumed)]") in shown
    assert "Hit result on German rifle platoon G1 (veteran)  5  [CD [19.1]]" in shown
    assert fired.embeds[0]["title"] == "US 105mm battery RA1 fires IDF at German rifle platoon G1,"  # 60 at most
    assert fired.embeds[0]["description"].splitlines()[0].endswith("German rifle platoon G1: no effect")
    game = await table.game()
    assert game.options["cd_turn_rules"] is True and game.units["G1"].quality == "experienced"
    assert (await verify(table))["title"] == "The log checks out"
    assert json.dumps(game.sides[1].options) == '{"quality": "veteran"}'
