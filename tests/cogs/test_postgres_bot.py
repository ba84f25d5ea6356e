"""The real bot on PostgreSQL end to end (the loopback Discord, the session's throw-away server):
the same commands, restarts and exactly-once answers as on SQLite, through ``REFEREE_DATABASE=
postgresql://...``."""

from __future__ import annotations

from bot.store import PostgresStore
from tests.cogs.conftest import BOB, GAME_CHANNEL, THREAD
from tests.cogs.helpers import asl_game, end_game
from tests.cogs.test_restart import set_up_two_games


async def test_the_bot_runs_on_postgres_and_a_restart_reads_every_game_back_and_verifies(pg_table):
    assert isinstance(pg_table.bot.store, PostgresStore)
    await set_up_two_games(pg_table)
    before = {channel: await pg_table.snapshot(channel) for channel in (GAME_CHANNEL, THREAD)}
    assert before[GAME_CHANNEL][1] == 9 and before[THREAD][1] == 5

    await pg_table.restart()

    for channel in (GAME_CHANNEL, THREAD):
        assert await pg_table.snapshot(channel) == before[channel]
        report = await pg_table.bot.referee.verify(channel)
        assert (report.ok, report.checked, report.first_bad_seq) == (True, before[channel][1], None)
    moved = await pg_table.as_gm("unit move", {"unit": "A1", "to": "B4"})
    assert moved.embeds[0]["footer"] == {"text": "log #10"}


async def test_a_redelivered_morale_check_is_answered_from_the_postgres_log(pg_table):
    await asl_game(pg_table)
    first = await pg_table.send("morale", {"unit": "A1", "dice": "2 5"})
    entries_before = (await pg_table.bot.referee.log(pg_table.channel)).total

    again = await pg_table.fake.deliver_again(first)

    assert (await pg_table.bot.referee.log(pg_table.channel)).total == entries_before  # nothing rolled again
    second = again.record.rejected[0]
    assert second.data["embeds"] == again.record.callbacks[0].data["embeds"]
    assert "rolled 2+5 = 7 (white 2, colored 5)" in second.data["embeds"][0]["fields"][0]["value"].splitlines()[0]


async def test_a_game_ended_by_mistake_is_reopened_on_postgres_too(pg_table):
    await asl_game(pg_table)
    game, entries = await pg_table.snapshot()
    await end_game(pg_table)
    assert await pg_table.snapshot() == (None, 0)
    reopened = await pg_table.as_gm("game reopen")
    assert reopened.embeds[0]["title"] == "Game reopened after turn 1"
    assert await pg_table.snapshot() == (game, entries + 2)
    await pg_table.restart()  # read back from the database
    rolled = await pg_table.send("morale", {"unit": "R1"}, user=BOB)
    assert not rolled.ephemeral, rolled.embeds
    assert (await pg_table.bot.referee.verify(pg_table.channel)).ok
