"""Two bot processes, shards 0 and 1 of 2 (``python -m bot run`` with REFEREE_SHARD_ID/COUNT, as
compose.yaml runs them), on one PostgreSQL: each has its own gateway (a FakeDiscord of its own, as
each shard has its own connection to Discord). Discord delivers one interaction to both at the
same moment (a re-delivery after a gateway hand-over can land on another process): it is rolled
and logged once, and both answers are that one result."""

from __future__ import annotations

import asyncio
import copy

from bot.emulator import FakeDiscord
from bot.emulator.schema import build_command
from bot.service import Actor, Referee
from bot.store import open_store
from tests.cogs.conftest import ALICE, BOB, GAME_CHANNEL, GM, GUILD
from tests.reliability.process import BotProcess


async def _seated_game(dsn: str) -> None:
    store = await open_store(dsn)
    try:
        referee, gm = Referee(store), Actor(GM)
        await referee.new_game(GAME_CHANNEL, GUILD.id, gm, "asl", ["Germans", "Russians"], scenario="Shards")
        for player, side in ((ALICE, 0), (BOB, 1)):
            await referee.act(GAME_CHANNEL, Actor(player), {"action": "join", "side": side, "player": player,
                                                            "approved_by": GM}, command="/game join")
        await referee.act(GAME_CHANNEL, gm, {"action": "unit_add", "id": "A1", "side": 0, "location": "A4",
                                             "type": "ger-467", "stats": {}}, command="/unit add")
    finally:
        await store.close()


async def _logged(dsn: str, interaction_id: int) -> list[int]:
    store = await open_store(dsn)
    try:
        stored = await store.load_active(GAME_CHANNEL)
        return [entry.seq async for entry in store.iter_entries(stored.id) if entry.interaction_id == interaction_id]
    finally:
        await store.close()


async def test_an_interaction_delivered_to_two_shard_processes_at_once_is_answered_once(tmp_path, pg_dsn):
    await _seated_game(pg_dsn)
    async with FakeDiscord(guilds=[GUILD]) as first, FakeDiscord(guilds=[GUILD]) as second:
        bots = [BotProcess(fake, pg_dsn, tmp_path / f"shard-{n}", extra_env={
            "REFEREE_SHARD_ID": str(n), "REFEREE_SHARD_COUNT": "2"}) for n, fake in enumerate((first, second))]
        for n, bot in enumerate(bots):
            bot.logs.mkdir()
        try:
            await bots[0].start()
            second.commands = copy.deepcopy(first.commands)  # the application's commands, synced by shard 0
            await bots[1].start(syncs=False)
            assert len(second.syncs) == 0  # shard 1 left the syncing to shard 0

            built = build_command(first.commands_for(GUILD.id), "morale", {"unit": "A1"})
            data = {"id": built.root["id"], "name": built.root["name"], "type": 1, "options": built.options}
            payload = first._interaction(2, data, GUILD, ALICE, GAME_CHANNEL, None)
            replies = await asyncio.gather(first._exchange(payload, settle=False, timeout=20),
                                           second._exchange(copy.deepcopy(payload), settle=False, timeout=20))
            for fake in (first, second):  # both processes answered, with a result, not a refusal
                assert len(fake.interactions[payload["token"]].callbacks) == 1
            embeds = [reply.embeds for reply in replies]
            assert embeds[0] == embeds[1] and embeds[0][0]["title"].startswith("4-6-7 A1"), embeds
            assert await _logged(pg_dsn, int(payload["id"])) == [5]  # one entry: rolled once, logged once
        finally:
            for bot in bots:
                await bot.stop()
        assert [line for bot in bots for line in bot.error_lines()] == []
