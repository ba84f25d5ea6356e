"""Issue 5 in the store: log entries' outcomes stored compressed (old text rows still read and
verify), and one round trip to the SQLite thread per read or write of a command."""

import asyncio
import json
import zlib

import aiosqlite.core
import pytest

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.service import Referee
from bot.record import canonical_json
from bot.store import SchemaTooNew, SqliteStore, Store
from bot.store.sqlite import COMPRESSED_OUTCOMES_SCHEMA, DICTIONARY_SCHEMA, inflate

from .helpers import CHANNEL, GM, GUILD, TABLE_DICE, asl_squad, open_store, raw, seated_asl_game


async def standard_asl_game(referee: Referee) -> None:
    """The benchmark's standard ASL position (a fire group and its target stack), GM at the table."""
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"],
                           options=scenarios.bot_game_options("asl") | TABLE_DICE)
    for order in scenarios.asl_setup():
        await referee.act(CHANNEL, GM, order, command="/setup")


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "referee.sqlite3"


async def test_a_fire_outcome_is_stored_compressed_and_reads_back_exactly(tmp_path, path):
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await standard_asl_game(referee)
        acted = await referee.act(CHANNEL, GM, scenarios.asl_fire(), dice=[3, 4, 2, 5, 6, 1, 4, 4, 3, 3],
                                  command="/fire")
        [logged] = await store.entries(acted.entry.game_id, after_seq=acted.seq - 1, limit=1)
        assert logged == acted.entry  # every field, the outcome's whole trail included
        assert (await referee.verify(CHANNEL)).ok
    finally:
        await store.close()
    [(kind, stored, order_kind)] = raw(path, "SELECT typeof(outcome), outcome, typeof(order_json) "
                                             "FROM log_entries WHERE seq = ?", (acted.seq,))
    text = canonical_json(acted.entry.outcome)
    assert (kind, order_kind) == ("blob", "text")  # the order stays JSON text: undone() reads it in SQL
    assert inflate(stored).decode("utf-8") == text
    assert len(stored) * 3 < len(text.encode("utf-8")), (len(stored), len(text))  # a fire's trail: ~7x


async def test_a_store_held_before_schema_9_writes_outcomes_a_bot_of_its_version_reads(tmp_path, path):
    # schema 4-8 bots decompress outcomes with plain zlib: no preset dictionary until schema 9
    old = await open_store(tmp_path, upto=DICTIONARY_SCHEMA - 1)
    try:
        await seated_asl_game(Referee(old))
    finally:
        await old.close()
    store = await open_store(tmp_path)
    try:
        assert await store.version() >= DICTIONARY_SCHEMA
        await Referee(store).act(CHANNEL, GM, asl_squad("A2", 0), command="/unit add")
        assert (await Referee(store).verify(CHANNEL)).ok
    finally:
        await store.close()
    rows = raw(path, "SELECT seq, outcome FROM log_entries ORDER BY seq")
    for seq, stored in rows[:-1]:
        assert json.loads(zlib.decompress(stored)), seq  # what the older bot reads: no dictionary needed
    with pytest.raises(zlib.error, match="Error 2 "):  # Z_NEED_DICT
        zlib.decompress(rows[-1][1])  # the newer row needs the dictionary ...
    assert json.loads(inflate(rows[-1][1]))["action"] == "unit_add"  # ... which today's bot has


async def test_text_rows_of_schema_3_and_compressed_rows_live_in_one_log_and_verify(tmp_path, path):
    old = await open_store(tmp_path, upto=COMPRESSED_OUTCOMES_SCHEMA - 1)  # as a bot of schema 3 wrote
    try:
        assert old.pack_outcomes is None  # TEXT, as schema 3 wrote it
        await seated_asl_game(Referee(old))  # entries 1-5
    finally:
        await old.close()
    before = raw(path, "SELECT seq, hash, outcome FROM log_entries ORDER BY seq")
    store = await open_store(tmp_path)
    try:
        assert await store.version() >= COMPRESSED_OUTCOMES_SCHEMA
        referee = Referee(store)
        await referee.act(CHANNEL, GM, asl_squad("A2", 0), command="/unit add")
        await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A2", "location": "B6"},
                          command="/unit move")
        report = await referee.verify(CHANNEL)
        assert (report.ok, report.checked) == (True, 7), report.reason
        export = await referee.export(CHANNEL)
        assert [e["seq"] for e in export["entries"]] == list(range(1, 8))
        assert export["entries"][2]["outcome"] == json.loads(before[2][2])
    finally:
        await store.close()
    # nothing old was rewritten: same bytes, same hashes; the new rows are BLOBs
    assert raw(path, "SELECT seq, hash, outcome FROM log_entries WHERE seq <= 5 ORDER BY seq") == before
    assert raw(path, "SELECT seq, typeof(outcome) FROM log_entries ORDER BY seq") == \
        [(1, "text"), (2, "text"), (3, "text"), (4, "text"), (5, "text"), (6, "blob"), (7, "blob")]


