"""A restart loses nothing: games in two channels (one a thread) are read back from the same
SQLite file exactly as they were, their logs verify, and the commands carry on where they left off."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import Actor
from tests.cogs.conftest import ALICE, BOB, GAME_CHANNEL, GM, THREAD
from tests.store.helpers import asl_squad


async def set_up_two_games(table):
    """An ASL game in the game channel and an NHiS game in the thread, each with players, units,
    terrain, a correction and a phase change."""
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians", "elr_1": 3, "elr_2": 2,
                                   "scenario": "Guards"})
    await table.seat(ALICE, "Germans")
    await table.invite(BOB, "Russians")
    await table.send("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"}, user=ALICE)
    await table.send("unit add", {"id": "A2", "side": "Germans", "type": "ger-lmg", "location": "B3"}, user=ALICE)
    await table.send("unit add", {"id": "R1", "side": "Russians", "type": "rus-447", "location": "C4"}, user=BOB)
    await table.as_gm("location set", {"location": "B3", "terrain": "stone building"})
    await table.as_gm("unit edit", {"unit": "R1", "stats": "broken=yes dm=yes"})
    await table.send("done", user=ALICE)  # the Germans' part of the Rally Phase ends

    await table.send("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"}, user=GM, channel=THREAD)
    await table.seat(BOB, "Marines", channel=THREAD)
    await table.send("unit add", {"id": "M1", "side": "Marines", "type": "us-rifle-squad", "location": "H7"},
                     user=BOB, channel=THREAD)
    await table.as_gm("unit add", {"id": "J1", "side": "Japanese", "type": "jp-rifle-squad", "location": "H8"},
                      channel=THREAD)
    await table.as_gm("location set", {"location": "H8", "terrain": "jungle", "features": "hill, foxhole"},
                      channel=THREAD)


async def test_a_restart_reads_every_game_back_exactly_and_its_log_verifies(table):
    await set_up_two_games(table)
    before = {channel: await table.snapshot(channel) for channel in (GAME_CHANNEL, THREAD)}
    assert before[GAME_CHANNEL][1] == 9 and before[THREAD][1] == 5

    await table.restart()

    for channel in (GAME_CHANNEL, THREAD):
        assert await table.snapshot(channel) == before[channel]  # model equality, log length
        report = await table.bot.referee.verify(channel)
        assert (report.ok, report.checked, report.first_bad_seq) == (True, before[channel][1], None)


async def test_commands_carry_on_after_a_restart(table):
    await set_up_two_games(table)
    await table.restart()

    moved = await table.as_gm("unit move", {"unit": "A1", "to": "B4"})
    assert moved.embeds[0]["title"] == "4-6-7 A1 to B4" and moved.embeds[0]["footer"] == {"text": "log #10"}
    assert await table.refused("move", {"units": "R1", "to": "B4"}, user=ALICE) == (
        "4-4-7 R1 belongs to Russians; you play Germans")  # the seats survived too
    phase = await table.as_gm("game phase", {"to": "Administrative"}, channel=THREAD)
    assert phase.embeds[0]["footer"] == {"text": "log #6"}
    status = await table.send("game status", channel=THREAD)
    units = await table.fake.click(status.message, status.message.components[0]["components"][0]["custom_id"],
                                   user_id=ALICE)  # the Units button, registered again at the start
    assert [f["name"] for f in units.embeds[0]["fields"]] == ["H7: open", "H8: jungle (hill, foxhole)"]
    assert await table.autocomplete("unit move", {"unit": ""}, focused="unit") == [
        {"name": "A1 (4-6-7, Germans, B4)", "value": "A1"},
        {"name": "A2 (LMG, Germans, B3)", "value": "A2"},
        {"name": "R1 (4-4-7, Russians, C4)", "value": "R1"}]

    await table.restart()  # and once more: what was added after the first restart is kept
    for channel, entries in ((GAME_CHANNEL, 10), (THREAD, 6)):
        report = await table.bot.referee.verify(channel)
        assert (report.ok, report.checked) == (True, entries)
    assert (await table.game()).units["A1"].location == "B4"
    assert (await table.game(THREAD)).phase == "Administrative"


async def test_a_restart_posts_nothing_again_when_every_result_was_seen(table):
    # Discord never re-sends an interaction to a restarted bot (the emulator refuses to); what a
    # restart must show is only what was saved and never seen (tests/reliability/
    # test_discord_faults.py): here every result was answered, so the channel stays as it was
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    added = await table.as_gm("unit add", {"id": "A1", "side": "Germans", "type": "ger-467"})
    before = await table.snapshot()
    messages = len(table.fake.channel_messages(table.channel))
    await table.restart()
    await asyncio.wait_for(asyncio.shield(table.bot._unshown_task), 30)  # the start-up post of unseen results done
    assert len(table.fake.channel_messages(table.channel)) == messages
    assert await table.snapshot() == before
    with pytest.raises(AssertionError, match="new gateway session"):
        await table.fake.deliver_again(added)


async def test_a_restart_posts_every_result_left_unshown_past_the_first_hundred(table):
    """The unshown list is read a hundred at a time: a start with 130 results saved and never shown
    posts all 130, each once (before, the first hundred; the rest waited for the next start)."""
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    referee, gm = table.bot.referee, Actor(GM, is_manager=True)
    for n in range(130):  # saved by interactions whose answers never went out (the bot stopped)
        await referee.act(GAME_CHANNEL, gm, asl_squad(f"U{n}", 0, None), command="/unit add",
                          interaction_id=9_100_000 + n)
    first = (await referee.log(GAME_CHANNEL)).total - 129

    bot = await table.restart()
    await asyncio.wait_for(bot._unshown_task, 30)

    posted = [int(m.embeds[0]["footer"]["text"].rpartition("#")[2]) for m in table.fake.channel_messages(GAME_CHANNEL)
              if m.payload["type"] == 0 and m.embeds and "just before the bot restarted" in (m.content or "")]
    assert sorted(posted) == list(range(first, first + 130))  # every one, once
