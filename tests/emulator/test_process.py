"""Pointing a bot run as its own process at a fake started elsewhere: the environment
variables, and the emulator run standalone (`python -m bot.emulator`)."""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import discord
import pytest

from bot.emulator import API_ENV, GATEWAY_ENV, apply_env_endpoints


@pytest.fixture
def restore_endpoints():
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    yield
    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


def test_apply_env_endpoints_is_inert_when_unset(restore_endpoints):
    before = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    assert apply_env_endpoints({}) is False
    assert (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == before


def test_apply_env_endpoints_points_rest_and_gateway(restore_endpoints):
    applied = apply_env_endpoints({API_ENV: "http://127.0.0.1:9/api/v10/", GATEWAY_ENV: "ws://127.0.0.1:9/gateway"})
    assert applied is True
    assert discord.http.Route.BASE == "http://127.0.0.1:9/api/v10"
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:9/gateway"
    assert discord.http.Route("GET", "/users/@me").url == "http://127.0.0.1:9/api/v10/users/@me"


async def test_the_standalone_emulator_prints_its_urls_and_serves_them():
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.emulator", "--port", "0", stdout=asyncio.subprocess.PIPE)
    try:
        lines = [(await asyncio.wait_for(process.stdout.readline(), 10)).decode().strip() for _ in range(3)]
        assert lines[2] == "emulator ready"
        urls = dict(line.split("=", 1) for line in lines[:2])
        async with aiohttp.ClientSession() as session, session.get(urls[API_ENV] + "/gateway") as response:
            assert (await response.json()) == {"url": urls[GATEWAY_ENV]}
    finally:
        process.terminate()  # only the process this test started
        await asyncio.wait_for(process.wait(), 10)
    assert process.returncode == 0


def test_production_run_ignores_the_endpoint_variables(monkeypatch, restore_endpoints):
    # `python -m bot run` logs in wherever discord.py points: Discord. The REFEREE_DISCORD_*
    # variables (where the token would go) are read only by bot.emulator.run_bot and the tests
    from bot import app as app_module
    from bot.cli import main

    real_api, real_gateway = discord.http.Route.BASE, str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    monkeypatch.setenv("REFEREE_TOKEN", "a-real-token")
    monkeypatch.setenv("REFEREE_DATABASE", ":memory:")
    monkeypatch.setenv(API_ENV, "http://203.0.113.9/api/v10")
    monkeypatch.setenv(GATEWAY_ENV, "ws://203.0.113.9/gateway")
    seen = []

    async def login(self, token):  # stands in for the network: note where the token would go
        seen.append((discord.http.Route.BASE, str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)))
        raise discord.LoginFailure("stopped by the test")

    monkeypatch.setattr(app_module.RefereeBot, "login", login)
    monkeypatch.setattr(app_module, "_install_signal_handlers", lambda stop: None)
    assert main(["run"]) == 2
    assert seen == [(real_api, real_gateway)]


@pytest.mark.parametrize("api, gateway, problem", [
    (None, "ws://127.0.0.1:9/gateway", "REFEREE_DISCORD_API is not set"),
    ("https://203.0.113.9/api/v10", "ws://127.0.0.1:9/gateway", "is not a loopback address"),
    ("http://127.0.0.1:9/api/v10", "wss://gateway.example.org", "is not a loopback address"),
])
def test_the_emulator_runner_takes_only_loopback_urls(api, gateway, problem):
    from bot.emulator.run_bot import loopback_only

    env = {GATEWAY_ENV: gateway} | ({API_ENV: api} if api else {})
    assert problem in loopback_only(env)
    assert loopback_only({API_ENV: "http://127.0.0.1:9/api/v10", GATEWAY_ENV: "ws://localhost:9/gateway"}) is None
