"""Sharding settings: one shard per bot process (REFEREE_SHARD_ID / REFEREE_SHARD_COUNT, or
``python -m bot run --shard ID/COUNT``), handed to discord.py; the reminders of a server go out
from the process whose shard Discord gives that server, and nowhere else."""

from __future__ import annotations

import dataclasses
import re
import io
from datetime import datetime, timedelta, timezone
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.app import RefereeBot
from bot.cli import build_parser, main
from bot.config import ConfigError, load_settings
from bot.emulator import FakeDiscord, running
from bot.emulator.payloads import ChannelSpec, GuildSpec, default_guild
from bot.pacing import Pacer
from bot.service import Referee
from bot.store import DatabaseUnusable, open_store

from tests.reliability.process import BotProcess
from tests.store.helpers import CHANNEL, GERMAN, GM, GUILD, RUSSIAN


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ("REFEREE_SHARD_ID", "REFEREE_SHARD_IDS", "REFEREE_SHARD_COUNT", "REFEREE_TOKEN", "DISCORD_TOKEN"):
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
    with pytest.raises(ConfigError,
                       match=r"set REFEREE_SHARD_ID \(or REFEREE_SHARD_IDS\) and REFEREE_SHARD_COUNT together"):
        load_settings()
    with pytest.raises(ConfigError, match="REFEREE_SHARD_ID 2 must be below REFEREE_SHARD_COUNT 2"):
        load_settings(shard_id=2, shard_count=2)


def test_a_server_belongs_to_the_shard_discord_gives_it():
    guild = (5 << 22) + 12345  # Discord: (id >> 22) % count
    owners = [n for n in range(3) if load_settings(shard_id=n, shard_count=3).serves_guild(guild)]
    assert owners == [5 % 3]
    assert load_settings().serves_guild(guild)  # unsharded: every server


def test_the_run_command_takes_a_shard_flag(capsys):
    assert build_parser().parse_args(["run", "--shard", "1/4"]).shard == ((1,), 4)
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


async def test_on_postgres_a_silent_game_is_reminded_once_by_its_shards_process(pg_dsn):
    stores = [await open_store(pg_dsn), await open_store(pg_dsn)]  # two processes' view
    try:
        referee = Referee(stores[0])
        await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": 1})
        for actor, side in ((GERMAN, 0), (RUSSIAN, 1)):
            await referee.act(CHANNEL, actor, {"action": "join", "side": side, "player": actor.user_id,
                                               "approved_by": GM.user_id}, command="/game join")
        soon = datetime.now(timezone.utc) + timedelta(minutes=30)
        later = datetime.now(timezone.utc) + timedelta(hours=2)
        owner = (GUILD >> 22) % 2
        bots = [_Bot(store, load_settings(shard_id=n, shard_count=2)) for store, n in zip(stores, (1 - owner, owner))]
        assert await Pacer(bots[1], clock=lambda: soon).check() == []  # not due yet
        assert [await Pacer(bot, clock=lambda: later).check() for bot in bots] == [[], [CHANNEL]]
        assert await Pacer(bots[1], clock=lambda: later).check() == []  # the same silence: once
    finally:
        for store in stores:
            await store.close()


def test_one_process_may_hold_several_shards():
    settings = load_settings(shard_ids="2, 0", shard_count=3)
    assert settings.shards == (0, 2)
    bot = RefereeBot(settings)  # discord.py's AutoShardedBot: a gateway connection for each shard
    assert isinstance(bot, discord.AutoShardedClient) and (bot.shard_ids, bot.shard_count) == ([0, 2], 3)
    guilds = {n: _guild_on_shard(n, 3).id for n in range(3)}
    assert [n for n, guild in guilds.items() if settings.serves_guild(guild)] == [0, 2]
    assert type(RefereeBot(load_settings(shard_ids="1", shard_count=3))) is RefereeBot  # one shard: as before
    for wrong, message in (({"shard_ids": "0,3", "shard_count": 3}, "REFEREE_SHARD_IDS 0,3 must be below"),
                           ({"shard_ids": "0,0", "shard_count": 3}, "must name each shard once"),
                           ({"shard_ids": "0,x", "shard_count": 3}, "separated by commas"),
                           ({"shard_ids": "0,1", "shard_id": 0, "shard_count": 3}, "not both"),
                           ({"shard_ids": "0,1"}, "REFEREE_SHARD_COUNT together")):
        with pytest.raises(ConfigError, match=message):
            load_settings(**wrong)
    assert build_parser().parse_args(["run", "--shard", "0,2/3"]).shard == ((0, 2), 3)


