"""Several bot processes on one PostgreSQL: each ``PostgresStore`` here has its own connection pool,
as each process has, so these are two processes' views of one database (tests/pgserver.py).

What they prove: the commands of one channel run strictly one at a time across processes (50
orders at once, split over two processes: every one is saved, none refused as stale, the log has
no gap and verifies); a re-delivered interaction raced across two processes is resolved and
logged once, and both answers are that one entry; processes starting together migrate once."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import Referee
from bot.store import PostgresStore, open_store
from bot.store.postgres import pg_migrations

from .helpers import CHANNEL, GERMAN, GM, GUILD, CountingDice, asl_squad, seated_asl_game

pytestmark = pytest.mark.usefixtures("pg_server")


@pytest.fixture
async def two_processes(pg_dsn):
    first, second = await open_store(pg_dsn), await open_store(pg_dsn)
    yield first, second
    await first.close()
    await second.close()


async def test_fifty_orders_at_once_over_two_processes_on_one_channel_are_all_saved_one_at_a_time(two_processes):
    first, second = two_processes
    referees = [Referee(first), Referee(second)]
    await seated_asl_game(referees[0])  # entries 1-5: A1 and R1 on the board

    async def add(n: int):
        return await referees[n % 2].act(CHANNEL, GM, asl_squad(f"U{n:02d}", n % 2, None), command="/unit add")

    done = await asyncio.gather(*(add(n) for n in range(50)))

    assert sorted(acted.entry.seq for acted in done) == list(range(6, 56))  # no refusal, no gap, no repeat
    game = await referees[1].game(CHANNEL)
    assert len(game.units) == 52  # no lost update: every unit of both processes is in the one state
    assert (await first.load_active(CHANNEL)).last_seq == 55
    report = await referees[0].verify(CHANNEL)
    assert report.ok and report.checked == 55, report.reason


async def test_a_redelivered_interaction_raced_across_two_processes_is_rolled_and_logged_once(two_processes):
    first, second = two_processes
    await seated_asl_game(Referee(first))
    counters = [CountingDice(), CountingDice()]
    referees = [Referee(first, dice=counters[0]), Referee(second, dice=counters[1])]
    morale = {"action": "morale", "unit": "A1"}

    answers = await asyncio.gather(*(referee.act(CHANNEL, GERMAN, morale, command="/morale",
                                                 interaction_id=777_000_1) for referee in referees))

    assert answers[0].entry == answers[1].entry  # one entry: the same seq, dice and hash
    assert sorted(answer.replayed for answer in answers) == [False, True]  # the second read it from the log
    assert sum(counter.drawn for counter in counters) == len(answers[0].entry.dice) == 2  # rolled once
    entries = [entry async for entry in first.iter_entries(answers[0].entry.game_id)]
    assert [entry.interaction_id for entry in entries].count(777_000_1) == 1 and len(entries) == 6


async def test_processes_starting_together_migrate_the_schema_once(pg_dsn):
    stores = await asyncio.gather(*(PostgresStore.open(pg_dsn) for _ in range(4)))
    try:
        assert {await store.version() for store in stores} == {len(pg_migrations())}
    finally:
        await asyncio.gather(*(store.close() for store in stores))


async def test_a_reminder_is_claimed_by_one_process_of_many(pg_dsn):
    stores = [await open_store(pg_dsn) for _ in range(3)]
    try:
        await seated_asl_game(Referee(stores[0]))
        game = await stores[0].load_active(CHANNEL)
        claims = await asyncio.gather(*(store.claim_reminder(game.id, game.last_seq, f"2026-01-0{n + 1}T00:00:00Z")
                                        for n, store in enumerate(stores) for _ in range(4)))
        assert claims.count(True) == 1
    finally:
        for store in stores:
            await store.close()


async def waiting_for_an_advisory_lock(dsn: str, timeout: float = 30.0) -> None:
    """Return once a session waits for an advisory lock (pg_locks: not granted): the event itself."""
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        async with asyncio.timeout(timeout):
            while not await conn.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"):
                await asyncio.sleep(0.02)
    finally:
        await conn.close()


async def test_a_command_cancelled_while_waiting_for_the_channel_leaves_no_lock_behind(two_processes, pg_dsn):
    first, second = two_processes
    async with first.channel_lock(CHANNEL):
        waiting = asyncio.create_task(second.channel_lock(CHANNEL).__aenter__())
        await waiting_for_an_advisory_lock(pg_dsn)  # the server has the second process waiting, not a sleep
        assert not waiting.done()  # the other process waits for the channel
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
    for store in (second, first):  # the channel is free for both processes afterwards
        async with asyncio.timeout(5):
            async with store.channel_lock(CHANNEL):
                pass


async def test_two_processes_cannot_both_take_a_servers_last_place(two_processes):
    from bot.config import Rate
    from bot.service import NotAllowed, ServerCaps

    caps = ServerCaps(running=3, started=Rate(100, 86_400))
    referees = [Referee(store, caps=caps) for store in two_processes]
    await referees[0].new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"])  # 1 of 3 running

    async def new(n: int):
        try:
            return await referees[n % 2].new_game(100 + n, GUILD, GM, "asl", ["Germans", "Russians"])
        except NotAllowed as refused:
            return refused

    results = await asyncio.gather(*(new(n) for n in range(6)))  # six channels at once, over both processes
    assert sum(not isinstance(r, NotAllowed) for r in results) == 2  # the two places left, no more
    assert (await two_processes[1].server_games(GUILD, 86_400)).running == 3


async def test_a_deadline_passed_is_ended_once_by_two_processes_at_once(two_processes):
    """Both processes' pacing passes find the same deadline passed and end the step at the same moment:
    one ends it (the referee's logged /done), the other finds the game moved on and does nothing."""
    from bot.service import Actor

    first, second = two_processes
    referees = [Referee(first), Referee(second)]
    await seated_asl_game(referees[0])
    await referees[0].act(CHANNEL, GM, {"action": "options_set", "changes": {"deadline_hours": 24}},
                          command="/game options")
    await referees[0].act(CHANNEL, GM, {"action": "phase", "to": "MPh"}, command="/game phase")
    seq = (await first.load_active(CHANNEL)).last_seq
    bot = Actor(user_id=1, is_manager=True, name="the referee")

    results = await asyncio.gather(*(referee.end_by_deadline(CHANNEL, seq, bot) for referee in referees))

    ended = [r for r in results if r is not None]
    assert len(ended) == 1 and results.count(None) == 1
    assert ended[0].entry.seq == seq + 1 and ended[0].entry.order["by"] == "deadline"
    assert (await second.load_active(CHANNEL)).last_seq == seq + 1  # logged once
    assert (await referees[1].verify(CHANNEL)).ok
