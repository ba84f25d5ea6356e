"""The database going away as a command ends (issue 28): a write that committed is never reported
as "nothing was changed". Here the session holding the channel's lock is killed right after the
command's write committed, so letting the lock go fails: the command still returns its saved entry,
no lock is left behind, and the channel plays on."""

from __future__ import annotations

import asyncio
import time

import pytest

import bot.store.postgres as postgres_store
from bot.service import Referee
from bot.store import StorageUnavailable, open_store

from .helpers import CHANNEL, GM, asl_squad, seated_asl_game

pytestmark = pytest.mark.usefixtures("pg_server")


async def test_a_lock_lost_with_its_session_after_the_write_is_not_the_commands_error(pg_dsn, monkeypatch):
    store, other = await open_store(pg_dsn), await open_store(pg_dsn)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)  # entries 1-5
        real_append = store.append
        killed = []

        async def append_then_lose_the_session(stored, game, entry):
            saved = await real_append(stored, game, entry)
            pid = store._held().get_server_pid()  # the connection holding the channel's lock
            async with other._pool.acquire() as conn:
                killed.append(await conn.fetchval("SELECT pg_terminate_backend($1)", pid))
            return saved

        monkeypatch.setattr(store, "append", append_then_lose_the_session)
        acted = await referee.act(CHANNEL, GM, asl_squad("U1", 0, None), command="/unit add")
        monkeypatch.undo()

        assert killed == [True] and acted.entry.seq == 6  # the command's own answer: its saved entry
        async with asyncio.timeout(10), other.channel_lock(CHANNEL):  # no lock left behind
            pass
        again = await Referee(other).act(CHANNEL, GM, asl_squad("U2", 0, None), command="/unit add")
        assert again.entry.seq == 7
        assert (await Referee(store).verify(CHANNEL)).ok  # the first process's pool serves on
    finally:
        await store.close()
        await other.close()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_after_the_server_restarted_the_next_command_is_served_on_a_new_connection(pg_server_of_its_own, mode):
    """Every pooled connection died with the restart. Before, each command that drew one was refused
    ("nothing changed", or an unexpected error for a protocol the shutdown left mid-error); now the
    dead one is found as the channel's lock is asked for, the pool replaces them all, and the command
    runs on a new connection."""
    dsn = pg_server_of_its_own.fresh_dsn()
    store = await open_store(dsn)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)  # entries 1-5, on pooled connections now idle
        # the restart in the loop's own thread: no event of the loop runs meanwhile, so the pool has
        # not yet read its connections' end, as under load (a busy loop reads it late)
        pg_server_of_its_own.restart(mode)
        acted = await referee.act(CHANNEL, GM, asl_squad("U1", 0, None), command="/unit add")
        assert acted.entry.seq == 6
        again = await referee.act(CHANNEL, GM, asl_squad("U2", 0, None), command="/unit add")
        assert again.entry.seq == 7 and (await referee.verify(CHANNEL)).ok
    finally:
        await store.close()


@pytest.mark.parametrize(("down_for", "saved"), [(0.4, True), (2.0, False)])
async def test_an_order_given_while_the_server_restarts_waits_for_it_a_moment(pg_server_of_its_own, monkeypatch,
                                                                             down_for, saved):
    """A command that has not begun waits up to RECONNECT_SECONDS (here 1 s; its pauses grow, so 0.75 s)
    for a database that cannot be reached: a server back within it serves the order (below), one back
    later refuses it, nothing changed (above). Before, every order given while the server was down was
    refused at once."""
    monkeypatch.setattr(postgres_store, "RECONNECT_SECONDS", 1.0)
    dsn = pg_server_of_its_own.fresh_dsn()
    store = await open_store(dsn)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)  # entries 1-5
        pg_server_of_its_own.down()

        async def back_after_a_while() -> None:
            await asyncio.sleep(down_for)
            await asyncio.to_thread(pg_server_of_its_own.up)

        back = asyncio.create_task(back_after_a_while())
        asked = time.monotonic()
        try:
            acted = await referee.act(CHANNEL, GM, asl_squad("U1", 0, None), command="/unit add")
        except StorageUnavailable as refused:
            acted = refused
        waited = time.monotonic() - asked
        await back  # the server is up again
        if saved:
            assert not isinstance(acted, StorageUnavailable) and acted.entry.seq == 6, acted
        else:
            assert isinstance(acted, StorageUnavailable) and acted.kind == "unreachable"
            assert "nothing changed" in str(acted) and 0.5 < waited <= 1.5, waited  # tried for up to 1 s
            assert (await store.load_active(CHANNEL)).last_seq == 5  # nothing saved
        assert (await referee.act(CHANNEL, GM, asl_squad("U2", 0, None), command="/unit add")).entry.seq == (
            7 if saved else 6)
    finally:
        await store.close()
