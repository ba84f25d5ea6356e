"""The health check sees the Discord gateway (issue 28: it saw the database alone, so a bot cut off from
Discord stayed "healthy"). The bot writes its gateway's state (bot/gateway_watch.py) and `python -m bot
health` fails when a shard has been down, or its last heartbeat ACK is older, than
REFEREE_GATEWAY_DOWN_SECONDS. End to end: the real bot on the loopback Discord, whose gateway is taken
down (the socket closed, every reconnection refused) and brought back; the check is the real command
line, reading what the running bot wrote."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path

import discord
import pytest

from bot import cli
from bot.app import RefereeBot
from bot.config import Settings
from bot.emulator import FakeDiscord, running
from bot.gateway_watch import gateway_problem
from tests.cogs.conftest import GUILD
from tests.test_sharding import _guild_on_shard

BOUND = 3.0  # seconds a shard may be down before the check fails (120 in production)


def health(monkeypatch, database, state=None) -> tuple[int, str, str]:
    for key, value in (("REFEREE_DATABASE", str(database)), ("REFEREE_GATEWAY_STATE", state and str(state)),
                       ("REFEREE_GATEWAY_DOWN_SECONDS", str(BOUND))):
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["health"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


async def until(check, timeout: float = 30.0, what: str = "the event"):
    """Wait for ``check()`` to be true (polled), at most ``timeout`` seconds: the event itself, not a sleep."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return found


def written(state) -> dict:
    try:
        return json.loads(state.read_text())["shards"]["0"]
    except (FileNotFoundError, ValueError):
        return {}


async def test_the_health_check_fails_when_the_gateway_is_down_longer_than_the_bound_and_recovers(
        tmp_path, monkeypatch):
    database, state = tmp_path / "referee.sqlite3", tmp_path / "gateway.json"
    bot = RefereeBot(Settings(token=None, database=database, dev_guild=None, gateway_state=state,
                              gateway_down_seconds=BOUND))
    async with FakeDiscord(guilds=[GUILD], heartbeat_interval_ms=200) as fake, running(bot, fake=fake):
        # connected, and its heartbeats answered (discord.py's private ACK time is where the watch reads it)
        assert isinstance(bot.ws._keep_alive._last_ack, float) and bot.ws.open
        await until(lambda: written(state).get("ack_age") is not None, what="a heartbeat ACK in the state")
        code, out, err = health(monkeypatch, database, state)
        assert (code, err) == (0, "")
        assert out.startswith(f"ok: {database}; shard 0 connected, last heartbeat ACK ")

        await fake.gateway_down()
        dropped = time.monotonic()
        await until(lambda: written(state).get("connected") is False, what="the drop in the state")
        # a drop shorter than the bound is a reconnect, not a failure
        code, out, _ = health(monkeypatch, database, state)
        if time.monotonic() - dropped < BOUND - 0.5:
            assert code == 0 and "shard 0 reconnecting for " in out
        # the old check, the database alone, says nothing of it (issue 28)
        assert health(monkeypatch, database)[:2] == (0, f"ok: {database}\n")
        failed = await until(lambda: (result := health(monkeypatch, database, state))[0] != 0 and result,
                             what="the check to fail")
        assert time.monotonic() - dropped > BOUND  # not before the bound
        assert fake.gateway.refused_connections >= 1  # the bot was trying to come back all along
        code, out, err = failed
        assert code == 1 and out == ""
        assert err.startswith("unhealthy: shard 0's Discord gateway has been down for ")
        assert err.endswith(f" s (more than {BOUND:g} s)\n")

        await fake.gateway_up()
        await until(lambda: health(monkeypatch, database, state)[0] == 0, what="the check to pass again")
        assert written(state)["connected"] is True
    # the bot closed: its gateway too, and the check says so
    code, _, err = health(monkeypatch, database, state)
    assert code == 1 and err == "unhealthy: the bot has closed its gateway (it is stopping or stopped)\n"


def state_file(tmp_path, *, written: float, connected: bool = True, since: float = 0.0, ack_age=0.5,
               closed: bool = False, other_ack: float = 1.0):
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"version": 1, "pid": 1, "written": written, "started": 0.0, "closed": closed,
                                "shards": {"0": {"connected": connected, "since": since, "ack_age": ack_age},
                                           "1": {"connected": True, "since": 0.0, "ack_age": other_ack}}}))
    return path


NOW = 1_000_000.0


