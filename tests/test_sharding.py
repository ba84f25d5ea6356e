"""Sharding settings: one shard per bot process (REFEREE_SHARD_ID / REFEREE_SHARD_COUNT, or
``python -m bot run --shard ID/COUNT``), handed to discord.py; the reminders of a server go out
from the process whose shard Discord gives that server, and nowhere else."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.app import RefereeBot
from bot.cli import build_parser, main
from bot.config import ConfigError, load_settings
from bot.pacing import Pacer
from bot.service import Referee
from bot.store import open_store

from tests.store.helpers import CHANNEL, GERMAN, GM, GUILD, RUSSIAN


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ("REFEREE_SHARD_ID", "REFEREE_SHARD_COUNT", "REFEREE_TOKEN", "DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REFEREE_DATABASE", str(tmp_path / "referee.sqlite3"))


def test_the_shard_settings_come_together_and_reach_discord_py(monkeypatch):
    monkeypatch.setenv("REFEREE_SHARD_ID", "1")
    monkeypatch.setenv("REFEREE_SHARD_COUNT", "2")
    settings = load_settings()
    bot = RefereeBot(settings)
    assert (bot.shard_id, bot.shard_count) == (1, 2)
    assert RefereeBot(load_settings(shard_id=None, shard_count=None)).shard_count is None  # unsharded
    monkeypatch.delenv("REFEREE_SHARD_COUNT")
    with pytest.raises(ConfigError, match="set REFEREE_SHARD_ID and REFEREE_SHARD_COUNT together"):
        load_settings()
    with pytest.raises(ConfigError, match="REFEREE_SHARD_ID 2 must be below REFEREE_SHARD_COUNT 2"):
        load_settings(shard_id=2, shard_count=2)


def test_a_server_belongs_to_the_shard_discord_gives_it():
    guild = (5 << 22) + 12345  # Discord: (id >> 22) % count
    owners = [n for n in range(3) if load_settings(shard_id=n, shard_count=3).serves_guild(guild)]
    assert owners == [5 % 3]
    assert load_settings().serves_guild(guild)  # unsharded: every server


def test_the_run_command_takes_a_shard_flag(capsys):
    assert build_parser().parse_args(["run", "--shard", "1/4"]).shard == (1, 4)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--shard", "4/4"])
    assert "write ID/COUNT" in capsys.readouterr().err
    err = io.StringIO()
    assert main(["run", "--shard", "0/2"], stdout=io.StringIO(), stderr=err) == 2  # no token: refused as before
    assert "no Discord token" in err.getvalue()


class _Bot:
    """What the pacer reads of the bot: its store, its settings, and a channel to send to."""

    def __init__(self, store, settings):
        self.store, self.settings, self.sent = store, settings, []

    def get_partial_messageable(self, channel_id):
        bot = self

        class Channel:
            async def send(self, **kwargs):
                bot.sent.append(channel_id)
        return Channel()


async def test_a_silent_game_is_reminded_by_its_shards_process_only(tmp_path: Path):
    store = await open_store(tmp_path / "shared.sqlite3")
    try:
        referee = Referee(store)
        await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": 1})
        for actor, side in ((GERMAN, 0), (RUSSIAN, 1)):
            await referee.act(CHANNEL, actor, {"action": "join", "side": side, "player": actor.user_id,
                                               "approved_by": GM.user_id}, command="/game join")
        later = datetime.now(timezone.utc) + timedelta(hours=2)
        owner = (GUILD >> 22) % 2
        bots = [_Bot(store, load_settings(shard_id=n, shard_count=2)) for n in (1 - owner, owner)]
        assert [await Pacer(bot, clock=lambda: later).check() for bot in bots] == [[], [CHANNEL]]
        assert await Pacer(bots[1], clock=lambda: later).check() == []  # the same silence: once
    finally:
        await store.close()
