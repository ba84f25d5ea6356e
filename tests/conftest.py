"""Shared pytest fixtures. Each block belongs to one part of the project; keep them apart."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir


# --- the suite writes nothing into the checkout (issue 28) ----------------------------------------
def suite_cache() -> Path:
    """A folder of the system's temporary files for what the suite keeps between runs (the load
    test's cached game, hypothesis's examples): this user's own, made private; a fresh one when
    another user holds that name."""
    folder = Path(tempfile.gettempdir()) / f"referee-tests-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.is_symlink() or (hasattr(os, "getuid") and folder.stat().st_uid != os.getuid()):
            raise PermissionError(folder)
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="referee-tests-"))
    return folder


SUITE_CACHE = suite_cache()
os.environ.setdefault("REFEREE_BENCH_CACHE", str(SUITE_CACHE / "bench"))  # bench/load_game.py, its subprocesses too
set_hypothesis_home_dir(SUITE_CACHE / "hypothesis")  # hypothesis's example database, not ./.hypothesis
# --- end of the suite's own folders ------------------------------------------------------------------


# --- fixed seeds in the default run (issue 28) -----------------------------------------------------
# hypothesis draws the same examples every default run (derandomize: a failure is one to replay, never a
# draw of luck); the full run (REFEREE_FULL_RELIABILITY=1) explores fresh ones and prints how to
# reproduce a failure. A test's own @settings keep these for what they do not set.
settings.register_profile("referee-default", derandomize=True, database=None)
settings.register_profile("referee-full", derandomize=False, print_blob=True)
settings.load_profile("referee-full" if os.environ.get("REFEREE_FULL_RELIABILITY") == "1" else "referee-default")
# --- end of the seeds --------------------------------------------------------------------------------


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
def _started_pg_server(**options):
    """A new throw-away PostgreSQL server (tests/pgserver.py). Where none can start the test is
    skipped, saying why; under REFEREE_CI=1 (.ci/run) it fails."""
    from tests import pgserver

    try:
        return pgserver.start(**options)
    except pgserver.PgUnavailable as exc:
        if pgserver.required():
            pytest.fail(f"PostgreSQL is required in CI (REFEREE_CI=1): {exc}", pytrace=False)
        pytest.skip(f"no PostgreSQL server: {exc}")


@pytest.fixture(scope="session")
def pg_server():
    """One throw-away PostgreSQL server for the session, started on first use."""
    server = _started_pg_server()
    yield server
    server.stop()


@pytest.fixture
def pg_server_of_its_own():
    """A PostgreSQL server for this test alone (about a second to start): one it may restart or kill
    (``PgServer.restart``) without touching the session's. Set up as the session's (synchronous
    commit off by default: the store turns it on for its own sessions, and a kill would show it if not)."""
    server = _started_pg_server()
    yield server
    server.stop()


@pytest.fixture
def pg_dsn(pg_server):
    """A DSN on the session's PostgreSQL whose tables live in a new, empty schema of this test's own."""
    return pg_server.fresh_dsn()


@pytest.fixture(params=["sqlite", "postgres"])
def store_database(request, tmp_path):
    """The database setting of each store kind: a file path (SQLite), a DSN (PostgreSQL)."""
    if request.param == "sqlite":
        return tmp_path / "data" / "referee.sqlite3"
    return request.getfixturevalue("pg_dsn")


@pytest_asyncio.fixture
async def store(store_database):
    """A migrated store, SQLite on a real file in ``tmp_path/data`` or PostgreSQL in a schema of its
    own (the contract suite runs on both), closed after the test."""
    from bot.store import open_store

    store = await open_store(store_database)
    yield store
    await store.close()


@pytest.fixture
def counter():
    """A dice source that counts the dice it hands out (tests/store/helpers.py)."""
    from tests.store.helpers import CountingDice

    return CountingDice()


# --- the kept Games (bot/store/base.py KeptGames): every kept Game handed out is checked -----------
@pytest.fixture(autouse=True, scope="session")
def check_kept_games():
    """Every Game a store hands out again from its last write is re-dumped and compared with what
    that write saved (``KeptGames.check``): a Game changed after it was saved fails the test that
    changed it, wherever in the suite."""
    from bot.store.base import KeptGames

    KeptGames.check = True
    yield
    KeptGames.check = False
