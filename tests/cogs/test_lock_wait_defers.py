"""An order whose channel is held by another command (another bot process's, on PostgreSQL) waits for
the channel's lock: past a short bound it is deferred ("thinking...") so that Discord's 3 s never run
out, and its result then lands in that message (issue 28: 30-46 of 200 such commands were answered
after the 3 s and lost)."""

from __future__ import annotations

import asyncio

from bot.replies import DEFER_AFTER
from tests.cogs.helpers import asl_game

HELD = 3.5  # longer than Discord gives an interaction's first answer


async def test_an_order_waiting_past_discords_deadline_for_its_channel_is_deferred_then_answered(table):
    await asl_game(table)
    held = asyncio.Event()

    async def hold_the_channel():  # another command of the channel, as long as HELD
        async with table.bot.referee.desk.lock(table.channel):
            held.set()
            await asyncio.sleep(HELD)

    holder = asyncio.create_task(hold_the_channel())
    await held.wait()
    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})
    await holder

    assert reply.deferred and not reply.record.rejected  # "thinking..." in time, nothing refused by Discord
    assert not reply.ephemeral
    assert "rolled 2+5 = 7 (white 2, colored 5)" in reply.embeds[0]["fields"][0]["value"].splitlines()[0]  # the answer, edited in


async def test_an_order_answered_before_the_bound_is_not_deferred(table):
    await asl_game(table)
    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})
    await asyncio.sleep(DEFER_AFTER + 0.3)  # the bound passes after the answer: nothing more is sent
    assert not reply.deferred and not reply.record.rejected and len(reply.record.callbacks) == 1


async def test_a_refusal_after_a_long_wait_stays_private(table):
    await asl_game(table)
    held = asyncio.Event()

    async def hold_the_channel():
        async with table.bot.referee.desk.lock(table.channel):
            held.set()
            await asyncio.sleep(DEFER_AFTER + 1.0)

    holder = asyncio.create_task(hold_the_channel())
    await held.wait()
    reply = await table.send("morale", {"unit": "Z9", "dice": "2 5"})  # no such unit: refused
    await holder

    assert reply.deferred and not reply.record.rejected
    private = [m for m in reply.followups if m.flags == 64]
    assert private and "Z9" in str(private[0].embeds)  # the refusal reaches the player alone
