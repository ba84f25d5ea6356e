"""Scenario uploads hold the bot's memory (issue 28, item 8): a soak of scenario loads.

A stranger's scenario files used to grow the bot from 81 MB to 510 MB after 70 games, never given
back. The file is now read and set up in a worker process (bot/work.py), and what the bot keeps of
each game afterwards is bounded (``bot.store.base.KeptGames``). This test loads the largest scenario
a file may hold (400 units, 2,000 Locations) through the real path, ``/scenario load`` with the file
attached (deferred, read by ``read_given`` in the worker process at ``read_cost``, set up there, saved),
each in a channel of its own, and measures the resident memory of this process, which is the bot's:
after a warm-up, then after the soak. The bound is a ratio of the warm-up's figure (no machine's
megabytes), printed with the figures (``-s``).

10 loads after the warm-up in the default run (the leak this found grew ~6 MB a load: 10 loads read
~1.4x, well over the bound); 100 with REFEREE_FULL_RELIABILITY=1.
"""

from __future__ import annotations

import contextlib
import gc
import os
import string

from bot.app import RefereeBot
from bot.config import Settings
from bot.emulator import FakeDiscord, running
from bot.emulator.payloads import PLAYER_PERMISSIONS, ChannelSpec, GuildSpec
from bot.service import ServerCaps
from bot.work import INLINE_BELOW
from tests.cogs.conftest import GUILD
from tests.cogs.test_scenario import attach
from tests.reliability.audit import size

WARM_UP = 5
LOADS = size(10, 100)
# the RSS after the soak, at most this many times the RSS after the warm-up: the bot's caches fill
# within the warm-up (bounded by units and Locations), so what grows past it is memory not given back
GROWTH_BOUND = 1.10


def rss_bytes() -> int:
    """This process's resident memory now (Linux: /proc/self/statm's second field, in pages)."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def biggest_scenario() -> str:
    """A scenario of the most a file may set up: 400 units (200 a side) in 2,000 Locations (~80 KB)."""
    columns = [a + b for a in ["", *string.ascii_uppercase[:3]] for b in string.ascii_uppercase][:80]
    places = [f"{c}{r}" for c in columns for r in range(1, 26)][:2000]
    lines = ["ruleset: asl", "variant: full", "title: Soak", "turns: 6", "locations:"]
    lines += [f"  - {{id: {p}, terrain: {'woods' if i % 3 == 0 else 'open'}}}" for i, p in enumerate(places)]
    lines.append("sides:")
    for s, (name, nationality, kind) in enumerate([("Germans", "german", "ger-467"), ("Russians", "russian", "rus-447")]):
        lines += [f"  - name: {name}", f"    nationality: {nationality}", "    units:"]
        lines += [f"      - {{id: {name[0]}{i}, type: {kind}, location: {places[(i * 7 + s * 1000) % 2000]}}}"
                  for i in range(200)]
    return "\n".join(lines) + "\n"


async def test_scenario_loads_give_their_memory_back(tmp_path):
    total = WARM_UP + LOADS
    channels = tuple(ChannelSpec(3_100_000_000_000_000_000 + i, f"soak-{i}") for i in range(total))
    guild = GuildSpec(GUILD.id, GUILD.name, GUILD.owner_id, channels, GUILD.members)
    text = biggest_scenario()
    off = {name: "off" for name in ("quota_user", "quota_channel", "quota_server", "quota_heavy_user",
                                    "quota_heavy_channel", "quota_heavy_server")}
    bot = RefereeBot(Settings(token=None, database=tmp_path / "soak.sqlite3", dev_guild=None, **off))
    async with contextlib.AsyncExitStack() as stack:
        fake = await stack.enter_async_context(FakeDiscord(guilds=[guild]))
        await stack.enter_async_context(running(bot, fake=fake))
        bot.referee.caps = ServerCaps(running=total + 1, started=ServerCaps().started.__class__(total + 1, 86_400))
        bot.referee.worker.inline_below = INLINE_BELOW  # the bot's own threshold: the file goes to the worker

        async def load(i: int) -> None:
            reply = await fake.send_command("scenario load", {"file": attach(text)}, user_id=GUILD.owner_id,
                                            channel_id=channels[i].id, member_permissions=PLAYER_PERMISSIONS,
                                            timeout=60)  # the first starts the worker processes
            assert reply.deferred and reply.embeds[0]["title"].startswith("New Advanced Squad Leader game"), \
                reply.embeds
            fake.uploads.clear()  # Discord's copy of the file (the loopback's, in this process): not the bot's memory

        start = rss_bytes()
        for i in range(WARM_UP):
            await load(i)
        gc.collect()
        warm = rss_bytes()
        for i in range(WARM_UP, total):
            await load(i)
        gc.collect()
        after = rss_bytes()
    mb = 1024 * 1024
    print(f"\nupload soak: RSS {start / mb:.0f} MB at the start, {warm / mb:.0f} MB after {WARM_UP} loads (warm-up), "
          f"{after / mb:.0f} MB after {LOADS} more: {after / warm:.2f}x the warm-up (bound {GROWTH_BOUND}x); "
          f"{len(text.encode()):,} bytes a file")
    assert after <= warm * GROWTH_BOUND, f"the bot's memory grew {after / warm:.2f}x over {LOADS} loads"
