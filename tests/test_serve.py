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


# --- start-up failures (issue 15): one line saying what to do, a non-zero exit -------------------


async def start_and_wait(bot: BotProcess, timeout: float = 30.0) -> tuple[int, list[str]]:
    """Start the bot process expecting it to give up; its exit code and its log lines."""
    try:
        await bot.start(timeout=timeout)
    except AssertionError:
        pass  # it exited before it was ready: what these tests expect
    else:
        raise AssertionError("the bot started although it should not have")
    await bot.wait_dead()
    return bot.process.returncode, bot.log_files[-1].read_text().splitlines()


def only_error(lines: list[str]) -> str:
    """The one ERROR line of a failed start-up: no traceback, no other error, no voice noise."""
    assert not any(line.startswith("Traceback") for line in lines), lines
    assert not any("voice will NOT be supported" in line for line in lines), lines
    errors = [line for line in lines if " ERROR " in line]
    assert len(errors) == 1, lines
    return errors[0].split(" ERROR ", 1)[1].split(": ", 1)[1]


async def test_without_a_network_the_bot_says_so_in_one_line(tmp_path):
    async with FakeDiscord(guilds=[default_guild()]) as fake:
        bot = BotProcess(fake, tmp_path / "referee.sqlite3", tmp_path,
                         extra_env={"REFEREE_DISCORD_API": "http://127.0.0.1:9/api/v10"})  # nothing listens
        code, lines = await start_and_wait(bot)
    assert code == 1
    assert only_error(lines).startswith("could not reach Discord (Cannot connect to host 127.0.0.1:9")
    assert only_error(lines).endswith("check this machine's network (and DNS), then start the bot again")


async def test_a_token_discord_refuses_is_one_line(tmp_path):
    async with FakeDiscord(guilds=[default_guild()], token="the-right-token") as fake:
        bot = BotProcess(fake, tmp_path / "referee.sqlite3", tmp_path, extra_env={"REFEREE_TOKEN": "a-wrong-one"})
        code, lines = await start_and_wait(bot)
    assert code == 2
    assert only_error(lines) == "Discord refused the token: check DISCORD_TOKEN (or REFEREE_TOKEN)"


async def test_a_missing_permission_to_register_commands_is_one_line(tmp_path):
    guild = default_guild()
    async with FakeDiscord(guilds=[guild]) as fake:
        # Discord's answer when the bot was invited without the applications.commands scope
        fake.fail_next("/guilds/", 403, code=50001, message="Missing Access", method="PUT")
        bot = BotProcess(fake, tmp_path / "referee.sqlite3", tmp_path, extra_env={"REFEREE_DEV_GUILD": str(guild.id)})
        code, lines = await start_and_wait(bot)
    assert code == 2
    assert only_error(lines) == (
        f"Discord refused the bot at start-up (403, code 50001: Missing Access): invite it with the bot and "
        f"applications.commands scopes to the server REFEREE_DEV_GUILD names ({guild.id}), then start it again")
