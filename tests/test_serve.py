"""``python -m bot run`` (``bot.app.serve``) as a real process against the loopback Discord: once
logged in, it sets its start-up objects aside from garbage collection (``gc.freeze``, issue 5)
before it connects, answers commands, and stops cleanly on SIGTERM."""

from __future__ import annotations

import re

from bot.emulator import FakeDiscord, default_guild
from tests.reliability.process import BotProcess


async def test_the_bot_freezes_its_start_up_objects_after_login_and_serves(tmp_path):
    guild = default_guild()
    async with FakeDiscord(guilds=[guild]) as fake:
        bot = BotProcess(fake, tmp_path / "referee.sqlite3", tmp_path)
        try:
            await bot.start()
            reply = await fake.send_command("game new", {"ruleset": "asl", "sides": "Germans, Russians"},
                                            user_id=guild.owner_id, channel_id=guild.channels[1].id,
                                            guild_id=guild.id)
        finally:
            code = await bot.stop()
    assert code == 0
    assert not reply.ephemeral and reply.embeds, reply
    log = bot.log_files[-1].read_text()
    frozen = re.search(r"start-up done: (\d+) objects set aside from garbage collection \(gc\.freeze\)", log)
    assert frozen and int(frozen.group(1)) > 10_000, log[-2000:]  # modules, tables, the command tree
    # frozen after the commands were synced (login) and before the gateway connected
    assert log.index("synced") < frozen.start() < log.index("database closed")
    assert bot.error_lines() == []