@pytest.mark.parametrize(("down", "healthy"), [(BOUND - 0.1, True), (BOUND, True), (BOUND + 0.1, False)])
def test_a_shard_down_fails_the_check_only_past_the_bound(tmp_path, down, healthy):
    path = state_file(tmp_path, written=NOW, connected=False, since=NOW - down)
    problem, told = gateway_problem(path, BOUND, now=NOW)
    assert (problem is None) is healthy
    if healthy:
        assert told == f"shard 0 reconnecting for {down:.0f} s; shard 1 connected, last heartbeat ACK 1 s ago"
    else:
        assert problem == f"shard 0's Discord gateway has been down for {down:.0f} s (more than {BOUND:g} s)"


@pytest.mark.parametrize(("age", "healthy"), [(BOUND - 0.1, True), (BOUND, True), (BOUND + 0.1, False)])
def test_a_heartbeat_ack_older_than_the_bound_fails_the_check_though_the_socket_is_open(tmp_path, age, healthy):
    # the ACK's age when written, plus the time since: a connection whose ACKs stopped is dead
    path = state_file(tmp_path, written=NOW - 1.0, ack_age=age - 1.0)
    problem, _ = gateway_problem(path, BOUND, now=NOW)
    assert (problem is None) is healthy
    if not healthy:
        assert problem.startswith("shard 0's last Discord heartbeat ACK is 3 s old (more than 3 s)")


@pytest.mark.parametrize(("stale", "healthy"), [(BOUND - 0.1, True), (BOUND, True), (BOUND + 0.1, False)])
def test_a_state_the_bot_stopped_writing_fails_the_check(tmp_path, stale, healthy):
    path = state_file(tmp_path, written=NOW - stale, ack_age=0.0, other_ack=0.0)
    problem, _ = gateway_problem(path, BOUND, now=NOW)
    assert (problem is None) is healthy
    if not healthy:
        assert problem == (f"the bot has not written its gateway state for 3 s (more than {BOUND:g} s): its event "
                           "loop is stuck or the process is gone")


def test_a_missing_or_unreadable_state_fails_the_check_with_one_line(tmp_path):
    missing = tmp_path / "nowhere.json"
    assert gateway_problem(missing, BOUND)[0] == (
        f"the bot has written no gateway state at {missing} (not started yet, or REFEREE_GATEWAY_STATE differs "
        "between the bot and this check)")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert gateway_problem(broken, BOUND)[0].startswith(f"the gateway state at {broken} cannot be read (")


def test_the_image_points_the_bot_and_its_check_at_the_same_state_file():
    dockerfile = (Path(__file__).resolve().parents[1] / "Dockerfile").read_text()
    assert "REFEREE_GATEWAY_STATE=/tmp/referee-gateway.json" in dockerfile


def test_discord_py_keeps_the_ack_time_where_the_watch_reads_it():
    # a private attribute of the pinned discord.py: an upgrade that moves it fails here
    handler = discord.gateway.KeepAliveHandler.__init__.__code__
    assert "_last_ack" in handler.co_names
    assert isinstance(discord.gateway.DiscordWebSocket.open, property)


async def test_a_process_holding_several_shards_writes_each_and_the_check_sees_them_go_down(tmp_path, monkeypatch):
    # one gateway connection per shard (discord.py's AutoShardedBot): each shard its own entry
    database, state = tmp_path / "referee.sqlite3", tmp_path / "gateway.json"
    guilds = [_guild_on_shard(n, 3) for n in range(3)]
    bot = RefereeBot(Settings(token=None, database=database, dev_guild=None, shard_ids="0,2", shard_count=3,
                              gateway_state=state, gateway_down_seconds=BOUND))

    async def at_once(shard_id: int, *, initial: bool = False) -> None:
        """Discord's identify limit (one per 5 s) is discord.py's wait here: not on loopback."""

    bot.before_identify_hook = at_once
    async with FakeDiscord(guilds=guilds, sharded=True, heartbeat_interval_ms=200) as fake, running(bot, fake=fake):
        shards = await until(lambda: (found := json.loads(state.read_text())["shards"] if state.exists() else {})
                             and all(s["connected"] and s["ack_age"] is not None for s in found.values()) and found,
                             what="both shards connected with heartbeats answered")
        assert sorted(shards) == ["0", "2"]  # this process's shards, not shard 1
        code, out, _ = health(monkeypatch, database, state)
        assert code == 0 and "shard 0 connected" in out and "shard 2 connected" in out
        await fake.gateway_down()
        for session in fake.gateway.shard_sessions.values():
            if session.connected:
                await session.drop(wait=False)
        await until(lambda: not any(s["connected"] for s in json.loads(state.read_text())["shards"].values()),
                    what="both shards down in the state")
        _, _, err = await until(lambda: (result := health(monkeypatch, database, state))[0] != 0 and result,
                                what="the check to fail")
        assert err.startswith("unhealthy: shard 0's Discord gateway has been down for ")
        await fake.gateway_up()
        await until(lambda: health(monkeypatch, database, state)[0] == 0, what="the check to pass again")