async def test_a_bot_of_schema_3_refuses_the_database_instead_of_misreading_it(tmp_path, path, monkeypatch):
    store = await open_store(tmp_path)
    await store.close()
    import bot.store.sqlite as sqlite_store

    known = sqlite_store.migrations()
    monkeypatch.setattr(sqlite_store, "migrations", lambda: known[:3])  # a bot that knows 3 migrations
    with pytest.raises(SchemaTooNew, match=f"schema version {len(known)}, newer than this bot knows \\(3\\)"):
        await SqliteStore.open(path)


class TripCounter:
    """Counts the calls handed to aiosqlite's connection thread (every statement, fetch and
    close of aiosqlite is one; a store operation should be one)."""

    def __init__(self, monkeypatch):
        self.trips = 0
        hand_over = aiosqlite.core.Connection._execute

        async def counted(connection, fn, *args, **kwargs):
            self.trips += 1
            return await hand_over(connection, fn, *args, **kwargs)
        monkeypatch.setattr(aiosqlite.core.Connection, "_execute", counted)


async def test_a_command_costs_two_trips_to_the_database_thread_and_a_redelivery_one(tmp_path, monkeypatch):
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        counter = TripCounter(monkeypatch)
        move = {"action": "unit_move", "unit": "A1", "location": "B6"}
        acted = await referee.act(CHANNEL, GM, move, command="/unit move", interaction_id=77)
        assert counter.trips == 2  # the read (interaction id + game), the write (state + entry)
        again = await referee.act(CHANNEL, GM, move, command="/unit move", interaction_id=77)
        assert counter.trips == 3 and again.replayed and again.entry == acted.entry
        ended = await referee.end_game(CHANNEL, GM)
        assert counter.trips == 5 and ended.seq == acted.seq + 1
    finally:
        await store.close()


async def test_fifty_channels_at_once_each_get_their_own_whole_transaction(tmp_path):
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        channels = range(100, 150)
        await asyncio.gather(*(referee.new_game(c, GUILD, GM, "asl", ["Germans", "Russians"]) for c in channels))
        await asyncio.gather(*(referee.act(c, GM, asl_squad(f"S{i}", 0, None), command="/unit add")
                               for c in channels for i in range(4)))
        for c in channels:
            report = await referee.verify(c)
            assert (report.ok, report.checked) == (True, 5), report.reason
            assert len((await referee.game(c)).units) == 4
    finally:
        await store.close()


async def test_a_caller_cancelled_mid_write_leaves_the_command_whole_or_absent(tmp_path, path):
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        for i in range(10):
            task = asyncio.create_task(referee.act(CHANNEL, GM, asl_squad(f"X{i}", 0, None), command="/unit add"))
            for _ in range(i):  # cancel at a different point of the command each time
                await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # the next command starts once this one's write (if it got that far) is done: else, on a
            # loaded machine, it may load the state before that write and be refused as stale
            # ("give the order again") before the test gets to cancel it
            await store._on_thread(lambda conn: None)
        # a cancelled caller's write still runs to its end on the writer's thread (reads have
        # their own thread and do not queue behind it): wait for it
        await store._on_thread(lambda conn: None)
        game = await referee.game(CHANNEL)
        report = await referee.verify(CHANNEL)
        assert report.ok, report.reason
        added = {unit for unit in game.units if unit.startswith("X")}
        assert report.checked == 5 + len(added)  # each saved unit has its entry, and nothing else does
    finally:
        await store.close()


