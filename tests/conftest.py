"""Shared pytest fixtures. Each block belongs to one part of the project; keep them apart."""

from __future__ import annotations

import contextlib

import pytest
import pytest_asyncio


# --- emulator fixtures (bot/emulator: the loopback Discord for end-to-end tests) ------------------
@pytest_asyncio.fixture
async def fake_discord():
    """A FakeDiscord on an ephemeral 127.0.0.1 port, stopped after the test."""
    from bot.emulator import FakeDiscord

    async with FakeDiscord() as fake:
        yield fake


@pytest_asyncio.fixture
async def emulated(fake_discord):
    """``fake = await emulated(bot)``: connect ``bot`` to ``fake_discord`` (ready, guilds
    available, commands synced) until the test ends; then drain its handlers and close it."""
    from bot.emulator import running

    async with contextlib.AsyncExitStack() as stack:
        async def start(bot, **kwargs):
            fake, _ = await stack.enter_async_context(running(bot, fake=fake_discord, **kwargs))
            return fake

        yield start
# --- end of emulator fixtures ----------------------------------------------------------------------


# --- store fixtures (bot/store and the service on it) ---------------------------------------------
@pytest_asyncio.fixture
async def store(tmp_path):
    """A migrated SQLite store on a real file in ``tmp_path/data``, closed after the test."""
    from tests.store.helpers import open_store

    store = await open_store(tmp_path)
    yield store
    await store.close()


@pytest.fixture
def counter():
    """A dice source that counts the dice it hands out (tests/store/helpers.py)."""
    from tests.store.helpers import CountingDice

    return CountingDice()
