"""Away (issue 27, item 3), through the real bot and the loopback Discord with the bot's clock moved by
the test: /away until stops the deadlines and reminders of a side whose every player is away, in every
game they play; /game status, the hand-off mention and /games say "away until ..."; /away end (or the
away's end) starts the side's clock again from the return."""

from datetime import datetime, timezone

import pytest

from tests.cogs.conftest import ALICE, BOB, GAME_CHANNEL, THREAD, refusal
from tests.cogs.helpers import last_entry, start_game, unit
from tests.cogs.test_undo import clock  # noqa: F401  (the fixture: the bot's clock, moved by hand)

pytestmark = pytest.mark.usefixtures("clock")


async def two_games(table):
    """Two ASL games with a 24-hour deadline, in the game channel and a thread: alice to move in both."""
    for channel in (GAME_CHANNEL, THREAD):
        table.channel = channel
        await start_game(table, "asl", ["Germans", "Russians"], [
            unit("A1", 0, "A4", "ger-467"), unit("R1", 1, "B5", "rus-447"),
        ], phase="MPh", options={"elr": [3, 3], "deadline_hours": 24})
    table.channel = GAME_CHANNEL


def stamp(when):
    return int(when.timestamp())


async def test_an_away_player_stops_the_deadlines_of_both_games_until_he_is_back(table, clock):
    await two_games(table)
    seqs = {c: (await table.bot.referee.log(c)).total for c in (GAME_CHANNEL, THREAD)}
    reply = await table.send("away until", {"date": "3", "reason": "a week at sea"}, user=ALICE)
    assert reply.ephemeral
    back = stamp(clock.now) + 3 * 24 * 3600
    assert reply.content.startswith(f"You are away until <t:{back}:f> (<t:{back}:R>): a week at sea, in your 2 games")
    # the status, /games: away until ...
    status = (await table.send("game status", user=BOB)).embeds[0]["description"]
    assert f"Germans: <@{ALICE}> (away until <t:{back}:f> (<t:{back}:R>): a week at sea)" in status
    assert "Deadline for Germans: none while Germans are away; then 24 hours from the newest entry" in status
    [listed] = (await table.send("games", user=ALICE)).embeds
    assert listed["description"].endswith(f"You are away until <t:{back}:f> (<t:{back}:R>): a week at sea: your "
                                          "sides' deadlines wait (/away end when back)")
    assert all(f"you are away until <t:{back}:f>: no deadline meanwhile" in f["value"] for f in listed["fields"])
    [theirs] = (await table.send("games", user=BOB)).embeds
    assert all(f"Germans are away until <t:{back}:f>: no deadline meanwhile" in f["value"] for f in theirs["fields"])
    # two days on: neither game reminded nor ended (the deadline was 24 hours)
    clock.advance(days=2)
    assert await table.bot.pacer.check() == []
    for channel in (GAME_CHANNEL, THREAD):
        assert (await table.bot.referee.log(channel)).total == seqs[channel]
        assert (await table.game(channel)).phase == "MPh"
    # back early: the clock counts from the return, in both games
    assert (await table.send("away end", user=ALICE)).content.startswith("Welcome back")
    assert "you are not away" in refusal(await table.send("away end", user=ALICE))
    clock.advance(hours=11, minutes=59, seconds=59)
    assert await table.bot.pacer.check() == []
    clock.advance(seconds=1)
    assert sorted(await table.bot.pacer.check()) == sorted([GAME_CHANNEL, THREAD])  # the half-time reminders
    clock.advance(hours=11, minutes=59, seconds=59)
    assert await table.bot.pacer.check() == []
    clock.advance(seconds=1)
    assert sorted(await table.bot.pacer.check()) == sorted([GAME_CHANNEL, THREAD])
    for channel in (GAME_CHANNEL, THREAD):
        assert (await table.game(channel)).phase == "DFPh"
        assert (await table.bot.referee.log(channel)).total == seqs[channel] + 1


async def test_an_away_that_ends_by_itself_counts_from_its_end(table, clock):
    await two_games(table)
    await table.send("away until", {"date": "1"}, user=ALICE)
    clock.advance(hours=24 + 23, minutes=59, seconds=59)  # back after a day: 24 hours from then
    await table.bot.pacer.check()
    assert (await table.game()).phase == "MPh"
    clock.advance(seconds=1)
    assert GAME_CHANNEL in await table.bot.pacer.check()
    assert (await table.game()).phase == "DFPh"


async def test_the_hand_off_says_the_next_player_is_away(table, clock):
    await two_games(table)
    await table.send("away until", {"date": "2026-03-10"}, user=BOB)  # the clock is at 2026-03-01 18:00
    back = stamp(datetime(2026, 3, 11, tzinfo=timezone.utc))  # to the end of that day
    done = await table.send("done", user=ALICE)
    (hand_off,) = done.followups
    assert hand_off.content == (f"<@{BOB}>: your move (Russians, turn 1, Defensive Fire Phase); <@{BOB}> is away until "
                                f"<t:{back}:f> (<t:{back}:R>)")
    clock.advance(days=5)
    # the Russians' deadline waits for bob; the thread's game, alice's move, ends by its own
    assert await table.bot.pacer.check() == [THREAD]
    assert (await last_entry(table)).command == "/done"


async def test_an_away_is_refused_in_the_past_over_90_days_or_unreadable(table, clock):
    assert refusal(await table.send("away until", {"date": "2026-02-27"}, user=ALICE)).startswith(
        "2026-02-28 is in the past")  # the end of 2026-02-27
    assert refusal(await table.send("away until", {"date": "92"}, user=ALICE)).startswith(
        "an away lasts 90 days at most (until 2026-05-30)")
    assert refusal(await table.send("away until", {"date": "next week"}, user=ALICE)).startswith(
        "'next week' is neither a date such as 2026-03-08 nor a number of days")
    assert refusal(await table.send("away until", {"date": "0"}, user=ALICE)).startswith("an away lasts a day at least")
    assert not (await table.send("away until", {"date": "90"}, user=ALICE)).embeds  # 90 days: taken


async def test_a_reaction_windows_time_limit_waits_for_the_away_side_too(table, clock):
    from tests.cogs.test_reactions import asl_move_phase, move_in_the_open

    await asl_move_phase(table, reactions="hours=2")
    await table.send("away until", {"date": "1"}, user=BOB)
    await move_in_the_open(table)
    clock.advance(hours=3)
    assert await table.bot.pacer.check() == []
    assert (await table.game()).reaction is not None  # the Russians are away: their window waits
    await table.send("away end", user=BOB)
    clock.advance(hours=1, minutes=59, seconds=59)
    assert await table.bot.pacer.check() == []
    clock.advance(seconds=1)
    assert await table.bot.pacer.check() == [table.channel]
    assert (await last_entry(table)).order["answer"] == "timeout"
