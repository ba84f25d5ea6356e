"""Notifications by direct message (issue 27, item 5), through the real bot and the loopback Discord:
/notify dm:yes sends the hand-off, the reaction window and a reminder by DM too, with a link to the channel; a DM
Discord refuses (DMs closed: the emulator answers 403 code 50007, as Discord does) is dropped silently
and the channel's mention stands; dm:no, or no choice, sends none."""

from tests.cogs.conftest import ALICE, BOB, GAME_CHANNEL, GUILD
from tests.cogs.helpers import start_game, terrain, unit

LINK = f"https://discord.com/channels/{GUILD.id}/{GAME_CHANNEL}"


async def asl_move_phase(table):
    return await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("R1", 1, "B5", "rus-447"), terrain("B5", "woods"),
    ], phase="MPh", options={"elr": [3, 3], "reactions": "ask"})


async def test_the_reaction_window_and_the_hand_off_reach_a_player_by_dm_with_a_link(table):
    await asl_move_phase(table)
    said = await table.send("notify", {"dm": True}, user=BOB)
    assert said.ephemeral and said.content.startswith("Your moves, reaction windows and reminders now reach you by DM too")
    moved = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    (notice,) = moved.followups
    assert notice.content.startswith(f"<@{BOB}>: Defensive First Fire at")  # the channel's mention stands
    (dm,) = table.fake.dm_messages(BOB)
    assert dm.content == ("Defensive First Fire at 4-6-7 A1 in F4 (A8.1)? Germans wait for your Fire or No fire\n"
                          + LINK)
    assert dm.payload["allowed_mentions"] == {"parse": []}
    assert table.fake.dm_messages(ALICE) == []  # she chose nothing: no DM
    await table.send("done", user=BOB)  # no fire
    await table.send("done", user=ALICE)  # MPh -> DFPh: the Russians' move
    hand_off = table.fake.dm_messages(BOB)[-1]
    assert hand_off.content == f"your move (Russians, turn 1, Defensive Fire Phase)\n{LINK}"


async def test_with_dms_closed_nothing_is_lost_and_the_channel_mention_is_posted(table):
    await asl_move_phase(table)
    await table.send("notify", {"dm": True}, user=BOB)
    table.fake.closed_dms.add(BOB)
    moved = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    (notice,) = moved.followups
    assert notice.content.startswith(f"<@{BOB}>: Defensive First Fire at")
    assert notice.payload["allowed_mentions"]["users"] == [BOB]
    refused = [r for r in table.fake.requests if r.path.startswith("/api/v10/channels/") and r.status == 403]
    assert len(refused) == 1  # the DM was tried, refused (50007), and dropped
    assert table.fake.dm_messages(BOB) == []
    await table.send("done", user=BOB)
    done = await table.send("done", user=ALICE)
    (hand_off,) = done.followups
    assert hand_off.content.startswith(f"<@{BOB}>: your move (Russians, turn 1, Defensive Fire Phase)")
    assert not done.ephemeral and (await table.game()).to_act == 1


async def test_dm_no_stops_them(table):
    await asl_move_phase(table)
    await table.send("notify", {"dm": True}, user=BOB)
    said = await table.send("notify", {"dm": False}, user=BOB)
    assert said.content == "Your moves, reaction windows and reminders reach you in the game's channel only (no DM)"
    await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert table.fake.dm_messages(BOB) == []


async def test_a_deadlines_reminder_and_hand_off_reach_the_players_by_dm_too(table):
    from tests.cogs.test_undo import Clock

    clock = Clock()
    table.bot.referee.clock = clock
    table.bot.pacer.stop()
    await start_game(table, "asl", ["Germans", "Russians"], [unit("A1", 0, "A4", "ger-467")], phase="MPh",
                     options={"elr": [3, 3], "deadline_hours": 2})
    await table.send("notify", {"dm": True}, user=ALICE)
    await table.send("notify", {"dm": True}, user=BOB)
    clock.advance(hours=1)
    assert await table.bot.pacer.check() == [table.channel]  # the half-time reminder, by DM too
    (reminder,) = table.fake.dm_messages(ALICE)
    assert reminder.content.startswith("the game waits for your move (Germans, turn 1, Movement Phase); nothing "
                                       "happened for 1 hour; deadline <t:")
    assert reminder.content.endswith(f"then the step ends with /done\n{LINK}")
    clock.advance(hours=1)
    assert await table.bot.pacer.check() == [table.channel]
    assert table.fake.dm_messages(BOB)[-1].content == f"your move (Russians, turn 1, Defensive Fire Phase)\n{LINK}"
