"""PostgreSQL's pool, statement timeout and session locks as settings with limits (issue 28): the
store reads the server's max_connections as it opens and refuses a pool that cannot fit (one line),
warns when every process's together cannot; a statement running past the statement timeout is
ended by the server and its order refused, nothing changed; a transaction-mode pooler in between
(PgBouncer), which would break the channels' session advisory locks, is refused at start-up."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.service import Referee
from bot.store import DatabaseUnusable, StorageUnavailable, open_store
from bot.store import pg_checks
from tests import pgserver

from .helpers import CHANNEL, GM, asl_squad, seated_asl_game

pytestmark = pytest.mark.usefixtures("pg_server")


async def _free(dsn: str) -> int:
    store = await open_store(dsn)
    try:
        async with store._connection() as conn:
            return (await pg_checks.room(conn))[1]
    finally:
        await store.close()


async def test_a_pool_larger_than_the_server_takes_is_refused_in_one_line_at_the_limit_it_opens(pg_dsn):
    free = await _free(pg_dsn)  # max_connections 200 less the superusers' reserve
    for pool_max in (free - 1, free):  # below and at: opened (min 1: it opens its connections as needed)
        store = await open_store(pg_dsn, pool={"pool_max": pool_max})
        await store.close()
    with pytest.raises(DatabaseUnusable) as refused:  # above
        await open_store(pg_dsn, pool={"pool_max": free + 1})
    said = str(refused.value)
    assert said.startswith(f"REFEREE_DATABASE_POOL_MAX {free + 1} is more connections than database")
    assert "\n" not in said
    assert f"({free}: max_connections" in said and "lower REFEREE_DATABASE_POOL_MAX" in said


async def test_the_pools_of_every_process_at_below_and_above_the_server(pg_dsn, caplog):
    free = await _free(pg_dsn)
    caplog.set_level(logging.WARNING, logger="bot.store.pg_checks")
    for processes, warned in ((free - 1, False), (free, False), (free + 1, True)):  # pools of 1 each
        caplog.clear()
        store = await open_store(pg_dsn, pool={"pool_max": 1, "processes": processes})
        await store.close()
        lines = [r.getMessage() for r in caplog.records if r.name == "bot.store.pg_checks"]
        assert bool(lines) == warned, (processes, lines)
        if lines:
            assert len(lines) == 1 and "\n" not in lines[0] and lines[0].startswith(f"{processes} bot processes")
            assert f"lower REFEREE_DATABASE_POOL_MAX to {max(1, free // processes)}" in lines[0]


async def test_a_statement_past_the_timeout_is_ended_and_its_order_refused_below_it_served(pg_dsn):
    """Another process holds the channel (its lock) for a while: within the statement timeout the
    order waits and is saved; past it the server ends the wait and the order is refused in the
    players' words, nothing changed."""
    holder = await open_store(pg_dsn)
    store = await open_store(pg_dsn, pool={"statement_timeout": 1.0})
    try:
        referee = Referee(store)
        await seated_asl_game(referee)  # entries 1-5

        async def held_for(seconds: float) -> None:
            async with holder.channel_lock(CHANNEL):
                await asyncio.sleep(seconds)

        below = asyncio.create_task(held_for(0.4))
        await asyncio.sleep(0.1)
        acted = await referee.act(CHANNEL, GM, asl_squad("U1", 0, None), command="/unit add")
        await below
        assert acted.entry.seq == 6

        above = asyncio.create_task(held_for(2.5))
        await asyncio.sleep(0.1)
        with pytest.raises(StorageUnavailable) as refused:
            await referee.act(CHANNEL, GM, asl_squad("U2", 0, None), command="/unit add")
        await above
        assert refused.value.kind == "slow" and "took too long" in str(refused.value)
        assert "nothing changed" in str(refused.value)
        assert (await store.load_active(CHANNEL)).last_seq == 6  # nothing saved
        again = await referee.act(CHANNEL, GM, asl_squad("U2", 0, None), command="/unit add")
        assert again.entry.seq == 7  # and the channel plays on
    finally:
        await store.close()
        await holder.close()


@pytest.mark.parametrize(("pool_mode", "refused"), [("transaction", True), ("statement", True), ("session", False)])
async def test_a_pooler_that_breaks_session_locks_is_refused_at_start_up(pg_server, pool_mode, refused):
    try:
        bouncer = pgserver.pgbouncer(pg_server, f"bounced_{pool_mode}", pool_mode)
    except pgserver.PgUnavailable as exc:
        if pgserver.required():
            pytest.fail(f"PgBouncer is required in CI (REFEREE_CI=1): {exc}", pytrace=False)
        pytest.skip(str(exc))
    try:
        if not refused:
            store = await open_store(bouncer.dsn)
            try:  # a session pooler keeps a client on one session: the store works through it
                await seated_asl_game(Referee(store))
            finally:
                await store.close()
            return
        with pytest.raises(DatabaseUnusable) as said:
            await open_store(bouncer.dsn)
        assert "pool_mode = transaction or statement" in str(said.value) and "\n" not in str(said.value)
        assert "set the pooler's pool_mode = session" in str(said.value)
    finally:
        bouncer.stop()


async def test_the_stores_sessions_commit_synchronously_whatever_the_servers_default(pg_dsn, pg_server):
    """The test server runs with synchronous_commit off (a crash there loses the last moments'
    commits); the bot's sessions turn it on: an order answered as saved outlives a crash of the server.
    A stronger setting of the host's (remote_apply, say) is left as it is. The statement timeout is the
    setting's, in milliseconds."""
    assert pg_server.psql("SHOW synchronous_commit").strip() == "off"
    store = await open_store(pg_dsn, pool={"statement_timeout": 2.5})
    try:
        async with store._connection() as conn:
            assert await conn.fetchval("SHOW synchronous_commit") == "on"
            assert await conn.fetchval("SHOW statement_timeout") == "2500ms"
    finally:
        await store.close()
    pg_server.psql("ALTER DATABASE referee SET synchronous_commit = remote_apply")
    try:
        store = await open_store(pg_dsn)
        try:
            async with store._connection() as conn:
                assert await conn.fetchval("SHOW synchronous_commit") == "remote_apply"
        finally:
            await store.close()
    finally:
        pg_server.psql("ALTER DATABASE referee RESET synchronous_commit")
