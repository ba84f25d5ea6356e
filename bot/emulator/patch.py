"""Pointing discord.py at a fake Discord: the two URLs every REST call and gateway connection
is built from (notes/discord-emulator.md), restored on exit."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

import discord.gateway
import discord.http
import yarl

API_ENV = "REFEREE_DISCORD_API"  # e.g. http://127.0.0.1:8765/api/v10
GATEWAY_ENV = "REFEREE_DISCORD_GATEWAY"  # e.g. ws://127.0.0.1:8765/gateway


def current_endpoints() -> tuple[str, yarl.URL]:
    return discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def set_endpoints(api: str | None = None, gateway: str | yarl.URL | None = None) -> None:
    """Route REST calls to ``api`` and the gateway to ``gateway`` (either may be left as is).
    Webhook and interaction calls build the same Route, so they follow ``api`` too."""
    if api:
        discord.http.Route.BASE = api.rstrip("/")
    if gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(str(gateway))


@contextmanager
def pointed_at(api: str, gateway: str) -> Iterator[None]:
    saved_api, saved_gateway = current_endpoints()
    set_endpoints(api, gateway)
    try:
        yield
    finally:
        discord.http.Route.BASE = saved_api
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved_gateway


def apply_env_endpoints(environ: dict[str, str] | None = None) -> bool:
    """Point the client at the URLs in REFEREE_DISCORD_API / REFEREE_DISCORD_GATEWAY, for a bot
    run as its own process against a fake started elsewhere. Inert (False) when both are unset."""
    env = os.environ if environ is None else environ
    api, gateway = env.get(API_ENV, "").strip(), env.get(GATEWAY_ENV, "").strip()
    if not api and not gateway:
        return False
    set_endpoints(api or None, gateway or None)
    return True
