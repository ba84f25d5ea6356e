"""The state written once, compactly (issue 14): one encoding of the game per command, whose bytes
are both what the entry's state hash covers and the row the store writes (compressed, with the
order of the units and Locations, which canonical JSON does not keep); and reminders found through
an index on the time a game is due for one, not by reading every game's state."""

from __future__ import annotations

import hashlib
import json
import zlib
from datetime import datetime, timedelta, timezone

import pytest

from bot.core.game import Game
from bot.core.rulesets.asl.models import AslUnit
from bot.record.chain import saved_state
from bot.service import Referee
from bot.store import PostgresStore, is_postgres
from bot.store import open_store as open_any
from bot.store.base import unpack_state

from .helpers import CHANNEL, GM, GUILD, asl_squad, open_store, raw, raw_read, seated_asl_game


@pytest.fixture
async def store(tmp_path):
    store = await open_store(tmp_path)
    yield store
    await store.close()


def _db(tmp_path):
    return tmp_path / "data" / "referee.sqlite3"


@pytest.fixture
async def both(store_database):
    """A store of each kind (SQLite, PostgreSQL): the tests that hold for both."""
    store = await open_any(store_database)
    yield store
    await store.close()


async def test_the_row_and_the_state_hash_come_from_one_dump_and_the_row_keeps_the_games_order(store, tmp_path):
    referee = Referee(store)
    await seated_asl_game(referee)
    for unit, side, where in (("R9", 1, "C5"), ("R2", 1, "C5"), ("A10", 0, "B5")):  # out of sorted order
        await referee.act(CHANNEL, GM, asl_squad(unit, side, where), command="/unit add")
    [(kind, stored, last_state_hash)] = raw(
        _db(tmp_path), "SELECT typeof(g.state), g.state, e.state_hash FROM games g "
        "JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq")
    assert kind == "blob"
    game = await referee.game(CHANNEL)
    saved = saved_state(game)
    assert zlib.decompress(stored).decode() == saved.ordered
    assert hashlib.sha256(saved.text.encode()).hexdigest() == last_state_hash
    assert json.loads(saved.text) == json.loads(saved.ordered)  # the same content, in two orders
    assert list(game.units) == ["A1", "R1", "R9", "R2", "A10"]
    assert unpack_state(stored) == game
    assert len(stored) < len(game.model_dump_json()) / 4


async def test_every_mapping_of_the_state_keeps_its_order(store):
    referee = Referee(store)
    options = {"undo_minutes": 5, "remind_after_hours": 3, "details": "always"}
    await referee.new_game(CHANNEL, GUILD, GM, "cd", ["US", "Germany"], options=options)
    acted = await referee.act(CHANNEL, GM, {"action": "unit_add", "id": "U1", "type": "us-rifle", "side": 0,
                                            "location": "E4"}, command="/unit add")
    game = await referee.game(CHANNEL)  # as the store read it back
    # a game paced by post (remind_after_hours) waits for reactions; the creation defaults come last
    assert list(game.options) == [*options, "reactions", "cd_depletion_after_hits", "cd_turn_rules", "manual_dice"]
    assert game.model_dump_json() == acted.game.model_dump_json()  # nested tables too (a CD stand's to-hit bands)


async def test_a_command_serializes_the_game_once(both, monkeypatch):
    referee = Referee(both)
    await seated_asl_game(referee)
    calls = []
    for name in ("model_dump", "model_dump_json"):
        original = getattr(Game, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Game, name, counted)
    await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": "D4"}, command="/unit move")
    assert calls == ["model_dump"]  # the seal's encoding, reused by the store


def test_no_unit_model_calls_back_into_python_to_serialize_and_late_fields_stay_out_while_unset():
    assert not AslUnit.__pydantic_decorators__.model_serializers
    unit = AslUnit(id="A1", type="custom", name="4-6-7", side=0, kind="squad", fp=4, range=6, morale=7)
    assert "berserk" not in unit.model_dump() and "heroic" not in unit.model_dump_json()
    assert unit.model_copy(update={"berserk": True}).model_dump()["berserk"] is True


async def test_a_text_state_of_an_older_bot_still_loads(store, tmp_path):
    referee = Referee(store)
    await seated_asl_game(referee)
    game = await referee.game(CHANNEL)
    raw(_db(tmp_path), "UPDATE games SET state = ?", (game.model_dump_json(),))
    assert await referee.game(CHANNEL) == game
    assert (await referee.verify(CHANNEL)).ok


