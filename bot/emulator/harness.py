"""Run a real discord.py bot against FakeDiscord, for tests and the sandbox.

    async with running(bot) as (fake, bot):
        reply = await fake.send_command("ping", {"word": "hi"})

On entry: start the fake (unless one is given), point the client at it, start the bot and
wait until it is ready, its guilds are available and its commands are synced. On exit: let
the handlers still running finish (followups come after the reply), close the bot, and await
its connect task so an error in the gateway read loop surfaces instead of vanishing.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import discord
from discord.ext import commands

from bot.emulator.gateway import shard_of
from bot.emulator.patch import pointed_at
from bot.emulator.server import FakeDiscord, _handler_tasks

DEFAULT_TOKEN = "emulator-token"


@asynccontextmanager
async def running(bot: commands.Bot, *, fake: FakeDiscord | None = None, sync: bool = True,
                  guild_ready_timeout: float = 0.01, timeout: float = 10.0,
                  token: str | None = None) -> AsyncIterator[tuple[FakeDiscord, commands.Bot]]:
    fake = fake or FakeDiscord()
    own_server = fake._runner is None
    if own_server:
        await fake.start()
    try:
        with pointed_at(fake.api_url, fake.gateway_url):
            async with _bot_session(bot, fake, guild_ready_timeout, timeout, token, sync):
                yield fake, bot
    finally:
        if own_server:
            await fake.stop()


@asynccontextmanager
async def _bot_session(bot: commands.Bot, fake: FakeDiscord, guild_ready_timeout: float, timeout: float,
                       token: str | None, sync: bool) -> AsyncIterator[None]:
    # discord.py waits this long after the last GUILD_CREATE before READY (2 s by default)
    bot._connection.guild_ready_timeout = min(bot._connection.guild_ready_timeout, guild_ready_timeout)
    receipt = _receipt_listener(fake)
    bot.add_listener(receipt, "on_interaction")
    fake.receipts_tracked = True
    connect = asyncio.create_task(bot.start(token or fake.token or DEFAULT_TOKEN), name="emulator-bot-connect")
    try:
        await _until_ready(bot, fake, connect, timeout)
        if sync and not fake.synced:
            await bot.tree.sync()  # a bot that does not sync itself still needs a schema to test against
        yield
    finally:
        fake.receipts_tracked = False
        await _drain_handlers(timeout)
        await bot.close()
        bot.remove_listener(receipt, "on_interaction")
        await asyncio.wait_for(connect, timeout)  # re-raises what killed the gateway loop, if anything


def _receipt_listener(fake: FakeDiscord) -> Any:
    async def on_interaction(interaction: discord.Interaction) -> None:
        fake.bot_received(interaction.id)

    return on_interaction


async def _until_ready(bot: commands.Bot, fake: FakeDiscord, connect: asyncio.Task[None], timeout: float) -> None:
    ready = asyncio.create_task(bot.wait_until_ready(), name="emulator-wait-ready")
    done, _ = await asyncio.wait({ready, connect}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if connect in done:
        ready.cancel()
        connect.result()  # login or gateway failure: raise it here
        raise AssertionError("the bot stopped before it was ready")
    if ready not in done:
        ready.cancel()
        raise AssertionError(f"the bot was not ready within {timeout}s")
    # the servers of the shards the bot holds (Discord's rule: (id >> 22) % count); all when unsharded
    count, held = bot.shard_count or 1, getattr(bot, "shard_ids", None) or [bot.shard_id or 0]
    missing = [g.id for g in fake.guilds if shard_of(g.id, count) in held
               and (bot.get_guild(g.id) is None or bot.get_guild(g.id).unavailable)]
    if missing:
        raise AssertionError(f"guilds not available to the bot after READY: {missing}")


async def _drain_handlers(timeout: float) -> None:
    """Let the command/view handlers finish; cancel any still waiting after ``timeout``."""
    tasks = _handler_tasks()
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending)
