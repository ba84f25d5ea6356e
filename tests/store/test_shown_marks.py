"""A result seen in the channel goes off the unshown list (bot/store: ``entry_shown``) with the next
write of the same bot process, not only when a timer fires: after a crash the bot posts again only
the results seen since its last write (docs/reliability.md: PostgreSQL re-posted 439 results over
25 kills where SQLite re-posted 13, its marks waiting for the 0.25 s timer). Each test runs on both
stores (an SQLite file, a PostgreSQL schema of its own); the timer is pushed out of reach, so only
the write can have sent the mark, and the list is read by a second store on the same database, as
the bot started after a crash would read it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import bot.store.postgres
import bot.store.sqlite
from bot.service import Referee
from bot.shards import Shards, shard_of
from bot.store import open_store

from .helpers import CHANNEL, GM, asl_squad, seated_asl_game

OTHER = CHANNEL + 1


@pytest.fixture
async def stores(store_database, monkeypatch):
    """The bot's store, and another on the same database: the process that starts after a crash."""
    for module in (bot.store.sqlite, bot.store.postgres):
        monkeypatch.setattr(module, "SHOWN_FLUSH_SECONDS", 3600)  # no timer sends a mark in a test
    store = await open_store(store_database)
    later = await open_store(store_database)
    yield store, later
    await later.close()
    await store.close()


async def unshown(store) -> list[tuple[int, int]]:
    return [(channel, entry.seq) for channel, entry in await store.unshown_entries()]


async def test_a_result_seen_is_off_the_unshown_list_once_the_next_write_commits(stores):
    store, later = stores
    referee = Referee(store)
    await seated_asl_game(referee)
    await seated_asl_game(referee, OTHER)
    acted = await referee.act(CHANNEL, GM, asl_squad("A2", 0), command="/unit add", interaction_id=9_001)
    assert await unshown(later) == [(CHANNEL, acted.entry.seq)]  # saved, its answer not yet seen
    await store.entry_shown(acted.entry.game_id, acted.entry.seq)
    assert await unshown(later) == [(CHANNEL, acted.entry.seq)]  # seen, but nothing written since
    # the next write of this process (another channel's command) takes the mark with it
    await referee.act(OTHER, GM, asl_squad("A2", 0), command="/unit add")
    assert await unshown(later) == []  # a crash now posts nothing again


async def test_marks_of_several_results_go_with_one_write_and_a_newer_result_stays_listed(stores):
    store, later = stores
    referee = Referee(store)
    await seated_asl_game(referee)
    await seated_asl_game(referee, OTHER)
    first = await referee.act(CHANNEL, GM, asl_squad("A2", 0), command="/unit add", interaction_id=9_001)
    second = await referee.act(OTHER, GM, asl_squad("A2", 0), command="/unit add", interaction_id=9_002)
    await store.entry_shown(first.entry.game_id, first.entry.seq)
    await store.entry_shown(second.entry.game_id, second.entry.seq)
    third = await referee.act(CHANNEL, GM, asl_squad("A3", 0), command="/unit add", interaction_id=9_003)
    assert await unshown(later) == [(CHANNEL, third.entry.seq)]  # its own answer is not yet out
    await store.entry_shown(third.entry.game_id, third.entry.seq)
    await referee.act(OTHER, GM, asl_squad("A3", 0), command="/unit add")
    assert await unshown(later) == []


async def test_a_starting_process_lists_only_its_own_shards_results_saved_before_it_started(stores):
    """A process starting posts what was saved and never seen before it started, of the servers of
    its own shards: not another shard's (that process shows its own), not a command answered since
    it started (its reply is on its way). Both used to be posted as "saved just before the bot
    restarted" into channels whose results had been shown (issue 28)."""
    import asyncio
    from datetime import datetime, timezone

    from bot.config import load_settings

    store, later = stores
    referee = Referee(store)
    on_shard = {n: next(g for g in range(1 << 22, 1 << 30, 1 << 22) if (g >> 22) % 2 == n) for n in (0, 1)}
    await referee.new_game(CHANNEL, on_shard[0], GM, "asl", ["Germans", "Russians"], interaction_id=9_101)
    await referee.new_game(OTHER, on_shard[1], GM, "asl", ["Germans", "Russians"], interaction_id=9_102)
    await asyncio.sleep(0.01)
    started = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    since = await referee.act(CHANNEL, GM, asl_squad("A2", 0), command="/unit add", interaction_id=9_004)

    everything = [(channel, acted.seq) for channel, acted in await Referee(later).unshown()]
    assert (CHANNEL, since.entry.seq) in everything and any(channel == OTHER for channel, _ in everything)
    shard_0 = load_settings(shard_id=0, shard_count=2)
    mine = [(channel, acted.seq) for channel, acted in await Referee(later).unshown(
        before=started, shards=shard_0.own_shards)]
    assert mine and {channel for channel, _ in mine} == {CHANNEL}  # not shard 1's channel
    assert (CHANNEL, since.entry.seq) not in mine  # logged after the start: this process's to show
    assert mine == [(c, s) for c, s in everything if c == CHANNEL and s != since.entry.seq]


async def test_a_starting_process_finds_its_own_result_behind_more_than_a_hundred_of_other_shards(stores):
    """The filter is the store's query, not a pass over the 100 oldest rows: 120 results of shard 1's
    servers, all older and all unshown, do not hide shard 0's one from the process serving shard 0
    (before, it found nothing and its player waited for its next start)."""
    store, later = stores
    referee = Referee(store)
    others = [g << 22 | 7 for g in range(1, 400) if shard_of(g << 22, 2) == 1][:120]
    for n, guild in enumerate(others):  # 120 channels of shard 1, each with an unshown result
        await referee.new_game(50_000 + n, guild, GM, "asl", ["Germans", "Russians"], interaction_id=70_000 + n)
    mine = next(g << 22 | 7 for g in range(1, 400) if shard_of(g << 22, 2) == 0)
    own = await referee.new_game(CHANNEL, mine, GM, "asl", ["Germans", "Russians"], interaction_id=79_999)
    started = datetime.now(timezone.utc) + timedelta(seconds=1)

    everything = await later.unshown_entries()  # unfiltered: the 100 oldest, all of shard 1
    assert len(everything) == 100 and CHANNEL not in {channel for channel, _ in everything}
    for shards, found in ((Shards((0,), 2), [CHANNEL]), (Shards((1,), 2), [50_000 + n for n in range(100)]),
                          (Shards((0, 1), 2), [50_000 + n for n in range(100)])):
        listed = await later.unshown_entries(before=started, shards=shards)
        assert [channel for channel, _ in listed] == found, shards
    assert [(c, a.seq) for c, a in await Referee(later).unshown(before=started, shards=Shards((0,), 2))] == [
        (CHANNEL, own.entry.seq)]
    # the start time in the query too: a result logged at or after the start is not the restart's to show
    assert await later.unshown_entries(before=datetime.fromisoformat(own.entry.time), shards=Shards((0,), 2)) == []
    assert len(await later.unshown_entries(
        before=datetime.fromisoformat(own.entry.time) + timedelta(milliseconds=1), shards=Shards((0,), 2))) == 1