def _guild_on_shard(shard: int, count: int, n: int = 0) -> GuildSpec:
    """A server Discord gives shard ``shard`` of ``count`` ((id >> 22) % count), with its own channel."""
    base = default_guild()
    guild_id = next(gid for j in range(count * 2) if ((gid := base.id + (j << 22)) >> 22) % count == shard)
    channel = ChannelSpec(3_000_000_000_000_100_000 + shard * 10 + n, f"game-{shard}")
    return dataclasses.replace(base, id=guild_id, name=f"shard {shard}'s server", channels=(channel,))


async def test_one_process_serves_its_shards_servers_each_over_that_shards_connection(pg_dsn):
    # shard 1 is another process's: they share a PostgreSQL database (an SQLite file is refused below)
    guilds = [_guild_on_shard(n, 3) for n in range(3)]
    bot = RefereeBot(load_settings(token=None, database=pg_dsn, dev_guild=None, shard_ids="0,2", shard_count=3))

    async def at_once(shard_id: int, *, initial: bool = False) -> None:
        """Discord's identify limit (one per 5 s) is discord.py's wait here: not on loopback."""

    bot.before_identify_hook = at_once
    async with FakeDiscord(guilds=guilds, sharded=True) as fake, running(bot, fake=fake):
        sessions = (fake.gateway, *fake.gateway.shard_sessions.values())
        identified = sorted(tuple(frame["d"]["shard"]) for gateway in sessions
                            for frame in gateway.received if frame["op"] == 2)
        assert identified == [(0, 3), (2, 3)]
        assert sorted(g.id for g in bot.guilds) == [guilds[0].id, guilds[2].id]  # shard 1's server: not here
        for shard in (0, 2):
            guild = guilds[shard]
            reply = await fake.send_command("game new", {"ruleset": "asl", "sides": "Germans, Russians"},
                                            guild_id=guild.id, channel_id=guild.channels[0].id,
                                            user_id=guild.members[0].id)
            assert "Germans" in str(reply.embeds) + reply.content, (reply.content, reply.embeds)
            session = fake.gateway.for_guild(guild.id)
            assert session.shard == (shard, 3) and session.connected
            assert [f["d"]["id"] for f in session.log if f["t"] == "INTERACTION_CREATE"] == [reply.record.payload["id"]]
        store = bot.store
        assert sorted(g.guild_id for g in [await store.load_active(guilds[n].channels[0].id) for n in (0, 2)]) == \
            [guilds[0].id, guilds[2].id]