async def test_a_store_held_at_schema_3_writes_text_as_that_bot_did(tmp_path, path):
    store = await SqliteStore.open(path, upto=3)
    try:
        await seated_asl_game(Referee(store))
    finally:
        await store.close()
    assert {kind for (kind,) in raw(path, "SELECT typeof(outcome) FROM log_entries")} == {"text"}
    assert raw(path, "PRAGMA user_version") == [(3,)]



async def test_fire_entries_cost_at_most_2_kb_of_database_each(tmp_path, path):
    """Issue 5's storage target, on real fire entries with their whole trail: compressed outcomes
    in a rowid table (a WITHOUT ROWID table gave each ~1.5 KB row an overflow page of its own)."""
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await standard_asl_game(referee)
        stored = await store.load_active(CHANNEL)
        standard, fire, dice = stored.game, scenarios.asl_fire(), SeededDice(5)

        async def size() -> int:
            await store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return path.stat().st_size

        before = await size()
        await store._db.execute("PRAGMA synchronous = OFF")  # the size is the point, not the fsync
        for _ in range(120):  # from the same position each time (a fired group cannot fire again)
            resolution = resolve(standard, fire, dice)
            entry = referee.desk.seal(stored.id, stored.last_seq, stored.head_hash, actor=GM, command="/fire",
                                  order=fire, outcome=resolution.outcome, game=resolution.game,
                                  manual=False, interaction_id=None)
            stored = await store.append(stored, resolution.game, entry)
        per_entry = (await size() - before) / 120
    finally:
        await store.close()
    assert per_entry <= 2048, per_entry


async def test_the_one_trip_read_answers_as_the_interfaces_default_does(tmp_path):
    """SqliteStore.load_for_command (one trip) against Store's default (three calls): a new
    interaction, a logged one, and a channel without a game."""
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        logged = await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": "B6"},
                                   command="/unit move", interaction_id=91)
        for channel, interaction in ((CHANNEL, None), (CHANNEL, 12345), (CHANNEL, 91), (999, None), (999, 91)):
            one_trip = await store.load_for_command(channel, interaction)
            assert one_trip == await Store.load_for_command(store, channel, interaction)
        assert (await store.load_for_command(999, 91))[0] == logged.entry  # found by its id, wherever asked
        assert await store.load_for_command(999, None) == (None, None)
    finally:
        await store.close()


async def test_a_game_the_service_has_not_seen_comes_with_its_newest_entrys_dice_proof_in_one_trip(tmp_path):
    """``load_for_command(head_for=...)``: the newest entry's order and dice proof read with the row
    when the service asks (it keeps no dice state for that game: after a restart), not for a
    re-delivered interaction nor when it does not ask; the first command of a restarted service
    then reads the store once (the row with the entry and the seed), and logs the same
    dice state the entry holds."""
    store = await open_store(tmp_path)
    try:
        first = Referee(store)
        await seated_asl_game(first)
        await first.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": "B6"},
                        command="/unit move", interaction_id=91)
        _, stored = await store.load_for_command(CHANNEL, None, head_for=lambda *_: True)
        [newest] = await store.entries(stored.id, after_seq=stored.last_seq - 1)
        assert newest.dice_proof and newest.dice_proof["commitment"]
        assert stored.head == (stored.last_seq, stored.head_hash, newest.order, newest.dice_proof)
        asked = []
        _, unasked = await store.load_for_command(CHANNEL, None, head_for=lambda *key: asked.append(key) or False)
        assert unasked.head is None and asked == [(stored.id, stored.last_seq, stored.head_hash)]
        assert (await store.load_for_command(CHANNEL, 91, head_for=lambda *_: True))[1].head is None
        assert unasked == stored  # the head is no part of the game's identity

        restarted = Referee(store)
        reads = []
        read = store._read

        async def counted(work, *args):
            reads.append(getattr(work, "__name__", work))
            return await read(work, *args)

        store._read = counted
        acted = await restarted.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": "B7"},
                                    command="/unit move", interaction_id=92)
        store._read = read
        assert len(reads) == 1, reads  # the row with its head and the turn's seed
        assert acted.entry.dice_proof["commitment"] == newest.dice_proof["commitment"]
        assert (await first.verify(CHANNEL)).ok
    finally:
        await store.close()