async def test_every_load_decompresses_the_state_off_the_event_loop_and_reads_the_same_game(store, tmp_path,
                                                                                           monkeypatch):
    """The state's zlib runs on the database thread (issue 14: the loop's CPU per command); each way
    a command loads its game reads back the very game that was saved: same state hash, same unit order."""
    import threading

    import bot.store.base as store_base
    import bot.store.sqlite as sqlite_store

    referee = Referee(store)
    await seated_asl_game(referee)
    for i, (unit, side, where) in enumerate((("R9", 1, "C5"), ("R2", 1, "C5"), ("A10", 0, "B5"))):  # not sorted
        acted = await referee.act(CHANNEL, GM, asl_squad(unit, side, where), command="/unit add",
                                  interaction_id=7_000 + i)
    decompressed_on = []

    class _Zlib:
        def __getattr__(self, name):
            return getattr(zlib, name)

        @staticmethod
        def decompress(data, *args):
            decompressed_on.append(threading.get_ident())
            return zlib.decompress(data, *args)

    monkeypatch.setattr(sqlite_store, "zlib", _Zlib())
    monkeypatch.setattr(store_base, "zlib", _Zlib())  # unpack_state, the stores' own
    game_id = (await store.load_active(CHANNEL)).id
    loaded = [await store.load_active(CHANNEL), await store.load_latest(CHANNEL), await store.load_game(game_id),
              (await store.load_for_command(CHANNEL, None))[1]]
    assert len(decompressed_on) >= 4 and threading.get_ident() not in decompressed_on
    monkeypatch.undo()  # a re-delivery also reads its logged entry (its outcome, decompressed where it is parsed)
    loaded.append((await store.load_for_command(CHANNEL, acted.entry.interaction_id))[1])
    for stored in loaded:
        assert stored.game == acted.game and list(stored.game.units) == ["A1", "R1", "R9", "R2", "A10"]
        assert saved_state(stored.game).text == saved_state(acted.game).text  # the state hash's bytes
        assert hashlib.sha256(saved_state(stored.game).text.encode()).hexdigest() == acted.entry.state_hash


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def iso(self, **later: float) -> str:
        return (self.now + timedelta(**later)).isoformat(timespec="milliseconds")


async def test_reminders_are_found_by_their_due_time_through_an_index(both):
    store = both
    clock = _Clock()
    referee = Referee(store, clock=clock)
    await referee.new_game(1, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": 12})
    await referee.new_game(2, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": "30"})
    await referee.new_game(3, GUILD, GM, "asl", ["Germans", "Russians"])  # no reminders
    await referee.new_game(4, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": -1})
    assert await store.quiet_games(due_by=clock.iso(hours=11)) == []
    due = await store.quiet_games(due_by=clock.iso(hours=12))
    assert [q.game.channel_id for q in due] == [1]
    assert [q.game.channel_id for q in await store.quiet_games(due_by=clock.iso(hours=31))] == [1, 2]
    # reminded of this silence: no more until the game moves again, then 12 hours after that entry
    await store.mark_reminded(due[0].game.id, due[0].game.last_seq, clock.iso(hours=12))
    assert [q.game.channel_id for q in await store.quiet_games(due_by=clock.iso(hours=31))] == [2]
    clock.now += timedelta(hours=20)
    await referee.act(1, GM, {"action": "phase"}, command="/game phase")
    assert [q.game.channel_id for q in await store.quiet_games(due_by=clock.iso(hours=11))] == [2]
    assert [q.game.channel_id for q in await store.quiet_games(due_by=clock.iso(hours=12))] == [2, 1]
    due_sql = "SELECT id FROM games WHERE status = 'active' AND remind_due IS NOT NULL AND remind_due <= '2026'"
    if isinstance(store, PostgresStore):  # a table this small is cheapest to scan: forbid the scan
        async with store._pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            plan = " ".join(row[0] for row in await conn.fetch(f"EXPLAIN {due_sql}"))
    else:
        async with store._db.execute(f"EXPLAIN QUERY PLAN {due_sql}") as cursor:
            plan = " ".join(row[-1] for row in await cursor.fetchall())
    assert "games_reminder_due" in plan


async def test_the_upgrade_sets_the_due_time_of_games_that_asked_for_reminders(store_database):
    path = store_database
    clock = _Clock()
    # the schema before the due time: SQLite's 6, PostgreSQL's 2
    old = await open_any(path, upto=2 if is_postgres(path) else 6)
    try:
        referee = Referee(old, clock=clock)
        await referee.new_game(1, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": 6})
        await referee.new_game(2, GUILD, GM, "asl", ["Germans", "Russians"])
        await referee.new_game(3, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": "1.5"})
        await referee.new_game(4, GUILD, GM, "asl", ["Germans", "Russians"], options={"remind_after_hours": 0})
        if not is_postgres(path):
            assert {kind for (kind,) in raw(path, "SELECT typeof(state) FROM games")} == {"text"}  # as schema 6 wrote
    finally:
        await old.close()
    store = await open_any(path)
    try:
        assert await raw_read(path, "SELECT channel_id, remind_due FROM games ORDER BY id") == [
            (1, clock.iso(hours=6)), (2, None), (3, clock.iso(hours=1.5)), (4, None)]
        assert [q.game.channel_id for q in await store.quiet_games(due_by=clock.iso(hours=6))] == [3, 1]
    finally:
        await store.close()