def test_sqlite_refuses_a_process_that_is_one_shard_among_several_at_start_up_in_one_line(monkeypatch, tmp_path):
    # issue 28: two sharded processes on one SQLite file were accepted without a word
    monkeypatch.setenv("REFEREE_TOKEN", "not-sent-anywhere")
    database = tmp_path / "referee.sqlite3"
    err = io.StringIO()
    assert main(["run", "--shard", "1/2"], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == (
        f"referee: REFEREE_SHARD_ID 1 of REFEREE_SHARD_COUNT 2 makes this process one of several, but "
        f"REFEREE_DATABASE is an SQLite file ({database}), which one process alone may write: set REFEREE_DATABASE "
        "to a postgresql:// URL for several processes, or run one process with every shard "
        "(REFEREE_SHARD_IDS=0,1), or none\n")
    assert not database.exists()  # refused before the file is opened
    assert "REFEREE_SHARD_IDS 0,2 of REFEREE_SHARD_COUNT 3" in load_settings(shard_ids="0,2",
                                                                           shard_count=3).sharding_refused()
    assert load_settings(shard_ids="1,0", shard_count=2).sharding_refused() is None  # one process, every shard
    assert load_settings().sharding_refused() is None  # unsharded
    assert load_settings(database="postgresql://referee@db/referee", shard_id=1,
                         shard_count=2).sharding_refused() is None  # PostgreSQL serves several processes


# --- the shard count against Discord's rules (issue 28) -------------------------------------------


async def test_the_emulator_recommends_and_refuses_shards_as_discord_does():
    """GET /gateway/bot recommends about one shard per 1,000 servers; an IDENTIFY of a shard holding more
    than 2,500 servers is closed with 4011, of a shard number not below the count with 4010."""
    for servers, recommended in ((1, 1), (1_000, 1), (1_001, 2), (5_000, 5)):
        async with FakeDiscord(servers=servers) as fake, aiohttp.ClientSession() as http:
            async with http.get(f"{fake.api_url}/gateway/bot") as answer:
                assert (await answer.json())["shards"] == recommended, servers
    fake = FakeDiscord(guilds=[], servers=5_000)  # servers counted only, spread evenly over the shards
    assert [fake._refused_shard(shard) for shard in ((0, 1), (0, 2), (1, 2), (2, 2), (0, 3))] == [
        4011, None, None, 4010, None]  # 5,000 on one: over; 2,500 on each of two: at the limit, taken
    assert FakeDiscord(servers=2_500)._refused_shard((0, 1)) is None  # at (the default guild and 2,499 more)
    assert FakeDiscord(servers=2_501)._refused_shard((0, 1)) == 4011  # one above
    assert FakeDiscord(servers=2_499)._refused_shard((0, 1)) is None  # one below


def _quick_identify(bot) -> None:
    async def at_once(shard_id: int, *, initial: bool = False) -> None:
        """Discord's identify limit (one per 5 s) is discord.py's wait here: not on loopback."""

    bot.before_identify_hook = at_once


async def test_shard_count_auto_takes_discords_recommendation(tmp_path):
    settings = load_settings(token=None, database=tmp_path / "referee.sqlite3", dev_guild=None, shard_count="auto")
    assert settings.auto_shards and settings.shards is None and settings.processes == 1
    assert settings.sharding_refused() is None  # one process with every shard: SQLite may serve it
    bot = RefereeBot(settings)
    assert isinstance(bot, discord.AutoShardedClient) and bot.shard_count is None  # asked of Discord at the start
    _quick_identify(bot)
    async with FakeDiscord(guilds=[_guild_on_shard(n, 3) for n in range(3)], servers=2_600, sharded=True) as fake, \
            running(bot, fake=fake):
        sessions = (fake.gateway, *fake.gateway.shard_sessions.values())
        identified = sorted(tuple(frame["d"]["shard"]) for gateway in sessions
                            for frame in gateway.received if frame["op"] == 2)
        assert bot.shard_count == 3 and identified == [(0, 3), (1, 3), (2, 3)]
        assert len(bot.guilds) == 3  # every shard's server, in this one process
        assert await bot.check_shard_count() is None
    for wrong, says in (({"shard_count": "auto", "shard_id": 0}, "give it no REFEREE_SHARD_ID(S)"),
                        ({"shard_count": "0"}, "at least 1 (or auto")):
        with pytest.raises(ConfigError, match=re.escape(says)):
            load_settings(**wrong)


@pytest.mark.parametrize(("count", "servers", "warned"), [
    (None, 1_000, False), (None, 1_001, True),  # unsharded: at and above one shard's recommendation
    (2, 1_999, False), (2, 2_000, False), (2, 2_001, True),  # below, at and above two shards'
])
async def test_a_shard_count_below_discords_recommendation_is_warned_of_in_one_line(tmp_path, caplog, count,
                                                                                     servers, warned):
    sharded = {} if count is None else {"shard_id": 0, "shard_count": count}
    bot = RefereeBot(load_settings(token=None, database=tmp_path / "referee.sqlite3", dev_guild=None, **sharded))
    caplog.set_level("WARNING", logger="bot.app")
    async with FakeDiscord(servers=servers, sharded=count is not None) as fake, running(bot, fake=fake):
        pass
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.app" and "recommends" in r.getMessage()]
    assert bool(lines) == warned, lines
    if warned:
        recommended = -(-servers // 1_000)
        assert len(lines) == 1 and "\n" not in lines[0]
        assert lines[0].startswith(f"Discord recommends {recommended} shards for this bot's servers")
        assert f"raise REFEREE_SHARD_COUNT to {recommended} or more" in lines[0] and "2,500" in lines[0]


async def test_a_bot_discord_refuses_for_want_of_shards_stops_with_one_line(tmp_path):
    """Past 2,500 servers on one connection Discord closes the gateway with 4011: the bot exits 2 with
    one line saying what to set, not a traceback."""
    async with FakeDiscord(servers=2_501) as fake:
        bot = BotProcess(fake, tmp_path / "referee.sqlite3", tmp_path)
        with pytest.raises(AssertionError, match="exited with 2 before it was ready"):
            await bot.start(timeout=60)
        assert fake.gateway.refused == [((0, 1), 4011)]
    logged = bot.log_files[-1].read_text()
    errors = [line for line in logged.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "Discord requires more shards (close code 4011)" in errors[0], logged[-2000:]
    assert "REFEREE_SHARD_COUNT=auto" in errors[0] and "Traceback" not in logged
